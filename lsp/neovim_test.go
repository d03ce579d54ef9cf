package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/diag"
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
		Href    string `json:"href"`
	} `json:"diagnostics"`
	Config string `json:"config"`
	Extra  []struct {
		File     string   `json:"file"`
		Filetype string   `json:"filetype"`
		Attached bool     `json:"attached"`
		Codes    []string `json:"codes"`
	} `json:"extra"`
}

// TestNeovim opens a command file of the example library in headless
// Neovim, whose built-in LSP client starts ctxls, and checks completion,
// hover and diagnostics as Neovim received them; then a Cursor rule and
// an .mcp.json, which ctxls serves too. It runs each configuration the
// README gives: the snippet for Neovim 0.7 and later, and lsp/ctxls.lua,
// nvim-lspconfig's format, which Neovim 0.11 and later enable with
// vim.lsp.enable (older ones start what it says by hand).
func TestNeovim(t *testing.T) {
	t.Parallel()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nvim not found on CI (the CI script installs the neovim package): %v", err)
		}
		t.Skip("nvim not installed (apt-get install neovim)")
	}
	for _, config := range []string{"0.7", "0.11"} {
		t.Run(config, func(t *testing.T) {
			t.Parallel()
			testNeovimConfig(t, nvim, config)
		})
	}
}

func testNeovimConfig(t *testing.T, nvim, config string) {
	root := stdioWorkspace(t)
	// A Cursor rule and an MCP configuration, each with a problem.
	mdc := filepath.Join(root, ".cursor", "rules", "broken.mdc")
	mcpJSON := filepath.Join(root, ".mcp.json")
	testtree.Write(t, mdc, "---\ndescription: Broken\nalwaysApply: maybe\n---\n\n# Broken\n")
	testtree.Write(t, mcpJSON, "{\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"docs-mcp\"},\n    \"docs\": {\"command\": \"other\"}\n  }\n}\n")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "result.json")
	initLua, err := filepath.Abs(filepath.Join("testdata", "nvim", "init.lua"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "commands", "implement.md")

	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", initLua, file)
	cmd.Dir = root
	// A private home keeps the user's configuration, plugins and state out.
	cmd.Env = append(os.Environ(),
		"CTXLS_BIN="+stdioBinaryPath(t),
		"CTXLS_ROOT="+root,
		"CTXLS_NVIM_OUT="+out,
		"CTXLS_NVIM_CONFIG="+config,
		"CTXLS_NVIM_EXTRA="+mdc+"\n"+mcpJSON,
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
	t.Logf("configuration: %s", res.Config)
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
			if want := diag.PageURL("unresolved-reference"); d.Href != want {
				t.Errorf("the diagnostic's code links %q, want %q", d.Href, want)
			}
		}
	}
	if !found {
		t.Errorf("diagnostics lack the unresolved python:fastapi on line %d: %+v", wantLine+1, res.Diagnostics)
	}

	want := map[string]struct{ filetype, code string }{
		mdc:     {"markdown", "cursor-field-invalid"},
		mcpJSON: {"json", "json-duplicate-key"},
	}
	for _, e := range res.Extra {
		w, ok := want[e.File]
		if !ok {
			continue
		}
		delete(want, e.File)
		if e.Filetype != w.filetype || !e.Attached || !slices.Contains(e.Codes, w.code) {
			t.Errorf("%s: filetype %q, ctxls attached %v, codes %q; want %s, attached, %s", filepath.Base(e.File), e.Filetype, e.Attached, e.Codes, w.filetype, w.code)
		}
	}
	for f := range want {
		t.Errorf("nvim reported nothing of %s", f)
	}
}
