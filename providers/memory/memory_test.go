package memory

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
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
		start, ok := pathPrefixAt(doc, off)
		got := "-"
		if ok {
			got = text[start:off]
		}
		if got != tt.want {
			t.Errorf("pathPrefixAt(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestCompletePath(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"docs/guide.md":   "g",
		"docs/more.md":    "m",
		"docs/.hidden.md": "h",
		"docs/sub/x.md":   "x",
	})
	// A folder outside the workspace, reached by .. or by a link, is not
	// listed: its names are none of the workspace's.
	secret := fsguardtest.Outside(t, "id_rsa", "key")
	fsguardtest.Link(t, filepath.Dir(secret), filepath.Join(dir, "keys"))
	tests := []struct {
		text string // | marks the cursor
		max  int
		want string // the candidates, "-" when off is in no path
	}{
		{"@docs/|", 10, "guide.md more.md sub/"},
		{"@docs/|", 2, "guide.md more.md"},
		{"see [x](docs/m|", 10, "more.md"},
		{"@docs/.|", 10, ".hidden.md"},
		{"@docs/sub/|", 10, "x.md"},
		{"@nowhere/|", 10, ""},
		{"@~/docs/|", 10, ""},
		{"@/docs/|", 10, ""},
		{"@keys/|", 10, ""},
		{"@keys/id|", 10, ""},
		{"@../|", 10, ""},
		{"plain|", 10, "-"},
	}
	for _, tt := range tests {
		off := strings.IndexByte(tt.text, '|')
		text := tt.text[:off] + tt.text[off+1:]
		path := filepath.Join(dir, "CLAUDE.md")
		found, from, ok := CompletePath(t.Context(), document.Parse(path, []byte(text)), path, off, tt.max, fsguard.NewRoot(dir))
		got := "-"
		if ok {
			var names []string
			for _, c := range found {
				names = append(names, c.Text)
			}
			got = strings.Join(names, " ")
			if typed := text[from:off]; !strings.HasSuffix(tt.text[:off], typed) || strings.Contains(typed, "/") {
				t.Errorf("CompletePath(%q) starts the name at %d (%q)", tt.text, from, typed)
			}
		}
		if got != tt.want {
			t.Errorf("CompletePath(%q, max %d) = %q, want %q", tt.text, tt.max, got, tt.want)
		}
	}
}
