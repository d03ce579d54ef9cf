package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	text := b.String()
	at := func(s string) document.Span {
		i := strings.Index(text, s)
		return document.Span{Start: i, End: i + len(s)}
	}
	tests := []struct {
		name  string
		edits []diag.Edit
		want  string
	}{
		{"two hunks far apart", []diag.Edit{{Span: at("line 2\n"), NewText: "two\n"}, {Span: at("line 18"), NewText: "eighteen\nand more"}},
			"--- a/f.md\n+++ b/f.md\n" +
				"@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n" +
				"@@ -15,6 +15,7 @@\n line 15\n line 16\n line 17\n-line 18\n+eighteen\n+and more\n line 19\n line 20\n"},
		{"near edits share a hunk", []diag.Edit{{Span: at("line 5"), NewText: "five"}, {Span: at("line 8\n"), NewText: ""}},
			"--- a/f.md\n+++ b/f.md\n" +
				"@@ -2,10 +2,9 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n-line 8\n line 9\n line 10\n line 11\n"},
	}
	for _, tc := range tests {
		fixed, err := agentfiles.ApplyEdits([]byte(text), tc.edits)
		if err != nil {
			t.Fatal(err)
		}
		if got := fileDiff("f.md", []byte(text), fixed); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

func TestLineDiffKeepsCommonLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, op := range lineDiff([]string{"a\n", "b\n", "c\n"}, []string{"a\n", "B\n", "c\n", "d\n"}) {
		b.WriteByte(op.kind)
		b.WriteString(op.line)
	}
	if got, want := b.String(), " a\n-b\n+B\n c\n+d\n"; got != want {
		t.Errorf("lineDiff = %q, want %q", got, want)
	}
}
