// Command release builds every artefact of a ctxls release into one
// folder, the same bytes for the same commit:
//
//	go run ./release DIST
//
// run from the repository root (.ci/release does). DIST receives
//
//   - ctxls_VERSION_GOOS_GOARCH.tar.gz (.zip for Windows) for linux, darwin
//     and windows on amd64 and arm64, each with the binary, README.md and
//     LICENSE;
//   - the npm packages as npm pack writes them: ctxls-VERSION.tgz, with a
//     launcher and one optional dependency per platform, and
//     ctxls-OS-CPU-VERSION.tgz, each holding its platform's binary;
//   - ctxls-TARGET-VERSION.vsix, the VS Code extension with the binary of
//     one platform;
//   - ctxls-claude-plugin-VERSION.zip, the Claude Code plugin with its
//     marketplace;
//   - SHA256SUMS, in the format of sha256sum.
//
// The version is the VS Code extension's; the Claude Code plugin must
// say the same. Binaries are built with CGO_ENABLED=0, -trimpath,
// -buildvcs=false and the version and commit passed to the linker, and
// every file of every archive gets the commit's time.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("release: ")
	if len(os.Args) != 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: go run ./release DIST   (from the repository root)")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1]); err != nil {
		log.Fatal(err)
	}
}

// source is what the release is built from.
type source struct {
	root     string // the repository
	version  string
	commit   string
	modified bool
	time     time.Time // the commit's
}

func run(ctx context.Context, dist string) error {
	start := time.Now()
	src, err := readSource(ctx, ".")
	if err != nil {
		return err
	}
	dist, err = prepareDist(dist)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "ctxls-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	log.Printf("ctxls %s, commit %s%s, into %s", src.version, src.commit, map[bool]string{true: " with local changes"}[src.modified], dist)

	bins, err := src.buildAll(ctx, filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(src.root, "LICENSE"))
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(src.root, "README.md"))
	if err != nil {
		return err
	}
	for _, p := range platforms {
		if err := writeArchive(dist, src, p, bins[p], readme, license); err != nil {
			return err
		}
	}
	log.Print("archives written")
	if err := src.npm(ctx, dist, work, string(license), bins); err != nil {
		return err
	}
	log.Print("npm packages packed")
	if err := src.vsix(ctx, dist, bins); err != nil {
		return err
	}
	log.Print("VS Code extensions packaged")
	if err := src.plugin(dist, license); err != nil {
		return err
	}
	if err := writeSums(dist); err != nil {
		return err
	}
	log.Printf("done in %.0fs: %s", time.Since(start).Seconds(), filepath.Join(dist, "SHA256SUMS"))
	return nil
}

// readSource reads the version from the manifests and the commit from git.
func readSource(ctx context.Context, root string) (source, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return source{}, err
	}
	src := source{root: root}
	ext, err := manifestVersion(filepath.Join(root, "vscode-extension", "package.json"))
	if err != nil {
		return source{}, err
	}
	plugin, err := manifestVersion(filepath.Join(root, "claude-plugin", ".claude-plugin", "plugin.json"))
	if err != nil {
		return source{}, err
	}
	if ext != plugin {
		return source{}, fmt.Errorf("vscode-extension/package.json says version %s, claude-plugin/.claude-plugin/plugin.json %s: a release has one version", ext, plugin)
	}
	src.version = ext
	if src.commit, err = git(ctx, root, "rev-parse", "HEAD"); err != nil {
		return source{}, err
	}
	status, err := git(ctx, root, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return source{}, err
	}
	src.modified = status != ""
	stamp, err := git(ctx, root, "log", "-1", "--format=%ct")
	if err != nil {
		return source{}, err
	}
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return source{}, fmt.Errorf("commit time %q: %w", stamp, err)
	}
	src.time = time.Unix(secs, 0).UTC()
	return src, nil
}

// manifestVersion reads the version field of a JSON manifest.
func manifestVersion(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if m.Version == "" {
		return "", fmt.Errorf("%s has no version", path)
	}
	return m.Version, nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// prepareDist makes dist an empty folder and returns its absolute path. A
// folder that holds anything is refused rather than emptied: DIST is
// named on a command line, and a slip must not delete a tree.
func prepareDist(dist string) (string, error) {
	dist, err := filepath.Abs(dist)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dist)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dist, os.MkdirAll(dist, 0o755)
	case err != nil:
		return "", err
	case len(entries) > 0:
		return "", fmt.Errorf("%s is not empty; give a new or empty folder", dist)
	}
	return dist, nil
}

// ldflags are the linker flags of a release binary.
func (s source) ldflags() string {
	f := "-s -w -X main.version=" + s.version + " -X main.commit=" + s.commit
	if s.modified {
		f += " -X main.modified=true"
	}
	return f
}

