package memory

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/document"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rel  string
		want Kind
	}{
		{"CLAUDE.md", Project},
		{".claude/CLAUDE.md", Project},
		{"CLAUDE.local.md", Local},
		{"pkg/CLAUDE.md", Nested},
		{"pkg/.claude/CLAUDE.md", Nested},
		{"pkg/CLAUDE.local.md", Nested},
		{".claude/rules/style.md", Rule},
		{".claude/rules/api/go.md", Rule},
		{"pkg/.claude/rules/x.md", Rule},
		{".claude/rules/notes.txt", NotMemory},
		{".claude/CLAUDE.local.md", NotMemory},
		{"README.md", NotMemory},
		{"claude.md", NotMemory},
		{".claude/commands/x.md", NotMemory},
	}
	for _, tt := range tests {
		if got := Classify(tt.rel); got != tt.want {
			t.Errorf("Classify(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestPathPrefixAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string // | marks the cursor
		want string // the path typed so far, or "-" for none
	}{
		{"@docs/gu|", "docs/gu"},
		{"see @|", ""},
		{"see [x](docs/|", "docs/"},
		{"me@exa|", "-"},
		{"`@docs|`", "-"},
		{"```\n@docs|\n```", "-"},
		{"(docs|", "-"},
		{"plain|", "-"},
	}
	for _, tt := range tests {
		off := strings.IndexByte(tt.text, '|')
		text := tt.text[:off] + tt.text[off+1:]
		doc := document.Parse("/p/CLAUDE.md", []byte(text))
		start, ok := PathPrefixAt(doc, off)
		got := "-"
		if ok {
			got = text[start:off]
		}
		if got != tt.want {
			t.Errorf("PathPrefixAt(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
