package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nvimResult is what testdata/nvim/init.lua writes.
type nvimResult struct {
	Steps          []string `json:"steps"`
	Errors         []string `json:"errors"`
	File           string   `json:"file"`
	Filetype       string   `json:"filetype"`
	OffsetEncoding string   `json:"offset_encoding"`
	Completion     []struct {
		Label  string `json:"label"`
		Detail string `json:"detail"`
	} `json:"completion"`
	Hover       string `json:"hover"`
	Diagnostics []struct {
		Lnum    int    `json:"lnum"`
		Col     int    `json:"col"`
		Message string `json:"message"`
		Code    any    `json:"code"`
	} `json:"diagnostics"`
}

// TestNeovim opens a command file of the example library in headless
// Neovim, whose built-in LSP client starts ctxls, and checks completion,
// hover and diagnostics as Neovim received them.
func TestNeovim(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nvim not found on CI (the CI script installs the neovim package): %v", err)
		}
		t.Skip("nvim not installed (apt-get install neovim)")
	}
	root := stdioWorkspace(t)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "result.json")
	initLua, err := filepath.Abs(filepath.Join("testdata", "nvim", "init.lua"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "commands", "implement.md")

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", initLua, file)
	cmd.Dir = root
	// A private home keeps the user's configuration, plugins and state out.
	cmd.Env = append(os.Environ(),
		"CTXLS_BIN="+stdioBinaryPath(t),
		"CTXLS_ROOT="+root,
		"CTXLS_NVIM_OUT="+out,
		"HOME="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"),
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"),
	)
	cmd.Stdin = nil
	output, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("nvim did not finish: %v\n%s", ctx.Err(), stdioTail(string(output), 3000))
	}
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, stdioTail(string(output), 3000))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim wrote no result: %v\n%s", err, stdioTail(string(output), 3000))
	}
	var res nvimResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("result %s: %v", data, err)
	}
	for _, e := range res.Errors {
		t.Errorf("nvim: %s", e)
	}
	if res.Filetype != "markdown" {
		t.Errorf("filetype = %q, want markdown", res.Filetype)
	}
	if res.OffsetEncoding != "" && res.OffsetEncoding != "utf-16" && res.OffsetEncoding != "utf-8" {
		t.Errorf("offset encoding %q", res.OffsetEncoding)
	}

	var fastapi string
	for _, it := range res.Completion {
		if strings.Contains(it.Label, "fastapi_patterns") {
			fastapi = it.Detail
		}
		if strings.Contains(it.Label, "commit_conventions") {
			t.Errorf("completion after python: offers git's %q", it.Label)
		}
	}
	if fastapi == "" {
		t.Errorf("completion after python: lacks fastapi_patterns (%d items)", len(res.Completion))
	} else if !strings.Contains(fastapi, "FastAPI Patterns") || !stdioTokDetail.MatchString(fastapi) {
		t.Errorf("fastapi_patterns detail = %q, want its title and `· N tok`", fastapi)
	}

	if !strings.Contains(res.Hover, "Common") || !strings.Contains(res.Hover, "tok") {
		t.Errorf("hover on python:common_issues = %q", res.Hover)
	}

	text := stdioRead(t, file)
	wantLine, _, _ := stdioFind(t, text, "python:fastapi`", 0)
	found := false
	for _, d := range res.Diagnostics {
		if d.Lnum == wantLine && strings.Contains(d.Message, "fastapi") {
			found = true
		}
	}
	if !found {
		t.Errorf("diagnostics lack the unresolved python:fastapi on line %d: %+v", wantLine+1, res.Diagnostics)
	}
}

// TestNeovimReadmeSnippet: the Neovim configuration the README gives is
// the one TestNeovim runs (testdata/nvim/ctxls.lua), word for word.
func TestNeovimReadmeSnippet(t *testing.T) {
	t.Parallel()
	readme := stdioRead(t, filepath.Join("..", "README.md"))
	config := stdioRead(t, filepath.Join("testdata", "nvim", "ctxls.lua"))
	_, after, ok := strings.Cut(readme, "**Neovim**")
	if !ok {
		t.Fatal("the README has no Neovim section")
	}
	_, block, ok := strings.Cut(after, "```lua\n")
	if ok {
		block, _, ok = strings.Cut(block, "```\n")
	}
	if !ok {
		t.Fatal("the README's Neovim section has no lua block")
	}
	if block != config {
		t.Errorf("the README's Neovim configuration differs from testdata/nvim/ctxls.lua:\n%s\n--- want ---\n%s", block, config)
	}
}
