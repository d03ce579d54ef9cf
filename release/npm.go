package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

//go:embed npm/ctxls.js
var launcher []byte

//go:embed npm/README.md
var npmReadme string

// Repository is where ctxls lives.
const repository = "https://github.com/ctxls/ctxls"

type npmRepository struct {
	Type      string `json:"type"`
	URL       string `json:"url"`
	Directory string `json:"directory,omitempty"`
}

// npmManifest is a package.json, its fields in the order npm writes them.
type npmManifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Keywords             []string          `json:"keywords,omitempty"`
	Homepage             string            `json:"homepage"`
	Bugs                 map[string]string `json:"bugs"`
	License              string            `json:"license"`
	Repository           npmRepository     `json:"repository"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies *orderedDeps      `json:"optionalDependencies,omitempty"`
	PublishConfig        map[string]string `json:"publishConfig"`
}

// orderedDeps is a dependency map written in the order of platforms.
type orderedDeps struct{ names, versions []string }

func (d *orderedDeps) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range d.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		v, _ := json.Marshal(d.versions[i])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func baseManifest(name, version, description string) npmManifest {
	return npmManifest{
		Name:          name,
		Version:       version,
		Description:   description,
		Homepage:      repository + "#readme",
		Bugs:          map[string]string{"url": repository + "/issues"},
		License:       "MIT",
		Repository:    npmRepository{Type: "git", URL: "git+" + repository + ".git"},
		PublishConfig: map[string]string{"access": "public"},
	}
}

// npmPackages writes the folder of each npm package under dir, ready for
// npm pack: ctxls, with the launcher and one optional dependency per
// platform, and @ctxls/<os>-<cpu>, each with its platform's binary from
// bins. Every file gets the time mtime.
func npmPackages(dir, version, license string, bins map[platform]string, mtime time.Time) ([]string, error) {
	var folders []string
	main := baseManifest("ctxls", version,
		"Diagnostics, token costs, a language server and an MCP server for the files that give AI coding agents context: CLAUDE.md, skills, AGENTS.md, Cursor and Copilot rules, context libraries.")
	main.Keywords = []string{"claude", "claude-code", "agents", "skills", "agents-md", "cursor", "copilot", "mcp", "lsp", "language-server", "linter", "markdown", "tokens"}
	main.Bin = map[string]string{"ctxls": "bin/ctxls.js"}
	main.Files = []string{"bin/ctxls.js"}
	main.Engines = map[string]string{"node": ">=18"}
	deps := &orderedDeps{}
	for _, p := range platforms {
		deps.names = append(deps.names, p.npmName())
		deps.versions = append(deps.versions, version)
	}
	main.OptionalDependencies = deps
	readme := strings.ReplaceAll(npmReadme, "{{version}}", version)
	folder := filepath.Join(dir, "ctxls")
	if err := writePackage(folder, main, map[string][]byte{
		"bin/ctxls.js": launcher,
		"README.md":    []byte(readme),
		"LICENSE":      []byte(license),
	}, map[string]bool{"bin/ctxls.js": true}, mtime); err != nil {
		return nil, err
	}
	folders = append(folders, folder)

	for _, p := range platforms {
		bin, ok := bins[p]
		if !ok {
			return nil, fmt.Errorf("no binary for %s", p.target())
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		m := baseManifest(p.npmName(), version,
			fmt.Sprintf("The %s binary of ctxls. Install ctxls, which depends on it, rather than this package.", p.target()))
		m.Files = []string{"bin/" + p.exe()}
		m.OS = []string{p.os}
		m.CPU = []string{p.cpu}
		m.PreferUnplugged = true
		folder := filepath.Join(dir, p.target())
		pkgReadme := fmt.Sprintf("# %s\n\nThe %s binary of [ctxls](%s), version %s. Install `ctxls`, which\nchooses this package on %s and runs its binary:\n\n```sh\nnpm install ctxls\nnpx ctxls check\n```\n", p.npmName(), p.target(), repository, version, p.target())
		if err := writePackage(folder, m, map[string][]byte{
			"bin/" + p.exe(): data,
			"README.md":      []byte(pkgReadme),
			"LICENSE":        []byte(license),
		}, map[string]bool{"bin/" + p.exe(): true}, mtime); err != nil {
			return nil, err
		}
		folders = append(folders, folder)
	}
	return folders, nil
}

// writePackage writes a package's folder afresh: its package.json and
// files, the executable ones with mode 0755.
func writePackage(dir string, m npmManifest, files map[string][]byte, exec map[string]bool, mtime time.Time) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	files["package.json"] = append(manifest, '\n')
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if exec[name] {
			mode = 0o755
		}
		if err := os.WriteFile(path, data, mode); err != nil {
			return err
		}
		if err := os.Chmod(path, mode); err != nil { // past the umask
			return err
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			return err
		}
	}
	return nil
}
