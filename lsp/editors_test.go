package lsp

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The editor configurations the README shows are the files under
// editors/, word for word, each in a fenced block of its language.
func TestEditorConfigsInReadme(t *testing.T) {
	t.Parallel()
	readme := stdioRead(t, filepath.Join("..", "README.md"))
	for file, lang := range map[string]string{
		"neovim/ctxls.lua":     "lua",
		"neovim/lsp/ctxls.lua": "lua",
		"helix/languages.toml": "toml",
	} {
		config := stdioRead(t, filepath.Join("..", "editors", filepath.FromSlash(file)))
		if !strings.Contains(readme, "```"+lang+"\n"+config+"```\n") {
			t.Errorf("the README does not show editors/%s as it is, in a ```%s block", file, lang)
		}
	}
}

// Every configuration starts ctxls serve for markdown and JSON, the file
// kinds ctxls serves (.mdc as markdown, or in a language of its own).
func TestEditorConfigsServeEveryKind(t *testing.T) {
	t.Parallel()
	lspConfig := stdioRead(t, filepath.Join("..", "editors", "neovim", "lsp", "ctxls.lua"))
	snippet := stdioRead(t, filepath.Join("..", "editors", "neovim", "ctxls.lua"))
	for name, text := range map[string]string{"neovim/lsp/ctxls.lua": lspConfig, "neovim/ctxls.lua": snippet} {
		for _, want := range []string{"cmd = { 'ctxls', 'serve' }", "'markdown'", "'json'", ".ctxls.yaml"} {
			if !strings.Contains(text, want) {
				t.Errorf("editors/%s lacks %s", name, want)
			}
		}
	}
	if !strings.Contains(snippet, "'*.mdc'") {
		t.Error("editors/neovim/ctxls.lua gives .mdc no filetype")
	}

	helix := readTOML(t, filepath.Join("..", "editors", "helix", "languages.toml"))
	if helix == nil {
		return
	}
	var h struct {
		LanguageServer map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"language-server"`
		Language []struct {
			Name            string   `json:"name"`
			FileTypes       []string `json:"file-types"`
			LanguageServers []string `json:"language-servers"`
		} `json:"language"`
	}
	if err := json.Unmarshal(helix, &h); err != nil {
		t.Fatal(err)
	}
	if s := h.LanguageServer["ctxls"]; s.Command != "ctxls" || !slices.Equal(s.Args, []string{"serve"}) {
		t.Errorf("helix: the ctxls server is %+v", s)
	}
	served := map[string]bool{}
	for _, l := range h.Language {
		if slices.Contains(l.LanguageServers, "ctxls") {
			served[l.Name] = true
		}
		if l.Name == "mdc" && !slices.Equal(l.FileTypes, []string{"mdc"}) {
			t.Errorf("helix: mdc's file-types are %q", l.FileTypes)
		}
	}
	for _, want := range []string{"markdown", "json", "mdc"} {
		if !served[want] {
			t.Errorf("helix: %s does not start ctxls", want)
		}
	}

	zed := readTOML(t, filepath.Join("..", "editors", "zed", "extension.toml"))
	var z struct {
		ID              string `json:"id"`
		LanguageServers map[string]struct {
			Languages []string `json:"languages"`
		} `json:"language_servers"`
	}
	if err := json.Unmarshal(zed, &z); err != nil {
		t.Fatal(err)
	}
	if langs := z.LanguageServers["ctxls"].Languages; !slices.Contains(langs, "Markdown") || !slices.Contains(langs, "JSON") {
		t.Errorf("zed: the ctxls server serves %q", langs)
	}
	if lib := stdioRead(t, filepath.Join("..", "editors", "zed", "src", "lib.rs")); !strings.Contains(lib, `which("ctxls")`) || !strings.Contains(lib, `"serve"`) {
		t.Error("zed: the extension does not start ctxls serve from PATH")
	}
}

// readTOML parses a TOML file with Python's tomllib and returns it as
// JSON; nil when no Python 3.11 or later is at hand (go.mod has no TOML
// parser, and the test is not worth one).
func readTOML(t *testing.T, path string) []byte {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Log("no python3: the TOML files are not parsed")
		return nil
	}
	if exec.Command(python, "-c", "import tomllib").Run() != nil {
		t.Log("python3 has no tomllib (3.11 or later): the TOML files are not parsed")
		return nil
	}
	out, err := exec.Command(python, "-c", "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))", path).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s is not TOML: %v\n%s", path, err, stderr)
	}
	return out
}
