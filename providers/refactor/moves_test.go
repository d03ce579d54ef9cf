package refactor

import (
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// applyTo applies sorted, apart edits to text.
func applyTo(text string, es []diag.Edit) string {
	for i := len(es) - 1; i >= 0; i-- {
		text = text[:es[i].Span.Start] + es[i].NewText + text[es[i].Span.End:]
	}
	return text
}

// abs makes a slash path below a workspace absolute.
func abs(rel string) string {
	return filepath.Join(string(filepath.Separator)+"w", filepath.FromSlash(rel))
}

func TestLinkEdits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		file       string // the linking file
		text, want string
		from, to   string // the move
	}{
		{"anchor and style kept", "docs/guide.md",
			"[a](../context/py/target.md#part) [b](./x/../../context/py/target.md?q=1)\n\n[c]: ../context/py/target.md \"T\"\n",
			"[a](../context/py/goal.md#part) [b](../context/py/goal.md?q=1)\n\n[c]: ../context/py/goal.md \"T\"\n",
			"context/py/target.md", "context/py/goal.md"},
		{"./ kept while it does not climb", "context/py/other.md",
			"[a](./target.md) [b](target.md#part) [c](#local)\n",
			"[a](./goal.md) [b](goal.md#part) [c](#local)\n",
			"context/py/target.md", "context/py/goal.md"},
		{"./ dropped where it would climb", "context/py/other.md",
			"[a](./target.md)\n",
			"[a](../lang/target.md)\n",
			"context/py/target.md", "context/lang/target.md"},
		{"a page without its extension", "README.md",
			"[p](docs/guide) [q](docs/guide.md)\n",
			"[p](notes/guide) [q](notes/guide.md)\n",
			"docs/guide.md", "notes/guide.md"},
		{"a folder, its final slash kept", "README.md",
			"[d](docs/) [f](docs/a/b.md#x)\n",
			"[d](manual/) [f](manual/a/b.md#x)\n",
			"docs", "manual"},
		{"escaping kept", "README.md",
			"[s](my%20notes/a.md) [t](<my notes/a.md>) [u](plain.md)\n",
			"[s](our%20notes/a.md) [t](<our notes/a.md>) [u](plain.md)\n",
			"my notes", "our notes"},
		{"a name that needs escaping", "README.md",
			"[u](plain.md)\n",
			"[u](plain%20text.md)\n",
			"plain.md", "plain text.md"},
		{"the linking file moves", "docs/guide.md",
			"[a](../README.md) [b](img/x.png) [c](https://example.com/a.md) [d](/abs.md)\n",
			"[a](../../README.md) [b](../../docs/img/x.png) [c](https://example.com/a.md) [d](/abs.md)\n",
			"docs/guide.md", "notes/deep/guide.md"},
		{"the linking file moves with its neighbours", "docs/guide.md",
			"[a](other.md) [b](../README.md)\n",
			"[a](other.md) [b](../../README.md)\n",
			"docs", "notes/docs"},
		{"code is no link", "README.md",
			"`[a](docs/guide.md)`\n\n```\n[b](docs/guide.md)\n```\n",
			"`[a](docs/guide.md)`\n\n```\n[b](docs/guide.md)\n```\n",
			"docs/guide.md", "notes/guide.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := abs(tc.file)
			doc := document.Parse(p, []byte(tc.text))
			got := applyTo(tc.text, LinkEdits(doc, p, []FileMove{{From: abs(tc.from), To: abs(tc.to)}}))
			if got != tc.want {
				t.Errorf("moving %s to %s, %s becomes\n%q\nwant\n%q", tc.from, tc.to, tc.file, got, tc.want)
			}
		})
	}
}

