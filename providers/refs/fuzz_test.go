package refs

import (
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

func FuzzScan(f *testing.F) {
	seeds := []string{
		"---\ncontext: [python, security/x]\ncrossDomainTriggers:\n  - python/a\nindexedFiles:\n  - id: python/b\n    path: b.md\n---\n# T\n",
		"python:fastapi_patterns#Security Issues for you. `python:x#A b` [python:y](../a/b.md#f) <c/d.md>\n",
		"```js\ngetReference(\n 'python',\n `x`\n)\n```\n<!-- python:z\n",
		"\xEF\xBB\xBF😀 中文python:x\r\n| a | b |\r\n|---|---|\r\n| python:y | ../p/q.md |\r\n",
		"[id]: <a b.md>\ngetCachedContext(state, \"commands\", \"x\", y) https://x/python:y 10:30 ",
		"getReference(\"python\", `${a}`) detectProjectType('python', {a: [1, (2)], b: \"c\"})",
		"python:",
		"python:x#",
		"`",
	}
	for _, s := range seeds {
		f.Add([]byte(s), 7)
	}
	opts := testOpts()
	opts.Sections = func(domain, topic string) []string { return []string{"Security Issues", "A", ""} }
	f.Fuzz(func(t *testing.T, data []byte, cursor int) {
		d := document.Parse("f.md", data)
		list := ScanList(d, opts)
		refs := list.Slice()
		end := -1
		for _, r := range refs {
			if r.Span.Start < end || r.Span.Start >= r.Span.End || r.Span.End > len(d.Text) {
				t.Fatalf("bad span %+v after %d in %d bytes", r.Span, end, len(d.Text))
			}
			end = r.Span.End
			for _, sp := range []document.Span{r.DomainSpan, r.TopicSpan, r.SectionSpan, r.PathSpan} {
				if sp != (document.Span{}) && (sp.Start < r.Span.Start || sp.End > r.Span.End || sp.Start > sp.End) {
					t.Fatalf("part %+v outside %+v", sp, r.Span)
				}
			}
			for _, off := range []int{r.Span.Start, r.Span.End} {
				for _, enc := range []document.Encoding{document.UTF16, document.UTF8} {
					back, err := d.Lines.Offset(d.Lines.Position(off, enc), enc)
					if err != nil || back != off {
						t.Fatalf("%s offset %d round-trips to %d (%v) for %+v", enc, off, back, err, r)
					}
				}
			}
			if got, ok := list.Find(r.Span.Start); !ok || got.Span != r.Span {
				t.Fatalf("Find(%d) = %+v, %v", r.Span.Start, got.Span, ok)
			}
		}
		if len(d.Text) > 0 {
			off := cursor % (len(d.Text) + 1)
			if off < 0 {
				off = -off
			}
			if c, ok := CompletionAt(d, off, opts); ok {
				if c.Replace.Start > off || c.Replace.End < off || c.Replace.End > len(d.Text) {
					t.Fatalf("completion at %d replaces %+v", off, c.Replace)
				}
			}
		}
	})
}
