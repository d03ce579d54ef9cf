package library

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/refs"
)

// Bad input must give a diagnostic or a warning, never a panic or a lost
// library: each case also checks that a good topic beside the bad file is
// still indexed and resolvable.

// goodTopic shows, by its domain, that the folder context is a library.
const goodTopic = "---\ndomain: python\n---\n# Good\n\n## Part\n\nFine.\n"

func TestMalformedYAML(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"bad indentation":   "---\nid: python/x\n  title: X\n type: y\n---\n# X\n",
		"unclosed quote":    "---\nid: \"python/x\ntitle: X\n---\n# X\n",
		"not a mapping":     "---\n- a\n- b\n---\n# X\n",
		"tab indentation":   "---\nid: python/x\nsections:\n\t- name: A\n---\n# X\n",
		"unclosed block":    "---\nid: python/x\ntitle: X\n\n# X\n\nNo closing line.\n",
		"duplicate keys":    "---\nid: python/x\nid: python/y\n---\n# X\n",
		"wrong shapes":      "---\nid: [a, b]\nsections: {name: x}\nindexedFiles: 3\ncrossDomainTriggers: {a: b}\nestimatedTokens: -4\n---\n# X\n",
		"alias bomb":        "---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\n# X\n",
		"null fields":       "---\nid:\ndomain:\ntitle:\ntype:\nestimatedTokens:\nloadingStrategy:\nsections:\ntags:\n---\n# X\n",
		"nested garbage":    "---\nsections:\n  - [1, 2]\n  - name: {x: y}\n    keywords: 4\n---\n# X\n",
		"control character": "---\nid: \"a\x01b\"\n---\n# X\n",
	}
	// Valid but odd: these need not be reported.
	silent := map[string]bool{"only delimiters": true, "delimiter at eof": true}
	cases["only delimiters"] = "---\n---\n# X\n"
	cases["delimiter at eof"] = "---"
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := loadTree(t, map[string]string{
				"context/python/x.md":    src,
				"context/python/good.md": goodTopic,
				"commands/c.md":          "# C\n\nUse python:good#Part and python:x.\n",
			})
			if _, ok := l.Snapshot().Topic("python/x"); !ok {
				t.Fatal("the malformed topic was lost")
			}
			ds := diagsOf(t, l, "context/python/x.md")
			if len(ds) == 0 && !silent[name] {
				t.Error("no diagnostic for malformed frontmatter")
			}
			for _, d := range ds {
				if d.Code == CodeParseError && d.Severity != diag.Error {
					t.Errorf("parse error severity %v", d.Severity)
				}
			}
			wantDiags(t, l, "commands/c.md", "references beside the bad file")
		})
	}
}

func TestRandomBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		data := make([]byte, 1+r.IntN(64<<10))
		for j := range data {
			data[j] = byte(r.UintN(256))
		}
		dir := testtree.New(t, map[string]string{
			"context/python/noise.md": string(data),
			"context/python/good.md":  goodTopic,
		})
		l := load(t, dir, nil)
		f, ok := l.Snapshot().File(filepath.Join(dir, "context/python/noise.md"))
		if !ok {
			t.Fatalf("case %d: the file vanished", i)
		}
		if f.Skipped != "" {
			if got := codes(diagsOf(t, l, "context/python/noise.md")); !slices.Equal(got, []string{codeFileSkipped}) {
				t.Errorf("case %d: skipped file diagnostics = %v", i, got)
			}
		}
		l.Snapshot().DiagnoseAll(t.Context())
		if _, ok := l.Snapshot().Topic("python/good"); !ok {
			t.Fatalf("case %d: good topic lost", i)
		}
	}
}

