package refactor

import (
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

func TestFixes(t *testing.T) {
	t.Parallel()
	sp := func(s, e int) document.Span { return document.Span{Start: s, End: e} }
	typo := library.Diagnostic{Code: library.CodeUnresolved, Span: sp(10, 20), Message: "typo",
		Fix: &library.Fix{Replace: sp(12, 18), Candidates: []string{"fastapi", "flask"}}}
	drift1 := library.Diagnostic{Code: library.CodeTokenDrift, Span: sp(30, 34), Message: "drift 1",
		Fix: &library.Fix{Replace: sp(30, 34), Declared: 100, Measured: 120}}
	drift2 := library.Diagnostic{Code: library.CodeTokenDrift, Span: sp(50, 53), Message: "drift 2",
		Fix: &library.Fix{Replace: sp(50, 53), Declared: 10, Measured: 7}}
	plain := library.Diagnostic{Code: library.CodeMissingField, Span: sp(0, 40), Message: "no fix"}
	type fix struct {
		title     string
		diag      string // Message of the diagnostic, "" for none
		preferred bool
		edits     []Edit
	}
	tests := []struct {
		name       string
		diags      []library.Diagnostic
		start, end int
		want       []fix
	}{
		{"nothing", nil, 0, 100, nil},
		{"no fix carried", []library.Diagnostic{plain}, 0, 100, nil},
		{"candidates", []library.Diagnostic{typo}, 15, 15, []fix{
			{"Change to 'fastapi'", "typo", true, []Edit{{sp(12, 18), "fastapi"}}},
			{"Change to 'flask'", "typo", false, []Edit{{sp(12, 18), "flask"}}},
		}},
		{"range touching the end", []library.Diagnostic{typo}, 20, 25, []fix{
			{"Change to 'fastapi'", "typo", true, []Edit{{sp(12, 18), "fastapi"}}},
			{"Change to 'flask'", "typo", false, []Edit{{sp(12, 18), "flask"}}},
		}},
		{"range outside", []library.Diagnostic{typo}, 21, 25, nil},
		{"one drift", []library.Diagnostic{drift1}, 31, 31, []fix{
			{"Update declared tokens to 120 (measured)", "drift 1", true, []Edit{{sp(30, 34), "120"}}},
		}},
		{"two drifts, one in range", []library.Diagnostic{plain, drift1, drift2}, 52, 52, []fix{
			{"Update declared tokens to 7 (measured)", "drift 2", true, []Edit{{sp(50, 53), "7"}}},
			{"Update all 2 declared token numbers in this file", "", false, []Edit{{sp(30, 34), "120"}, {sp(50, 53), "7"}}},
		}},
		{"two drifts, none in range", []library.Diagnostic{typo, drift1, drift2}, 11, 11, []fix{
			{"Change to 'fastapi'", "typo", true, []Edit{{sp(12, 18), "fastapi"}}},
			{"Change to 'flask'", "typo", false, []Edit{{sp(12, 18), "flask"}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []fix
			for _, f := range Fixes(tc.diags, tc.start, tc.end) {
				g := fix{title: f.Title, preferred: f.Preferred, edits: f.Edits}
				if f.Diagnostic != nil {
					g.diag = f.Diagnostic.Message
				}
				got = append(got, g)
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
		want := []Edit{{Span: document.Span{}, NewText: frontmatter(tc.topic)}}
		if f.Title != "Add frontmatter with the derived metadata" || f.Diagnostic != nil || f.Preferred || !reflect.DeepEqual(f.Edits, want) {
			t.Errorf("%s: AddFrontmatter = %+v", tc.name, f)
		}
	}
}

// A file has one token-drift diagnostic; its fix updates every drifting
// number of the file.
func TestDriftFixUpdatesEveryNumber(t *testing.T) {
	t.Parallel()
	d := library.Diagnostic{Code: library.CodeTokenDrift, Span: document.Span{Start: 10, End: 14},
		Fix: &library.Fix{Replace: document.Span{Start: 10, End: 14}, Declared: 5000, Measured: 40,
			More: []library.Fix{{Replace: document.Span{Start: 30, End: 32}, Declared: 20, Measured: 300}}}}
	fixes := Fixes([]library.Diagnostic{d}, 10, 10)
	if len(fixes) != 1 || !fixes[0].Preferred || len(fixes[0].Edits) != 2 ||
		fixes[0].Edits[0].NewText != "40" || fixes[0].Edits[1].NewText != "300" || fixes[0].Edits[1].Span.Start != 30 {
		t.Fatalf("fixes = %+v", fixes)
	}
}
