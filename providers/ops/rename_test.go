package ops_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
)

// renameTree is a topic named, imported and linked in every way the
// workspace can.
func renameTree(refs, imports int) map[string]string {
	topic := "---\nid: py/target\ndomain: py\ntitle: Target\ntype: reference\nloadingStrategy: onDemand\n---\n\n# Target\n\n## Part\n\nText.\n"
	var other, memory, rule strings.Builder
	other.WriteString("---\nid: py/other\ndomain: py\ntitle: Other\ntype: reference\nloadingStrategy: onDemand\n---\n\n# Other\n\nSee [the target](target.md#part) and [again](./target.md).\n\n")
	for range refs {
		other.WriteString("Load py:target here.\n")
	}
	memory.WriteString("# Memory\n\n")
	rule.WriteString("# Rule\n\n")
	for i := range imports {
		if i%2 == 0 {
			memory.WriteString("@context/py/target.md\n")
		} else {
			rule.WriteString("@../../context/py/target.md\n")
		}
	}
	return map[string]string{
		"context/py/target.md":          topic,
		"context/py/other.md":           other.String(),
		"commands/use.md":               "# Use\n\nLoad py:target#Part; read [it](../context/py/target.md#part) and [the guide](../docs/guide.md).\n",
		"CLAUDE.md":                     memory.String(),
		".claude/rules/py.md":           rule.String(),
		"docs/guide.md":                 "# Guide\n\nRead [the target](../context/py/target.md#part) and [its page](../context/py/target).\n\n[t]: ../context/py/target.md\n",
		"README.md":                     "# Readme\n\nSee [the guide](docs/guide.md#guide) and [the target](context/py/target.md).\n",
		".claude/skills/look/SKILL.md":  "---\nname: look\ndescription: Looks the target up. Use when asked about it.\n---\n\n# Look\n\nRead [it](../../../context/py/target.md).\n",
		"context/python/good.md":        "---\nid: python/good\ndomain: python\ntitle: Good\ntype: reference\nloadingStrategy: onDemand\n---\n\n# Good\n",
		"commands/untouched.md":         "# Untouched\n\nLoad python:good.\n",
		"docs/deep/note.md":             "# Note\n\nBack to [the readme](../../README.md).\n",
		".claude/skills/look/extra.txt": "not markdown\n",
	}
}