// buildAll compiles ctxls for every platform into dir, two at a time:
// most of a build is spent compiling a few large packages, each on one
// core, so a second build keeps the other core busy.
func (s source) buildAll(ctx context.Context, dir string) (map[platform]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bins := map[platform]string{}
	errs := make([]error, len(platforms))
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(2, runtime.NumCPU()))
	for i, p := range platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			t := time.Now()
			bin := filepath.Join(dir, p.target(), p.exe())
			if err := s.build(ctx, p, bin); err != nil {
				errs[i] = err
				cancel() // the other builds are of no use now
				return
			}
			mu.Lock()
			bins[p] = bin
			mu.Unlock()
			log.Printf("built %s (%.0fs)", p.target(), time.Since(t).Seconds())
		}()
	}
	wg.Wait()
	return bins, errors.Join(errs...)
}

// build compiles ctxls for p into out.
func (s source) build(ctx context.Context, p platform, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+s.ldflags(), "-o", out, "./cmd/ctxls")
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.goos, "GOARCH="+p.goarch)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w", p.target(), err)
	}
	return nil
}

// writeArchive writes the archive of platform p.
func writeArchive(dist string, s source, p platform, bin string, readme, license []byte) error {
	binary, err := fileEntry(p.exe(), bin, true)
	if err != nil {
		return err
	}
	entries := []entry{binary, {name: "README.md", data: readme}, {name: "LICENSE", data: license}}
	var buf bytes.Buffer
	if p.goos == "windows" {
		err = writeZip(&buf, p.archiveBase(s.version), entries, s.time)
	} else {
		err = writeTarGz(&buf, p.archiveBase(s.version), entries, s.time)
	}
	if err != nil {
		return fmt.Errorf("archive for %s: %w", p.target(), err)
	}
	return os.WriteFile(filepath.Join(dist, p.archiveName(s.version)), buf.Bytes(), 0o644)
}

// npm writes the npm packages' folders and packs each into dist.
func (s source) npm(ctx context.Context, dist, work, license string, bins map[platform]string) error {
	folders, err := npmPackages(filepath.Join(work, "npm"), s.version, license, bins, s.time)
	if err != nil {
		return err
	}
	for _, folder := range folders {
		cmd := exec.CommandContext(ctx, "npm", "pack", "--pack-destination", dist, "--silent", "--ignore-scripts")
		cmd.Dir = folder
		// A user's npm configuration must not change what is packed.
		cmd.Env = append(os.Environ(), "npm_config_userconfig="+filepath.Join(work, "npmrc"), "npm_config_cache="+filepath.Join(work, "npm-cache"))
		cmd.Stdout = nil
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm pack %s: %w", folder, err)
		}
	}
	return nil
}

// vsix packages the VS Code extension once per platform, building it the
// first time only, and gives every entry of each package the commit's
// time.
func (s source) vsix(ctx context.Context, dist string, bins map[platform]string) error {
	for i, p := range platforms {
		out := filepath.Join(dist, "ctxls-"+p.target()+"-"+s.version+".vsix")
		args := []string{"vscode-extension/scripts/package.mjs", "--target", p.target(), "--server", bins[p], "--out", out}
		if i > 0 {
			args = append(args, "--no-build")
		}
		cmd := exec.CommandContext(ctx, "node", args...)
		cmd.Dir = s.root
		cmd.Stdout = os.Stderr
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("packaging the VS Code extension for %s: %w", p.target(), err)
		}
		if err := normalizeZip(out, s.time); err != nil {
			return err
		}
	}
	return os.RemoveAll(filepath.Join(s.root, "vscode-extension", "server"))
}

// plugin writes the Claude Code plugin with the marketplace that lists it,
// as the repository holds them: unpacked, the folder is a marketplace to
// add with /plugin marketplace add.
func (s source) plugin(dist string, license []byte) error {
	var entries []entry
	for _, dir := range []string{".claude-plugin", "claude-plugin"} {
		err := filepath.WalkDir(filepath.Join(s.root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(s.root, path)
			if err != nil {
				return err
			}
			e, err := fileEntry(filepath.ToSlash(rel), path, false)
			if err != nil {
				return err
			}
			entries = append(entries, e)
			return nil
		})
		if err != nil {
			return err
		}
	}
	// The plugin's own LICENSE is in claude-plugin/; the marketplace's
	// folder gets one too.
	entries = append(entries, entry{name: "LICENSE", data: license})
	var buf bytes.Buffer
	if err := writeZip(&buf, "ctxls-claude-plugin-"+s.version, entries, s.time); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dist, "ctxls-claude-plugin-"+s.version+".zip"), buf.Bytes(), 0o644)
}

// writeSums writes SHA256SUMS: a line per file of dist, in name order.
func writeSums(dist string) error {
	entries, err := os.ReadDir(dist)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() || e.Name() == "SHA256SUMS" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dist, e.Name()))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), e.Name())
	}
	return os.WriteFile(filepath.Join(dist, "SHA256SUMS"), []byte(b.String()), 0o644)
}