// TestRandomText feeds random markdown-ish text (no NUL bytes, so it is
// parsed rather than skipped) through every stage.
func TestRandomText(t *testing.T) {
	t.Parallel()
	pieces := []string{"---\n", "# ", "## ", "```", "~~~", "\n", "\r\n", "python:", "good", "#Part", "[x](", ")", "../", ".md",
		"getReference(\"", "\", \"", "\")", "| a | b |\n|---|---|\n", "id: ", "sections:\n  - name: ", "\xff\xfe", "é", "`", "<!--", "-->", ":", "\t"}
	r := rand.New(rand.NewPCG(3, 4))
	// One tree, its two files rewritten for each case: a fresh tree per
	// case would create 1,400 inodes, and each Load reads the disk anew.
	dir := testtree.New(t, map[string]string{"context/python/good.md": goodTopic})
	for i := range 200 {
		var b strings.Builder
		for range r.IntN(200) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		testtree.WriteFiles(t, dir, map[string]string{
			"context/python/x.md": b.String(),
			"commands/c.md":       b.String(),
		})
		l := load(t, dir, nil)
		l.Snapshot().DiagnoseAll(t.Context())
		for _, f := range l.Snapshot().Files() {
			for _, ref := range f.Refs.All() {
				l.Snapshot().Resolve(f, ref)
			}
		}
		if _, ok := l.Snapshot().Topic("python/good"); !ok {
			t.Fatalf("case %d: good topic lost", i)
		}
	}
}

func TestHugeFile(t *testing.T) {
	t.Parallel()
	// A mebibyte over the default limit: skipped by default, parsed once
	// the limit is raised.
	size := config.Default().MaxFileSize + 1<<20
	if testing.Short() {
		t.Skipf("writes a %d MiB file", size>>20)
	}
	line := "Some prose that mentions python:good#Part and a `code span`.\n"
	var b bytes.Buffer
	b.WriteString("# Huge\n\n")
	for int64(b.Len()) < size {
		b.WriteString("## Section\n\n")
		for range 100 {
			b.WriteString(line)
		}
	}
	dir := testtree.New(t, map[string]string{"context/python/good.md": goodTopic})
	huge := testtree.Write(t, filepath.Join(dir, "context/python/huge.md"), b.String())

	t.Run("above the limit is skipped with a warning", func(t *testing.T) {
		t.Parallel()
		l := load(t, dir, nil)
		f, ok := l.Snapshot().File(huge)
		if !ok || f.Skipped == "" || f.Doc != nil {
			t.Fatalf("huge file: ok %v skipped %q", ok, f.Skipped)
		}
		ds := diagsOf(t, l, "context/python/huge.md")
		if len(ds) != 1 || ds[0].Code != codeFileSkipped || ds[0].Severity != diag.Warning {
			t.Errorf("diagnostics = %v", ds)
		}
		if !strings.Contains(l.Snapshot().Diagnose(huge)[0].Message, "maxFileSize") {
			t.Errorf("message does not say how to raise the limit: %s", l.Snapshot().Diagnose(huge)[0].Message)
		}
		if _, ok := l.Snapshot().Topic("python/good"); !ok {
			t.Error("good topic lost")
		}
		// The same limit holds for an editor's unsaved text.
		if _, err := l.Apply(t.Context(), []Change{{Path: filepath.Join(dir, "context/python/good.md"), Content: b.Bytes()}}); err != nil {
			t.Fatal(err)
		}
		if f, _ := l.Snapshot().File(filepath.Join(dir, "context/python/good.md")); f.Skipped == "" {
			t.Error("oversized editor content was indexed")
		}
	})

	t.Run("a raised limit parses it", func(t *testing.T) {
		t.Parallel()
		cfg := config.Default()
		cfg.MaxFileSize = 2 * size
		cfg.Tokenizer = "estimate"
		l := load(t, dir, cfg)
		f, _ := l.Snapshot().File(huge)
		if f.Skipped != "" || f.Topic == nil {
			t.Fatalf("skipped: %q", f.Skipped)
		}
		if len(f.Topic.Sections) < 100 || f.Topic.Tokens < 1_000_000 {
			t.Errorf("sections %d tokens %d", len(f.Topic.Sections), f.Topic.Tokens)
		}
		if n := f.Refs.Len(); n < 100_000 {
			t.Errorf("refs = %d", n)
		}
		if ds := l.Snapshot().Diagnose(huge); len(ds) != 0 {
			t.Errorf("diagnostics = %v", ds[:min(3, len(ds))])
		}
	})
}