// applyWorkspaceEdit writes the edit's texts, then makes its moves and
// those of the editor.
func applyWorkspaceEdit(t *testing.T, edit ops.WorkspaceEdit, editor []ops.FileMove) {
	t.Helper()
	for _, f := range edit.Files {
		text := string(f.Doc.Text)
		for i := len(f.Edits) - 1; i >= 0; i-- {
			e := f.Edits[i]
			if i > 0 && f.Edits[i-1].Span.End > e.Span.Start {
				t.Fatalf("%s: edits overlap: %v", f.Path, f.Edits)
			}
			text = text[:e.Span.Start] + e.NewText + text[e.Span.End:]
		}
		if err := os.WriteFile(f.Path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range append(edit.Moves, editor...) {
		if err := os.MkdirAll(filepath.Dir(m.To), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(m.From, m.To); err != nil {
			t.Fatal(err)
		}
	}
}

// brokenAfter returns the diagnostics of dir that a rename must not
// leave: references, imports and links that name nothing.
func brokenAfter(t *testing.T, dir string) []string {
	t.Helper()
	o, _ := loadDir(t, dir)
	res, err := o.Check(context.Background(), ops.CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range res.Items {
		switch d.Code {
		case "unresolved-reference", "import-missing", "markdown-link-broken", "skill-link-broken", "frontmatter-id-mismatch":
			out = append(out, fmt.Sprintf("%s:%d %s %s", d.File, d.Line, d.Code, d.Message))
		}
	}
	return out
}

func loadDir(t *testing.T, dir string) (*ops.Ops, *library.Snapshot) {
	t.Helper()
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())}), lib.Snapshot()
}

// TestRenamesAreWhole renames and moves topics, folders and linking files,
// applies the edits as an editor does, and checks the workspace: nothing
// that named what moved names nothing now.
func TestRenamesAreWhole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rename   string      // new name of py/target; "" for moves
		moves    [][2]string // relative from, to
		contains [][2]string // file (where it is after), text
		edits    int         // at least
	}{
		{name: "rename", rename: "goal", edits: 20 + 1 + 6 + 9, contains: [][2]string{
			{"CLAUDE.md", "@context/py/goal.md\n"}, {".claude/rules/py.md", "@../../context/py/goal.md\n"},
			{"docs/guide.md", "[its page](../context/py/goal)."}, {"context/py/other.md", "[again](./goal.md)"},
		}},
		{name: "topic to another domain", moves: [][2]string{{"context/py/target.md", "context/lang/goal.md"}}, contains: [][2]string{
			{"context/py/other.md", "Load lang:goal here.\n"}, {"context/py/other.md", "[the target](../lang/goal.md#part)"},
			{"context/lang/goal.md", "id: lang/goal\ndomain: lang\n"}, {"CLAUDE.md", "@context/lang/goal.md\n"},
		}},
		{name: "domain folder and linking folder", moves: [][2]string{{"context/py", "context/lang"}, {"docs", "manual/docs"}}, contains: [][2]string{
			{"context/lang/other.md", "Load lang:target here.\n"}, {"context/lang/other.md", "[again](./target.md)"},
			{"manual/docs/guide.md", "[the target](../../context/lang/target.md#part)"}, {"manual/docs/deep/note.md", "[the readme](../../../README.md)"},
			{"README.md", "[the guide](manual/docs/guide.md#guide)"}, {"commands/use.md", "[the guide](../manual/docs/guide.md)"},
		}},
		{name: "a command moves", moves: [][2]string{{"commands/use.md", "commands/sub/use.md"}}, contains: [][2]string{
			{"commands/sub/use.md", "read [it](../../context/py/target.md#part) and [the guide](../../docs/guide.md)"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := libtest.WriteTree(t, renameTree(20, 6))
			if broken := brokenAfter(t, dir); len(broken) > 0 {
				t.Fatalf("broken before: %v", broken)
			}
			o, _ := loadDir(t, dir)
			ctx := context.Background()
			var edit ops.WorkspaceEdit
			var editor []ops.FileMove
			var err error
			if tc.rename != "" {
				edit, err = o.RenameTopic(ctx, ops.RenameTopicRequest{Topic: "py/target", NewName: tc.rename})
			} else {
				for _, m := range tc.moves {
					editor = append(editor, ops.FileMove{From: filepath.Join(dir, m[0]), To: filepath.Join(dir, m[1])})
				}
				edit, err = o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: editor})
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, f := range edit.Files {
				n += len(f.Edits)
				if f.Path == filepath.Join(dir, "commands/untouched.md") {
					t.Errorf("the edit touches a file that names nothing that moves: %v", f.Edits)
				}
			}
			if n < tc.edits {
				t.Errorf("%d edits, want at least %d", n, tc.edits)
			}
			applyWorkspaceEdit(t, edit, editor)
			for _, c := range tc.contains {
				if data, _ := os.ReadFile(filepath.Join(dir, c[0])); !strings.Contains(string(data), c[1]) {
					t.Errorf("%s lacks %q:\n%s", c[0], c[1], data)
				}
			}
			if broken := brokenAfter(t, dir); len(broken) > 0 {
				t.Errorf("broken after: %v", broken)
			}
		})
	}
}

func TestRenamesRefused(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, renameTree(2, 2))
	outside := t.TempDir()
	o, _ := loadDir(t, dir)
	ctx := context.Background()
	at := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tests := []struct {
		name string
		run  func() (ops.WorkspaceEdit, error)
		kind error
		says string
	}{
		{"a bad name", func() (ops.WorkspaceEdit, error) {
			return o.RenameTopic(ctx, ops.RenameTopicRequest{Topic: "py/target", NewName: "../x"})
		}, ops.ErrInvalid, "not a valid topic name"},
		{"a topic's name", func() (ops.WorkspaceEdit, error) {
			return o.RenameTopic(ctx, ops.RenameTopicRequest{Topic: "py/target", NewName: "other"})
		}, ops.ErrInvalid, "already exists"},
		{"no topic", func() (ops.WorkspaceEdit, error) {
			return o.RenameTopic(ctx, ops.RenameTopicRequest{Topic: "py/none", NewName: "x"})
		}, ops.ErrInvalid, "no topic py/none"},
		{"onto a file", func() (ops.WorkspaceEdit, error) {
			return o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: []ops.FileMove{{From: at("docs/guide.md"), To: at("README.md")}}})
		}, ops.ErrConflict, "README.md exists already"},
		{"out of the workspace", func() (ops.WorkspaceEdit, error) {
			return o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: []ops.FileMove{{From: at("docs"), To: filepath.Join(outside, "docs")}}})
		}, ops.ErrConflict, "docs would leave the workspace, where ctxls follows no reference; files that refer to it: README.md, commands/use.md"},
		{"out of the context roots", func() (ops.WorkspaceEdit, error) {
			return o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: []ops.FileMove{{From: at("context/py/target.md"), To: at("docs/target.md")}}})
		}, ops.ErrConflict, "context/py/target.md would leave the context roots, and it is the topic py:target to"},
		{"into itself", func() (ops.WorkspaceEdit, error) {
			return o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: []ops.FileMove{{From: at("docs"), To: at("docs/inner")}}})
		}, ops.ErrInvalid, "cannot move into itself"},
		{"a relative path", func() (ops.WorkspaceEdit, error) {
			return o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: []ops.FileMove{{From: "docs", To: "notes"}}})
		}, ops.ErrInvalid, "must be absolute"},
	}
	for _, tc := range tests {
		edit, err := tc.run()
		if !errors.Is(err, tc.kind) || !strings.Contains(fmt.Sprint(err), tc.says) || len(edit.Files) > 0 {
			t.Errorf("%s: %v (%d files edited), want %v saying %q", tc.name, err, len(edit.Files), tc.kind, tc.says)
		}
	}
	// An unreferenced file may leave; a move from outside is none of the
	// workspace's business.
	for _, m := range []ops.FileMove{{From: at(".claude/skills/look/extra.txt"), To: filepath.Join(outside, "extra.txt")}, {From: filepath.Join(outside, "a.md"), To: at("a.md")}} {
		if edit, err := o.MoveFiles(ctx, ops.MoveFilesRequest{Moves: []ops.FileMove{m}}); err != nil || len(edit.Files) > 0 {
			t.Errorf("moving %s: %v, %+v; want no edit", m.From, err, edit)
		}
	}
}

