package present

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

func TestSummary(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 80) // 400 bytes
	tests := []struct {
		name        string
		text        string
		description any
		want        string
	}{
		{"first paragraph", "# Title\n\nFirst line\nsecond line.\n\nNext paragraph.\n", nil, "First line second line."},
		{"frontmatter skipped", "---\ntitle: T\n---\n# T\n\nBody text.\n", nil, "Body text."},
		{"description wins", "# T\n\nBody text.\n", "  Described.  ", "Described."},
		{"blank description ignored", "# T\n\nBody text.\n", "   ", "Body text."},
		{"non-string description ignored", "# T\n\nBody text.\n", 42, "Body text."},
		{"fence before the paragraph skipped", "# T\n\n```go\ncode()\n```\n\nAfter.\n", nil, "After."},
		{"fence ends the paragraph", "# T\n\nBefore\n~~~\ncode\n~~~\n", nil, "Before"},
		{"heading ends the paragraph", "Intro\n## Section\nMore\n", nil, "Intro"},
		{"table ends the paragraph", "Intro\n| a | b |\n", nil, "Intro"},
		{"rule ends the paragraph", "Intro\n---\nMore\n", nil, "Intro"},
		{"only headings and tables", "# T\n\n| a |\n|---|\n## S\n", nil, ""},
		{"empty body", "", nil, ""},
		{"last line without newline", "# T\n\nTail", nil, "Tail"},
		{"clipped at a word", "# T\n\n" + long + "\n", nil, strings.TrimSpace(long[:300]) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tp := &library.Topic{Doc: document.Parse("/x/t.md", []byte(tc.text))}
			if tc.description != nil {
				tp.Meta.Extra = map[string]any{"description": tc.description}
			}
			if got := summary(tp); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
	if got := summary(&library.Topic{}); got != "" {
		t.Errorf("Summary of a topic without a document = %q", got)
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four", 10, "one two…"},
		{"abcdefghij klm", 8, "abcdefgh…"},           // no space in the second half: cut at n
		{"ab ééééééééé", 8, "ab éé…"},                // n falls inside "é": cut at its start
		{"aaaaa bbbbbbbbbbbbbbb", 10, "aaaaa…"},      // a space at n/2 is a word boundary
		{"aaaa bbbbbbbbbbbbbbbb", 10, "aaaa bbbbb…"}, // one before n/2 is too early
	}
	for _, tc := range tests {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
