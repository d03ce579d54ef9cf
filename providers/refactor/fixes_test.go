package refactor

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestFixes checks that the fixes of the diagnostics whose span meets
// the range are offered, in order, each with its diagnostic.
func TestFixes(t *testing.T) {
	t.Parallel()
	sp := func(s, e int) document.Span { return document.Span{Start: s, End: e} }
	change := func(s document.Span, text string, preferred bool) diag.Fix {
		return diag.Fix{Title: "Change to '" + text + "'", Preferred: preferred, Edits: []diag.Edit{{Span: s, NewText: text}}}
	}
	typo := diag.Diagnostic{Code: diag.UnresolvedReference, Span: sp(10, 20), Message: "typo",
		Fixes: []diag.Fix{change(sp(12, 18), "fastapi", true), change(sp(12, 18), "flask", false)}}
	drift := diag.Diagnostic{Code: diag.TokenDrift, Span: sp(30, 34), Message: "drift",
		Fixes: []diag.Fix{{Title: "Update all 2 declared token numbers in this file", Preferred: true,
			Edits: []diag.Edit{{Span: sp(30, 34), NewText: "120"}, {Span: sp(50, 53), NewText: "7"}}}}}
	plain := diag.Diagnostic{Code: diag.MissingField, Span: sp(0, 40), Message: "no fix"}
	type fix struct {
		title     string
		diag      string // Message of the diagnostic
		preferred bool
		edits     []diag.Edit
	}
	candidates := []fix{
		{"Change to 'fastapi'", "typo", true, []diag.Edit{{Span: sp(12, 18), NewText: "fastapi"}}},
		{"Change to 'flask'", "typo", false, []diag.Edit{{Span: sp(12, 18), NewText: "flask"}}},
	}
	driftFix := fix{"Update all 2 declared token numbers in this file", "drift", true,
		[]diag.Edit{{Span: sp(30, 34), NewText: "120"}, {Span: sp(50, 53), NewText: "7"}}}
	tests := []struct {
		name       string
		diags      []diag.Diagnostic
		start, end int
		want       []fix
	}{
		{"nothing", nil, 0, 100, nil},
		{"no fix carried", []diag.Diagnostic{plain}, 0, 100, nil},
		{"candidates", []diag.Diagnostic{typo}, 15, 15, candidates},
		{"range touching the end", []diag.Diagnostic{typo}, 20, 25, candidates},
		{"range touching the start", []diag.Diagnostic{typo}, 5, 10, candidates},
		{"range outside", []diag.Diagnostic{typo}, 21, 25, nil},
		{"drift in range", []diag.Diagnostic{plain, drift}, 31, 31, []fix{driftFix}},
		{"two in range, in order", []diag.Diagnostic{typo, plain, drift}, 18, 32, append(slices.Clone(candidates), driftFix)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []fix
			for _, f := range Fixes(tc.diags, tc.start, tc.end) {
				got = append(got, fix{title: f.Title, diag: f.Diagnostic.Message, preferred: f.Preferred, edits: f.Edits})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Fixes(%d, %d) =\n%+v\nwant\n%+v", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

func TestAddFrontmatter(t *testing.T) {
	t.Parallel()
	lib, _ := libtest.Load(t, map[string]string{
		"context/go/bare.md":    "# Bare\n\nText.\n",
		"context/go/dressed.md": "---\ntitle: Dressed\n---\n# Dressed\n",
	})
	bare, _ := lib.Snapshot().Topic("go/bare")
	dressed, _ := lib.Snapshot().Topic("go/dressed")
	if bare == nil || dressed == nil {
		t.Fatal("topics missing")
	}
	edited := document.Parse(bare.Path, []byte("---\nid: go/bare\n---\n# Bare\n"))
	tests := []struct {
		name  string
		topic *library.Topic
		doc   *document.Doc
		want  bool
	}{
		{"no topic", nil, bare.Doc, false},
		{"topic without frontmatter", bare, bare.Doc, true},
		{"frontmatter typed since", bare, edited, false},
		{"topic with frontmatter", dressed, dressed.Doc, false},
	}
	for _, tc := range tests {
		f, ok := AddFrontmatter(tc.topic, tc.doc)
		if ok != tc.want {
			t.Errorf("%s: AddFrontmatter ok = %v, want %v", tc.name, ok, tc.want)
			continue
		}
		if !ok {
			continue
		}
		want := []diag.Edit{{Span: document.Span{}, NewText: frontmatter(tc.topic)}}
		if f.Title != "Add frontmatter with the derived metadata" || f.Diagnostic != nil || f.Preferred || !reflect.DeepEqual(f.Edits, want) {
			t.Errorf("%s: AddFrontmatter = %+v", tc.name, f)
		}
	}
}
