package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every artefact is in the release, and SHA256SUMS names each with its
// hash, as sha256sum -c reads it.
func TestDistHasEveryArtefact(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	want := []string{"ctxls-" + version + ".tgz", "ctxls-claude-plugin-" + version + ".zip"}
	for _, p := range platforms {
		want = append(want, p.archiveName(version), "ctxls-"+p.target()+"-"+version+".tgz", "ctxls-"+p.target()+"-"+version+".vsix")
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for line := range strings.Lines(string(sums)) {
		sum, name, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not HASH  NAME", line)
		}
		listed[name] = sum
	}
	for _, name := range want {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("the release lacks %s", name)
			continue
		}
		sum := sha256.Sum256(data)
		if listed[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("SHA256SUMS gives %s the hash %q, its content has %x", name, listed[name], sum)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("SHA256SUMS lists %s, which the release should not hold", name)
	}
	if out, status := command(t, time.Minute, dir, nil, "sha256sum", "--strict", "-c", "SHA256SUMS"); status != 0 {
		t.Errorf("sha256sum -c SHA256SUMS: exit %d\n%s", status, out)
	}
}

// The archive of this machine's platform, unpacked as a user would, runs:
// it names its release and commit and checks the example library. Every
// archive holds the binary, the README and the licence, with fixed modes
// and times.
func TestArchives(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	host := hostPlatform(t)
	for _, p := range platforms {
		names, modes := archiveEntries(t, filepath.Join(dir, p.archiveName(version)))
		top := p.archiveBase(version) + "/"
		wantNames := []string{top, top + "LICENSE", top + "README.md", top + p.exe()}
		if !slices.Equal(names, wantNames) {
			t.Errorf("%s holds %q, want %q", p.archiveName(version), names, wantNames)
		}
		if modes[top+p.exe()] != 0o755 || modes[top+"LICENSE"] != 0o644 {
			t.Errorf("%s: modes %v", p.archiveName(version), modes)
		}
	}

	unpacked := t.TempDir()
	if out, status := command(t, time.Minute, unpacked, nil, "tar", "-xzf", filepath.Join(dir, host.archiveName(version))); status != 0 {
		t.Fatalf("tar -xzf: %s", out)
	}
	bin := filepath.Join(unpacked, host.archiveBase(version), host.exe())
	out, status := command(t, time.Minute, unpacked, nil, bin, "version")
	if status != 0 || !strings.HasPrefix(out, "ctxls "+version+", commit "+headCommit(t)) {
		t.Errorf("ctxls version: exit %d, %q; want the release %s and commit %s", status, out, version, headCommit(t))
	}
	license, _ := os.ReadFile(filepath.Join(repoRoot, "LICENSE"))
	if got, _ := os.ReadFile(filepath.Join(unpacked, host.archiveBase(version), "LICENSE")); string(got) != string(license) {
		t.Error("the archive's LICENSE is not the repository's")
	}
	lib := copyExample(t)
	out, status = command(t, time.Minute, lib, []string{"CTXLS_CACHE_DIR=" + t.TempDir()}, bin, "check")
	wantExampleReport(t, out, status)
}

// archiveEntries lists a tar.gz or zip: its names in order and their
// permission bits. Every entry must have the same time, owner 0 and no
// owner names.
func archiveEntries(t *testing.T, path string) ([]string, map[string]os.FileMode) {
	t.Helper()
	var names []string
	modes := map[string]os.FileMode{}
	var first time.Time
	sameTime := func(name string, m time.Time) {
		if first.IsZero() {
			first = m
		} else if !m.Equal(first) {
			t.Errorf("%s: %s has the time %v, another entry %v", path, name, m, first)
		}
	}
	if strings.HasSuffix(path, ".zip") {
		r, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for _, f := range r.File {
			names = append(names, f.Name)
			modes[f.Name] = f.Mode().Perm()
			sameTime(f.Name, f.Modified)
		}
		return names, modes
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Errorf("%s: the gzip header names %q at %v", path, gz.Name, gz.ModTime)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		modes[h.Name] = os.FileMode(h.Mode).Perm()
		sameTime(h.Name, h.ModTime)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: %s is owned by %d/%d %q/%q", path, h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
	}
	return names, modes
}