func TestEmptyFiles(t *testing.T) {
	t.Parallel()
	l := loadTree(t, map[string]string{
		"context/python/empty.md":   "",
		"context/python/blank.md":   "\n\n   \n",
		"context/python/index.md":   "",
		"commands/empty.md":         "",
		"context/python/good.md":    goodTopic,
		"context/python/only_fm.md": "---\n---\n",
	})
	for _, id := range []string{"python/empty", "python/index", "python/only_fm"} {
		tp, ok := l.Snapshot().Topic(id)
		if !ok {
			t.Errorf("%s not indexed", id)
			continue
		}
		if tp.Tokens != 0 || len(tp.Sections) != 0 {
			t.Errorf("%s: tokens %d sections %d", id, tp.Tokens, len(tp.Sections))
		}
	}
	if tp, _ := l.Snapshot().Topic("python/empty"); tp.Meta.Title != "Empty" || tp.Meta.Type != "reference" {
		t.Errorf("empty topic meta = %+v", tp.Meta)
	}
	if _, ok := l.Snapshot().Command("empty"); !ok {
		t.Error("empty command not indexed")
	}
	for _, rel := range []string{"context/python/empty.md", "context/python/blank.md", "commands/empty.md"} {
		wantDiags(t, l, rel, "no diagnostics")
	}
}

func TestCRLF(t *testing.T) {
	t.Parallel()
	src := topicFM("python/x", "reference", 20, "sections:\n  - name: Security Issues\n    estimatedTokens: 12") +
		"\n# X Title\n\n## Security Issues\n\nSee python:good#Part and [g](good.md).\n\n```js\ngetReference(\"python\", \"nope\")\n```\n\n**Version**: 1.2.3\n**Last Updated**: 2026-01-02\n"
	crlf := strings.ReplaceAll(src, "\n", "\r\n")
	dir := testtree.New(t, map[string]string{
		"context/python/x.md":    crlf,
		"context/python/good.md": strings.ReplaceAll(goodTopic, "\n", "\r\n"),
	})
	l := load(t, dir, nil)
	tp, _ := l.Snapshot().Topic("python/x")
	if tp.Meta.ID != "python/x" || tp.Meta.Title != "Title of python/x" || tp.Meta.EstimatedTokens != 20 {
		t.Errorf("frontmatter under CRLF: %+v", tp.Meta)
	}
	if tp.Meta.Version != "1.2.3" || tp.Meta.LastUpdated != "2026-01-02" {
		t.Errorf("footer under CRLF: %q %q", tp.Meta.Version, tp.Meta.LastUpdated)
	}
	if s, ok := tp.Section("Security Issues"); !ok || strings.Contains(s.Name, "\r") {
		t.Errorf("section name under CRLF: %+v", tp.Sections)
	}
	good, _ := l.Snapshot().Topic("python/good")
	if _, ok := good.Section("Part"); !ok {
		t.Errorf("good sections: %+v", good.Sections)
	}
	got := slices.DeleteFunc(diagsOf(t, l, "context/python/x.md"), func(d wantDiag) bool { return d.Code == CodeTokenDrift })
	want := []wantDiag{{CodeUnresolved, diag.Error, "nope"}}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics = %v, want %v", got, want)
	}
	f, _ := l.Snapshot().File(tp.Path)
	var forms []refs.Form
	for _, r := range f.Refs.All() {
		forms = append(forms, r.Form)
		if strings.ContainsAny(string(docText(f.Doc)[r.Span.Start:r.Span.End]), "\r\n") {
			t.Errorf("reference span crosses a line end: %q", docText(f.Doc)[r.Span.Start:r.Span.End])
		}
	}
	if !slices.Equal(forms, []refs.Form{refs.KeyForm, refs.PathForm, refs.CallForm}) {
		t.Errorf("forms = %v", forms)
	}
	fb := testtree.Write(t, filepath.Join(dir, "context/python/fb.md"), "# FB\r\n\r\n*Last Updated: 2026-02-10*\r\n**Maintained For**: x skill\r\n")
	if _, err := l.Apply(t.Context(), []Change{{Path: fb}}); err != nil {
		t.Fatal(err)
	}
	if tp, _ := l.Snapshot().Topic("python/fb"); tp.Meta.LastUpdated != "2026-02-10" || tp.Meta.MaintainedFor != "x skill" {
		t.Errorf("italic footer under CRLF: %q %q", tp.Meta.LastUpdated, tp.Meta.MaintainedFor)
	}
}