func TestImportEdits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		file       string
		text, want string
		from, to   string
	}{
		{"imports of the file", "CLAUDE.md",
			"@context/py/target.md\nSee @./context/py/target.md: and `@context/py/target.md`\n@~/x.md @/abs/context/py/target.md\n",
			"@context/py/goal.md\nSee @./context/py/goal.md: and `@context/py/target.md`\n@~/x.md @/abs/context/py/target.md\n",
			"context/py/target.md", "context/py/goal.md"},
		{"from a rule", ".claude/rules/py.md",
			"@../../context/py/target.md\n",
			"@../../context/lang/target.md\n",
			"context/py", "context/lang"},
		{"a new name with a space", "CLAUDE.md",
			"@docs/a.md\n",
			"@docs/a\\ b.md\n",
			"docs/a.md", "docs/a b.md"},
		{"the importing file moves", "sub/x.md",
			"@../docs/a.md and @near.md\n",
			"@../../docs/a.md and @../near.md\n",
			"sub/x.md", "sub/deeper/x.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := abs(tc.file)
			doc := document.Parse(p, []byte(tc.text))
			got := applyTo(tc.text, ImportEdits(doc, p, []FileMove{{From: abs(tc.from), To: abs(tc.to)}}))
			if got != tc.want {
				t.Errorf("moving %s to %s, %s becomes\n%q\nwant\n%q", tc.from, tc.to, tc.file, got, tc.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	sp := func(a, b int) document.Span { return document.Span{Start: a, End: b} }
	got := Merge(
		map[string][]diag.Edit{"f": {{Span: sp(10, 20), NewText: "link"}, {Span: sp(0, 5), NewText: "first"}}},
		map[string][]diag.Edit{"f": {{Span: sp(10, 20), NewText: "ref"}, {Span: sp(15, 25), NewText: "overlap"}, {Span: sp(30, 30), NewText: "insert"}, {Span: sp(20, 22), NewText: "after"}}, "g": {}},
		map[string][]diag.Edit{"f": {{Span: sp(30, 30), NewText: "again"}}},
	)
	want := []diag.Edit{{Span: sp(0, 5), NewText: "first"}, {Span: sp(10, 20), NewText: "link"}, {Span: sp(20, 22), NewText: "after"}, {Span: sp(30, 30), NewText: "insert"}}
	if len(got) != 1 || len(got["f"]) != len(want) {
		t.Fatalf("Merge = %v, want f: %v", got, want)
	}
	for i, e := range want {
		if got["f"][i] != e {
			t.Errorf("edit %d = %v, want %v", i, got["f"][i], e)
		}
	}
}

func TestCodePathEdits(t *testing.T) {
	t.Parallel()
	there := map[string]bool{}
	for _, rel := range []string{"docs/guide.md", "docs", ".claude/skills/s/references/a.md", ".claude/skills/s/references", "src/x.go"} {
		there[abs(rel)] = true
	}
	exists := func(p string) bool { return there[p] }
	tests := []struct {
		name       string
		file       string
		text, want string
		from, to   string
	}{
		{"from the root; one segment is no path", "CLAUDE.md",
			"Read `docs/guide.md`, `./docs/guide.md`, `docs/` and `docs/none.md`; `docs/guide.md is` no path.\n\n```\ndocs/guide.md\n```\n",
			"Read `notes/guide.md`, `./notes/guide.md`, `docs/` and `docs/none.md`; `docs/guide.md is` no path.\n\n```\ndocs/guide.md\n```\n",
			"docs", "notes"},
		{"from a skill's folder", ".claude/skills/s/SKILL.md",
			"---\nname: s\n---\nRead `references/a.md` first.\n",
			"---\nname: s\n---\nRead `guides/a.md` first.\n",
			".claude/skills/s/references", ".claude/skills/s/guides"},
		{"the file moves", ".claude/skills/s/SKILL.md",
			"Read `references/a.md`, and `src/x.go` of the project.\n",
			"Read `../s/references/a.md`, and `src/x.go` of the project.\n",
			".claude/skills/s/SKILL.md", ".claude/skills/t/SKILL.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := abs(tc.file)
			doc := document.Parse(p, []byte(tc.text))
			got := applyTo(tc.text, CodePathEdits(doc, p, abs("."), []FileMove{{From: abs(tc.from), To: abs(tc.to)}}, exists))
			if got != tc.want {
				t.Errorf("moving %s to %s, %s becomes\n%q\nwant\n%q", tc.from, tc.to, tc.file, got, tc.want)
			}
		})
	}
}