// The npm packages, packed, install into an empty folder with no network
// and no Go, and npx ctxls runs the binary of this platform.
func TestNPMInstallOffline(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	host := hostPlatform(t)
	project := t.TempDir()
	home := t.TempDir()
	// An empty cache, a registry that does not answer and --offline: npm
	// has nothing to fetch from, so what installs came from the tarballs.
	env := []string{
		"HOME=" + home,
		"npm_config_cache=" + filepath.Join(home, "npm-cache"),
		"npm_config_userconfig=" + filepath.Join(home, "npmrc"),
		"npm_config_registry=http://127.0.0.1:9/",
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
		"PATH=" + pathWithout(t, "go"),
	}
	if err := os.WriteFile(filepath.Join(project, "package.json"), []byte(`{"name":"try-ctxls","private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	install := []string{"install", "--offline", "--no-audit", "--no-fund",
		filepath.Join(dir, "ctxls-"+version+".tgz"), filepath.Join(dir, "ctxls-"+host.target()+"-"+version+".tgz")}
	name, args := offline(t, "npm", install...)
	out, status := command(t, 3*time.Minute, project, env, name, args...)
	if status != 0 {
		t.Fatalf("npm %s: exit %d\n%s", strings.Join(install, " "), status, out)
	}
	for _, f := range []string{"node_modules/ctxls/LICENSE", "node_modules/ctxls/bin/ctxls.js", "node_modules/" + host.npmName() + "/LICENSE", "node_modules/" + host.npmName() + "/bin/" + host.exe()} {
		if _, err := os.Stat(filepath.Join(project, f)); err != nil {
			t.Errorf("after npm install: %v", err)
		}
	}
	var manifest struct {
		OptionalDependencies map[string]string `json:"optionalDependencies"`
		Bin                  map[string]string `json:"bin"`
	}
	data, _ := os.ReadFile(filepath.Join(project, "node_modules", "ctxls", "package.json"))
	if err := json.Unmarshal(data, &manifest); err != nil || len(manifest.OptionalDependencies) != len(platforms) || manifest.Bin["ctxls"] == "" {
		t.Errorf("ctxls's package.json: %v %s", err, data)
	}

	name, args = offline(t, "npx", "--offline", "ctxls", "version")
	out, status = command(t, time.Minute, project, env, name, args...)
	if status != 0 || !strings.Contains(out, "ctxls "+version+", commit "+headCommit(t)) {
		t.Errorf("npx ctxls version: exit %d\n%s", status, out)
	}
	lib := copyExample(t)
	name, args = offline(t, "npx", "--offline", "ctxls", "check", lib)
	out, status = command(t, time.Minute, project, append(env, "CTXLS_CACHE_DIR="+t.TempDir()), name, args...)
	wantExampleReport(t, out, status)
	// A usage error reaches the caller with ctxls's own status.
	name, args = offline(t, "npx", "--offline", "ctxls", "chek")
	if out, status = command(t, time.Minute, project, env, name, args...); status != 2 || !strings.Contains(out, `did you mean "check"?`) {
		t.Errorf("npx ctxls chek: exit %d\n%s", status, out)
	}
}

// offline runs name without a network when the machine can make a network
// namespace (unshare -rn, which needs no privilege on most Linux kernels),
// so that a fetch fails rather than goes unnoticed.
func offline(t *testing.T, name string, args ...string) (string, []string) {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Logf("no unshare: %s runs with the network, which an empty cache, --offline and a dead registry keep unused", name)
		return name, args
	}
	if err := exec.Command(unshare, "-rn", "true").Run(); err != nil {
		t.Logf("unshare -rn fails (%v): %s runs with the network, which an empty cache, --offline and a dead registry keep unused", err, name)
		return name, args
	}
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return unshare, append([]string{"-rn", path}, args...)
}

// pathWithout is PATH less every folder that holds the program name, so
// that a test shows it is not needed.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// Each .vsix holds the extension with the binary of its platform, the
// licence, the icon and the marketplace's metadata.
func TestVSIX(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	for _, p := range platforms {
		path := filepath.Join(dir, "ctxls-"+p.target()+"-"+version+".vsix")
		r, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]*zip.File{}
		for _, f := range r.File {
			files[f.Name] = f
		}
		for _, want := range []string{"extension/server/" + p.target() + "/" + p.exe(), "extension/LICENSE.txt", "extension/media/icon.png", "extension/dist/extension.js", "extension.vsixmanifest"} {
			if files[want] == nil {
				t.Errorf("%s lacks %s", filepath.Base(path), want)
			}
		}
		for name := range files {
			if strings.HasPrefix(name, "extension/server/") && !strings.HasPrefix(name, "extension/server/"+p.target()+"/") {
				t.Errorf("%s holds %s, a server of another platform", filepath.Base(path), name)
			}
		}
		manifest := readZipFile(t, files["extension.vsixmanifest"])
		for _, want := range []string{`TargetPlatform="` + p.target() + `"`, `Version="` + version + `"`, `Publisher="ctxls"`, "<License>extension/LICENSE.txt</License>", "media/icon.png", "github.com/ctxls/ctxls"} {
			if !strings.Contains(manifest, want) {
				t.Errorf("%s: the manifest lacks %s:\n%s", filepath.Base(path), want, manifest)
			}
		}
		r.Close()
	}
}

func readZipFile(t *testing.T, f *zip.File) string {
	t.Helper()
	if f == nil {
		return ""
	}
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The Claude Code plugin, unpacked, is a marketplace whose plugin starts
// ctxls from PATH, and ctxls itself finds nothing wrong in it.
func TestClaudePlugin(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	host := hostPlatform(t)
	unpacked := t.TempDir()
	if out, status := command(t, time.Minute, unpacked, nil, "unzip", "-q", filepath.Join(dir, "ctxls-claude-plugin-"+version+".zip")); status != 0 {
		t.Fatalf("unzip: %s", out)
	}
	root := filepath.Join(unpacked, "ctxls-claude-plugin-"+version)
	for _, f := range []string{".claude-plugin/marketplace.json", "claude-plugin/.claude-plugin/plugin.json", "claude-plugin/.mcp.json", "claude-plugin/.lsp.json", "claude-plugin/LICENSE", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("the plugin archive: %v", err)
		}
	}
	var mcp struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(filepath.Join(root, "claude-plugin", ".mcp.json"))
	if err := json.Unmarshal(data, &mcp); err != nil || mcp.MCPServers["ctxls"].Command != "ctxls" {
		t.Errorf(".mcp.json does not start ctxls from PATH: %v %s", err, data)
	}
	archive := t.TempDir()
	if out, status := command(t, time.Minute, archive, nil, "tar", "-xzf", filepath.Join(dir, host.archiveName(version))); status != 0 {
		t.Fatalf("tar: %s", out)
	}
	bin := filepath.Join(archive, host.archiveBase(version), host.exe())
	out, status := command(t, time.Minute, root, []string{"CTXLS_CACHE_DIR=" + t.TempDir()}, bin, "check", "--fail-on", "hint", "--format", "json")
	if status != 0 || strings.Contains(out, `"severity"`) {
		t.Errorf("ctxls check of the plugin: exit %d\n%s", status, out)
	}
}