func TestBOM(t *testing.T) {
	t.Parallel()
	const bom = "\ufeff"
	l := loadTree(t, map[string]string{
		"context/python/x.md":    bom + topicFM("python/x", "reference", 5) + "# X\n\n## A\n\nSee python:good#Part.\n",
		"context/python/y.md":    bom + "# Y Title\n\nNo frontmatter.\n",
		"context/python/good.md": goodTopic,
	})
	x, _ := l.Snapshot().Topic("python/x")
	if !x.HasFrontmatter || x.Meta.ID != "python/x" || x.Meta.Type != "reference" || !x.Doc.HasBOM {
		t.Errorf("BOM file: frontmatter %v meta %+v bom %v", x.HasFrontmatter, x.Meta, x.Doc.HasBOM)
	}
	y, _ := l.Snapshot().Topic("python/y")
	if y.Meta.Title != "Y Title" {
		t.Errorf("title after BOM = %q", y.Meta.Title)
	}
	wantDiags(t, l, "context/python/x.md", "no diagnostics")
	f, _ := l.Snapshot().File(x.Path)
	if f.Refs.Len() != 1 || string(docText(f.Doc)[f.Refs.At(0).Span.Start:f.Refs.At(0).Span.End]) != "python:good#Part" {
		t.Errorf("refs after BOM = %+v", f.Refs.Slice())
	}
}

func TestSymlinks(t *testing.T) {
	t.Parallel()
	dir := testtree.New(t, map[string]string{
		"context/python/good.md": goodTopic,
		"outside/secret.md":      "# Secret\n",
	})
	links := map[string]string{
		"context/python/loop":      "..",                       // a directory loop
		"context/python/self":      ".",                        // another loop
		"context/python/broken.md": "nowhere.md",               // broken
		"context/python/alias.md":  "good.md",                  // a file inside: indexed
		"context/ring/a":           "../ring",                  // a loop through a new domain
		"context/python/escape.md": "../../../outside/../../x", // leaves the workspace, broken
		"context/python/far.md":    fsguardtest.Outside(t, "far.md", "# Far\n"),
	}
	fsguardtest.Links(t, dir, links)
	l := load(t, dir, nil)
	var ids []string
	for _, tp := range l.Snapshot().Topics() {
		ids = append(ids, tp.ID)
	}
	if want := []string{"python/alias", "python/good"}; !slices.Equal(ids, want) {
		t.Errorf("topics = %v, want %v", ids, want)
	}
	warned := map[string]bool{}
	for _, w := range l.Snapshot().Warnings() {
		r, _ := filepath.Rel(dir, w.Path)
		warned[filepath.ToSlash(r)] = true
	}
	for _, rel := range []string{"context/python/loop", "context/python/self", "context/python/broken.md", "context/ring/a", "context/python/far.md"} {
		if !warned[rel] {
			t.Errorf("no warning for %s; warnings: %v", rel, l.Snapshot().Warnings())
		}
	}
	// A change under the loop must not hang or index through it.
	if _, err := l.Apply(t.Context(), []Change{{Path: filepath.Join(dir, "context/python/loop")}}); err != nil {
		t.Fatal(err)
	}
	if n := len(l.Snapshot().Topics()); n != 2 {
		t.Errorf("after a change on the loop: %d topics", n)
	}
}
