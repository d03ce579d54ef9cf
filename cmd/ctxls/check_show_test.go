package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// showTree holds a skill with a field Claude Code does not document (a
// hint) and a README linking a file that is not there (a warning).
var showTree = map[string]string{
	".claude/skills/s/SKILL.md": "---\nname: s\ndescription: Does s.\nflavour: mild\n---\n\n# S\n\nDo s.\n",
	"README.md":                 "# R\n\nSee [x](missing.md).\n",
}

func TestCheckShow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		code    int
		printed []string // codes printed as records
		hidden  []string
		summary string // part of the summary line, "" for none
	}{
		{"hints hidden by default", nil, 0, []string{"markdown-link-broken"}, []string{"agent-unknown-field"}, "1 hint not shown (--show hint lists them)"},
		{"--show hint prints them", []string{"--show", "hint"}, 0, []string{"markdown-link-broken", "agent-unknown-field"}, nil, "(0 errors, 1 warning, 1 hint)"},
		{"--show error hides the warning", []string{"--show", "error"}, 0, nil, []string{"markdown-link-broken", "agent-unknown-field"}, "1 warning and 1 hint not shown (--show hint lists them)"},
		{"--fail-on hint prints what fails", []string{"--fail-on", "hint"}, 1, []string{"markdown-link-broken", "agent-unknown-field"}, nil, "(0 errors, 1 warning, 1 hint)"},
		{"json hides hints too", []string{"--format", "json"}, 0, []string{"markdown-link-broken"}, []string{"agent-unknown-field"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := libtest.WriteTree(t, showTree)
			out, _, err := runCLI(t, append([]string{"check", "--no-cache", dir}, c.args...)...)
			if got := exitCode(err); got != c.code {
				t.Fatalf("exit %d, want %d:\n%s", got, c.code, out)
			}
			for _, code := range c.printed {
				if !strings.Contains(out, code) {
					t.Errorf("%s not printed:\n%s", code, out)
				}
			}
			for _, code := range c.hidden {
				if strings.Contains(out, code) {
					t.Errorf("%s printed:\n%s", code, out)
				}
			}
			if c.summary != "" && !strings.Contains(out, c.summary) {
				t.Errorf("summary lacks %q:\n%s", c.summary, out)
			}
		})
	}
	var ue usageError
	if _, _, err := runCLI(t, "check", "--show", "never", t.TempDir()); !errors.As(err, &ue) {
		t.Errorf("--show never: %v, want a usage error", err)
	}
}