// An editor's text of an open document is what the edit edits, with its
// version.
func TestRenameOverlay(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, renameTree(1, 2))
	ws, err := workspace.Open(context.Background(), dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	readme := filepath.Join(dir, "README.md")
	ws.DidOpen(readme, "# Readme\n\nUnsaved: [the target](context/py/target.md#part)\n", 7)
	o := ops.New(ops.Options{Snapshot: func() ops.Snapshot { return ws.Snapshot() }})
	edit, err := o.RenameTopic(context.Background(), ops.RenameTopicRequest{Topic: "py/target", NewName: "goal"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range edit.Files {
		if f.Path != readme {
			continue
		}
		if !f.Open || f.Version != 7 || len(f.Edits) != 1 || !strings.Contains(string(f.Doc.Text), "Unsaved") || f.Edits[0].NewText != "context/py/goal.md" {
			t.Errorf("README.md's edit = %+v, open %v version %d; want one edit of the editor's text, version 7", f.Edits, f.Open, f.Version)
		}
		return
	}
	t.Errorf("no edit of README.md among %d files", len(edit.Files))
}

// BenchmarkRenameTopic renames a topic named 3,001 times (domain:topic),
// imported 201 times by CLAUDE.md and a rule, and linked 8 times: the
// whole edit, from one snapshot, as the server's rename computes it.
func BenchmarkRenameTopic(b *testing.B) {
	dir := testtree.New(b, renameTree(3000, 201))
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		b.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())})
	ctx := context.Background()
	edits := 0
	for b.Loop() {
		edit, err := o.RenameTopic(ctx, ops.RenameTopicRequest{Topic: "py/target", NewName: "goal"})
		if err != nil {
			b.Fatal(err)
		}
		edits = 0
		for _, f := range edit.Files {
			edits += len(f.Edits)
		}
	}
	b.ReportMetric(float64(edits), "edits")
}

// BenchmarkMoveFileInLargeWorkspace moves an image that one README of a
// workspace of 5,000 markdown files links to, as the editor asks before
// any file moves: every markdown file is looked at for the image's name.
func BenchmarkMoveFileInLargeWorkspace(b *testing.B) {
	dir := b.TempDir()
	write := func(rel, text string) { testtree.WriteAt(b, dir, rel, text) }
	for i := range 5000 {
		write(fmt.Sprintf("docs/d%d/page%d.md", i%50, i), fmt.Sprintf("# Page %d\n\nSee [the next](../d%d/page%d.md) and [the readme](../../README.md).\n", i, (i+1)%50, i+1))
	}
	write("README.md", "# Readme\n\n![logo](assets/logo.svg)\n")
	write("assets/logo.svg", "<svg/>\n")
	lib, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		b.Fatal(err)
	}
	o := ops.New(ops.Options{Snapshot: ops.Static(lib.Snapshot())})
	req := ops.MoveFilesRequest{Moves: []ops.FileMove{{From: filepath.Join(dir, "assets", "logo.svg"), To: filepath.Join(dir, "assets", "brand", "logo.svg")}}}
	for b.Loop() {
		edit, err := o.MoveFiles(context.Background(), req)
		if err != nil || len(edit.Files) != 1 {
			b.Fatalf("MoveFiles = %+v, %v; want the README's edit", edit, err)
		}
	}
}
