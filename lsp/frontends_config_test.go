package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestFrontendsAgreeOnConfig checks that ctxls check, the MCP check tool
// and the editor report the same problems of .ctxls.yaml, at the same
// lines, in the same words: an unknown setting, a bad value and a chain
// that names no command.
func TestFrontendsAgreeOnConfig(t *testing.T) {
	t.Parallel()
	bin := stdioBinaryPath(t) // built before the deadline starts
	ctx := stdioCtx(t)
	tree := frontendsTree()
	tree[".ctxls.yaml"] = "# chains and more\nbogus: 1\nchains:\n  release: [ship, nosuch]\nmaxFileSize: lots\n"
	dir := libtest.WriteTree(t, tree)
	want := []string{
		`2 warning unknown setting "bogus" is ignored`,
		`4 error chain "release" names "nosuch", which is no command of the workspace`,
		`5 error maxFileSize: "lots" is not a size (write 16MB, 512KiB or a number of bytes); using the default`,
	}

	// The CLI: one JSON record a line; exit 1, for the errors.
	cmd := exec.CommandContext(ctx, bin, "check", "--no-cache", "--format", "json", dir)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("ctxls check: %v", err)
	}
	var cli []string
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		var r configRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			cli = append(cli, r.String())
		}
	}

	mcp := mcpConfigProblems(ctx, t, bin, dir)

	c := StartClient(t, dir, bin, "serve", "--stdio")
	if _, err := c.Initialize(ctx, dir, nil, nil); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stdioTail(c.Stderr(), 2000))
	}
	ds, err := c.WaitDiagnostics(ctx, stdioFileURI(filepath.Join(dir, ".ctxls.yaml")), func(ds []ClientDiagnostic) bool { return len(ds) >= len(want) })
	if err != nil {
		t.Fatal(err)
	}
	var lsp []string
	for _, d := range ds {
		sev := map[int]string{1: "error", 2: "warning", 3: "info", 4: "hint"}[d.Severity]
		lsp = append(lsp, fmt.Sprintf("%d %s %s", d.Range.Start.Line+1, sev, d.Message))
		if d.CodeString() != "config" {
			t.Errorf("the editor's diagnostic of .ctxls.yaml has code %s: %s", d.CodeString(), d.Message)
		}
	}

	for name, got := range map[string][]string{"cli": configOnly(cli), "mcp": configOnly(mcp), "lsp": lsp} {
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s reports the problems of .ctxls.yaml as\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// configRecord is a diagnostic as ctxls check and MCP encode it.
type configRecord struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

func (r configRecord) String() string {
	if r.File != ".ctxls.yaml" || r.Code != "config" {
		return "" // not a problem of the configuration
	}
	return fmt.Sprintf("%d %s %s", r.Line, r.Severity, r.Message)
}

// configOnly returns the problems of the configuration among records.
func configOnly(records []string) []string {
	return slices.DeleteFunc(records, func(s string) bool { return s == "" })
}

// mcpConfigProblems returns what the MCP check tool reports.
func mcpConfigProblems(ctx context.Context, t *testing.T, bin, dir string) []string {
	var page struct {
		Items []configRecord `json:"items"`
	}
	mcpCall(ctx, t, mcpConnect(ctx, t, bin, dir), "check", map[string]any{"path": ".ctxls.yaml"}, &page)
	var out []string
	for _, r := range page.Items {
		out = append(out, r.String())
	}
	return out
}
