package imports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

// FuzzScan checks that any text scans without a panic into imports whose
// spans lie in the text, start at '@' and cover the path as written.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"@a.md", "see @docs/a.md: then", "`@x` @y\n```\n@z\n```", "me@x.com", `@my\ file.md`,
		"---\npaths: [a]\n---\n@a.md", "@\xff\xfe", "(@a.md)", "@~/x @/y @./z @../w", "a `` b\n\n@c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc := document.Parse("/p/CLAUDE.md", []byte(text))
		for _, im := range Scan(doc) {
			if im.Span.Start < 0 || im.Span.End > len(doc.Text) || im.Span.Start >= im.Span.End {
				t.Fatalf("span %v out of a %d-byte text", im.Span, len(doc.Text))
			}
			if doc.Text[im.Span.Start] != '@' {
				t.Fatalf("span %v does not start at '@'", im.Span)
			}
			written := string(doc.Text[im.Span.Start+1 : im.Span.End])
			if strings.ReplaceAll(written, `\ `, " ") != im.Path {
				t.Fatalf("span covers %q, path is %q", written, im.Path)
			}
			if ps := im.PathSpan(); ps.Start > ps.End {
				t.Fatalf("path span %v", ps)
			}
		}
	})
}

// FuzzBuild checks that a memory file of any content, importing files of
// any content, builds a tree without a panic.
func FuzzBuild(f *testing.F) {
	f.Add("@a.md @b.md", "@b.md @a.md: x")
	f.Add("@a.md", "@../../etc/passwd @a.md")
	f.Fuzz(func(t *testing.T, root, other string) {
		dir := t.TempDir()
		for name, text := range map[string]string{"CLAUDE.md": root, "a.md": other, "b.md": root + other} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tree := mustBuild(t, filepath.Join(dir, "CLAUDE.md"), Options{Root: dir})
		if len(tree.Files) == 0 || len(tree.Files) > 3 {
			t.Fatalf("%d files loaded of 3", len(tree.Files))
		}
		tree.Problems(dir)
	})
}
