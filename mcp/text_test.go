package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/ops"
)

func TestCatalogTextSumsLargeCatalogsUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		topics, skills int
		lines          int // of the text, the count line included
		has            []string
	}{
		{topics: 3, skills: 1, lines: 5, has: []string{"d0:t0\ttopic\t10 tokens\tT0", "sk\tskill"}},
		{topics: maxCatalogLines + 100, skills: 1, lines: 1 + 1 + 1 + 4, has: []string{"d0\t100 topics\t1000 tokens", "d3\t100 topics", "sk\tskill", "call catalog with a domain"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.topics), func(t *testing.T) {
			var out CatalogOutput
			for i := range tt.topics {
				out.Entries = append(out.Entries, CatalogEntry{Reference: fmt.Sprintf("d%d:t%d", i*4/tt.topics, i), Title: fmt.Sprintf("T%d", i), Kind: ops.KindTopic, Tokens: 10})
			}
			for range tt.skills {
				out.Entries = append(out.Entries, CatalogEntry{Reference: "sk", Title: "a skill", Kind: ops.KindSkill, Tokens: 5})
			}
			text := catalogText(out)
			if n := strings.Count(text, "\n"); n != tt.lines {
				t.Errorf("%d lines, want %d:\n%s", n, tt.lines, text)
			}
			for _, h := range tt.has {
				if !strings.Contains(text, h) {
					t.Errorf("text lacks %q:\n%s", h, text)
				}
			}
		})
	}
}

func TestCheckTextListsErrorsFirstAndBounded(t *testing.T) {
	t.Parallel()
	var res ops.CheckResponse
	for i := range maxCheckLines + 50 {
		res.Items = append(res.Items, ops.Diagnostic{File: fmt.Sprintf("f%03d.md", i), Line: 1, Column: 1, Severity: "warning", Code: "token-drift", Message: "drift"})
	}
	res.Items = append(res.Items, ops.Diagnostic{File: "z.md", Line: 2, Column: 3, Severity: "error", Code: "unresolved-reference", Message: "no such topic"})
	res.Errors = 1
	text := checkText(res)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if want := fmt.Sprintf("%d problems, 1 error; token-drift %d, unresolved-reference 1", maxCheckLines+51, maxCheckLines+50); lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "z.md:2:3\terror\tunresolved-reference") {
		t.Errorf("the error is not listed first: %q", lines[1])
	}
	if len(lines) != maxCheckLines+2 || !strings.Contains(lines[len(lines)-1], "and 51 more") {
		t.Errorf("%d lines, last %q; want %d and the count of the rest", len(lines), lines[len(lines)-1], maxCheckLines+2)
	}
}
