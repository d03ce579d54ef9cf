package library

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
)

// merged returns a new map holding a's entries and b's, b winning.
func merged(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// load indexes dir with the default configuration and the estimate
// tokenizer unless cfg is given.
func load(t testing.TB, dir string, cfg *config.Config) *Library {
	t.Helper()
	if cfg == nil {
		cfg = config.Default()
	}
	l, err := Load(context.Background(), dir, cfg, Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	return l
}

// loadTree writes files (relative path → content) under a new temporary
// directory and loads it as load does with the default configuration.
func loadTree(t testing.TB, files map[string]string) *Library {
	t.Helper()
	return load(t, testtree.New(t, files), nil)
}

// candidates returns the replacement texts of d's fixes, in order.
func candidates(d diag.Diagnostic) []string {
	var out []string
	for _, f := range d.Fixes {
		for _, e := range f.Edits {
			out = append(out, e.NewText)
		}
	}
	return out
}

// wantDiag is a diagnostic reduced to what tests compare.
type wantDiag struct {
	Code     string
	Severity diag.Severity
	Text     string // the text the span covers
}

// wantDiags reports whether the diagnostics of the file at rel (relative
// to the library's directory) are want, in order, and fails the test,
// saying what it checked, when they are not.
func wantDiags(t testing.TB, l *Library, rel, what string, want ...wantDiag) bool {
	t.Helper()
	got := diagsOf(t, l, rel)
	if !slices.Equal(got, want) {
		t.Errorf("%s: diagnostics of %s = %v, want %v", what, rel, got, want)
		return false
	}
	return true
}

// diagsOf returns the diagnostics of one file (relative to dir).
func diagsOf(t testing.TB, l *Library, rel string) []wantDiag {
	t.Helper()
	p := filepath.Join(l.Snapshot().Dir(), filepath.FromSlash(rel))
	f, ok := l.Snapshot().File(p)
	if !ok {
		t.Fatalf("no file %s; files: %v", rel, fileNames(l))
	}
	var out []wantDiag
	for _, d := range l.Snapshot().Diagnose(p) {
		text := ""
		if f.Doc != nil && d.Span.End <= len(docText(f.Doc)) && d.Span.Start <= d.Span.End {
			text = string(docText(f.Doc)[d.Span.Start:d.Span.End])
		}
		out = append(out, wantDiag{d.Code, d.Severity, text})
	}
	return out
}

func fileNames(l *Library) []string {
	var out []string
	for _, f := range l.Snapshot().Files() {
		out = append(out, f.Rel)
	}
	return out
}

// codes returns the diagnostic codes of one file, in order.
func codes(ds []wantDiag) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Code
	}
	return out
}

// topicFM renders a complete, valid topic frontmatter block.
func topicFM(id, typ string, tokens int, extra ...string) string {
	domain, _, _ := strings.Cut(id, "/")
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString("id: " + id + "\n")
	b.WriteString("domain: " + domain + "\n")
	b.WriteString("title: Title of " + id + "\n")
	b.WriteString("type: " + typ + "\n")
	b.WriteString("estimatedTokens: " + strconv.Itoa(tokens) + "\n")
	b.WriteString("loadingStrategy: onDemand\n")
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	b.WriteString("---\n")
	return b.String()
}

// checkDiscovered compares what l found in dir (paths relative to dir)
// with what a discovery test expects.
func checkDiscovered(t *testing.T, dir string, l *Library, contextRoots, commandRoots, topics, commands []string) {
	t.Helper()
	if got := rels(dir, l.Snapshot().ContextRoots()); !slices.Equal(got, contextRoots) {
		t.Errorf("context roots = %v, want %v", got, contextRoots)
	}
	if got := rels(dir, l.Snapshot().CommandRoots()); !slices.Equal(got, commandRoots) {
		t.Errorf("command roots = %v, want %v", got, commandRoots)
	}
	var gotTopics []string
	for _, tp := range l.Snapshot().Topics() {
		gotTopics = append(gotTopics, tp.ID)
	}
	if !slices.Equal(gotTopics, topics) {
		t.Errorf("topics = %v, want %v", gotTopics, topics)
	}
	var gotCommands []string
	for _, c := range l.Snapshot().Commands() {
		gotCommands = append(gotCommands, c.Name)
	}
	if !slices.Equal(gotCommands, commands) {
		t.Errorf("commands = %v, want %v", gotCommands, commands)
	}
}

// docText returns a document's text, read back when the library released
// it; nil when it cannot be.
func docText(d *document.Doc) []byte {
	text, _ := d.Content(context.Background())
	return text
}

func rels(dir string, paths []string) []string {
	var out []string
	for _, p := range paths {
		r, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

// loadWithin loads dir as ctxls check does, the library reading the
// workspace's .ctxls.yaml itself, and fails the test when the load blocks
// or fails.
func loadWithin(t *testing.T, dir string) *Library {
	t.Helper()
	return fsguardtest.Call(t, "the load", func() (*Library, error) { return Load(context.Background(), dir, nil, Options{}) })
}

// pythonA is a topic whose frontmatter shows that its folder is a
// context library: a folder's name alone does not.
const pythonA = "---\ndomain: python\n---\n# A\n"
