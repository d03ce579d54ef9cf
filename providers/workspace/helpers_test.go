package workspace

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

// waitDeadline bounds every wait for something asynchronous.
const waitDeadline = watchertest.Deadline

// restartWatcher writes config to .ctxls.yaml and waits until the
// workspace has replaced its watcher, as it does when the watched set
// changes.
func restartWatcher(t testing.TB, w *Workspace, dir, config string) {
	t.Helper()
	old := w.watcher.Load()
	testtree.WriteAt(t, dir, ".ctxls.yaml", config)
	waitFor(t, "a new watcher", func() bool {
		wt := w.watcher.Load()
		return wt != nil && wt != old
	})
}

// topicText returns a topic file of domain with a title and sections whose
// body refers to refs.
func topicText(domain, name, title string, refs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s/%s\ndomain: %s\ntitle: %s\ntype: reference\nloadingStrategy: onDemand\n---\n\n# %s\n\n", domain, name, domain, title, title)
	b.WriteString("## Overview\n\nSome words about " + title + ".\n\n")
	for _, r := range refs {
		fmt.Fprintf(&b, "See `%s`.\n", r)
	}
	return b.String()
}

// benchFiles returns a library of domains × topics topic files whose
// bodies refer to other topics, plus a command per domain: slash path →
// text.
func benchFiles(domains, topics int, variant string) map[string]string {
	files := map[string]string{".ctxls.yaml": "tokenizer: o200k_base\n"}
	for d := range domains {
		dom := fmt.Sprintf("d%03d", d)
		for i := range topics {
			name := fmt.Sprintf("t%04d", i)
			refs := []string{
				fmt.Sprintf("d%03d:t%04d", (d+1)%domains, i),
				fmt.Sprintf("%s:t%04d", dom, (i+1)%topics),
			}
			txt := topicText(dom, name, "Topic "+name+" "+variant, refs...)
			txt += "\n## Details\n\nThe " + variant + " version of this topic explains how things are done, with some words to count.\n"
			files["context/"+dom+"/"+name+".md"] = txt
		}
		files["commands/"+dom+".md"] = fmt.Sprintf("---\ndescription: %s\ncontext: [%s:t0000]\n---\n\nUse `%s:t0001`.\n", dom, dom, dom)
	}
	return files
}

// benchTree writes benchFiles below dir and returns the paths of the topic
// files, sorted.
func benchTree(tb testing.TB, dir string, domains, topics int, variant string) []string {
	tb.Helper()
	files := benchFiles(domains, topics, variant)
	testtree.WriteFiles(tb, dir, files)
	var paths []string
	for rel := range files {
		if strings.HasPrefix(rel, "context/") {
			paths = append(paths, filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	slices.Sort(paths)
	return paths
}

// baseTree is a small workspace: two domains, a command and a README.
func baseTree() map[string]string {
	return map[string]string{
		".ctxls.yaml":             "tokenizer: o200k_base\n",
		"context/python/index.md": "---\nid: python/index\ndomain: python\ntitle: Python\ntype: index\nloadingStrategy: always\n---\n\n# Python\n",
		"context/python/async.md": topicText("python", "async", "Async", "git:commits"),
		"context/git/commits.md":  topicText("git", "commits", "Commits"),
		"context/git/branches.md": topicText("git", "branches", "Branches", "git:commits"),
		"commands/implement.md":   "---\ndescription: implement\ncontext: [python:async]\n---\n\nImplement it using `git:commits`.\n",
		"README.md":               "# Readme\n\nMentions `python:async`.\n",
	}
}

// recorder collects the updates a workspace publishes.
type recorder struct {
	watchertest.Recorder[Update]
}

// changed returns every path reported changed so far.
func (r *recorder) changed() []string {
	return r.paths(func(u Update) []string { return u.Changed })
}

// affected returns every path reported affected so far.
func (r *recorder) affected() []string {
	return r.paths(func(u Update) []string { return u.Affected })
}

// paths returns the paths of every update that field picks, sorted and
// without repeats.
func (r *recorder) paths(field func(Update) []string) []string {
	var out []string
	for _, u := range r.All() {
		out = append(out, field(u)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// logBuffer is a slog handler target that keeps messages for inspection.
type logBuffer struct {
	watchertest.Recorder[string]
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.Add(string(p))
	return len(p), nil
}

func (l *logBuffer) count(substr string) int {
	n := 0
	for _, m := range l.All() {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}

// open opens a watched workspace on dir with a short debounce, closing it
// when the test ends.
func open(t testing.TB, dir string, rec *recorder, mod func(*Options)) *Workspace {
	t.Helper()
	opts := Options{Watch: true, Debounce: 30 * time.Millisecond, PollInterval: 200 * time.Millisecond}
	if rec != nil {
		opts.OnUpdate = rec.Add
	}
	if mod != nil {
		mod(&opts)
	}
	w, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { w.Close() })
	if opts.Watch {
		waitWatching(t, w)
	}
	return w
}

// openBase writes baseTree in a new directory and opens it as open does,
// with a recorder of its updates.
func openBase(t testing.TB, mod func(*Options)) (string, *recorder, *Workspace) {
	t.Helper()
	dir := libtest.WriteTree(t, baseTree())
	rec := &recorder{}
	return dir, rec, open(t, dir, rec, mod)
}

// waitWatching waits until the workspace's watcher runs.
func waitWatching(t testing.TB, w *Workspace) {
	t.Helper()
	waitFor(t, "the watcher to start", func() bool {
		return w.watcher.Load() != nil
	})
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	watchertest.WaitFor(t, what, cond)
}

// hasTopic reports whether the workspace's library has topic id.
func hasTopic(w *Workspace, id string) bool {
	_, ok := w.Snapshot().Library().Topic(id)
	return ok
}

// textOf returns the library's text of the file at p, or "" when absent.
func textOf(w *Workspace, p string) (string, bool) {
	f, ok := w.Snapshot().Library().File(p)
	if !ok || f.Doc == nil {
		return "", ok
	}
	return string(docText(f.Doc)), true
}

// snapshot renders what a library knows in a comparable form: files with
// their kind, topics with ids, token costs and sections, commands,
// references and diagnostics.
func snapshot(l *library.Snapshot) string {
	var b strings.Builder
	for _, f := range l.Files() {
		fmt.Fprintf(&b, "file %s kind=%s skipped=%q\n", f.Rel, f.Kind, f.Skipped)
		if t := f.Topic; t != nil {
			fmt.Fprintf(&b, "  topic %s tokens=%d title=%q\n", t.ID, t.Tokens, t.Meta.Title)
			for _, s := range t.Sections {
				fmt.Fprintf(&b, "    section %q tokens=%d\n", s.Name, s.Tokens)
			}
		}
		if c := f.Command; c != nil {
			fmt.Fprintf(&b, "  command %s context=%v\n", c.Name, c.Context)
		}
		for _, r := range f.Refs.All() {
			fmt.Fprintf(&b, "  ref %+v\n", r)
		}
		for _, d := range l.Diagnose(f.Path) {
			fmt.Fprintf(&b, "  diag %s %s %v %q\n", d.Code, d.Severity, d.Span, d.Message)
		}
	}
	for _, d := range l.Domains() {
		fmt.Fprintf(&b, "domain %s topics=%d tokens=%d\n", d.Name, len(d.Topics), d.Tokens())
	}
	for _, t := range l.Topics() {
		fmt.Fprintf(&b, "topic %s %s\n", t.ID, t.Path)
	}
	fmt.Fprintf(&b, "roots %v %v\n", l.ContextRoots(), l.CommandRoots())
	return b.String()
}

// fresh loads dir from scratch.
func fresh(t testing.TB, dir string) *library.Snapshot {
	t.Helper()
	l, err := library.Load(context.Background(), dir, nil, library.Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", dir, err)
	}
	return l.Snapshot()
}

// diffLines returns the lines of a and b that the other lacks.
func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for _, l := range al {
		if !slices.Contains(bl, l) {
			fmt.Fprintf(&out, "- %s\n", l)
		}
	}
	for _, l := range bl {
		if !slices.Contains(al, l) {
			fmt.Fprintf(&out, "+ %s\n", l)
		}
	}
	return out.String()
}

// waitInSync waits until the workspace's library equals a fresh load of
// its directory.
func waitInSync(t testing.TB, w *Workspace) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for {
		got, want := snapshot(w.Snapshot().Library()), snapshot(fresh(t, w.Dir()))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workspace differs from a fresh load of the disk (- workspace, + disk):\n%s", diffLines(got, want))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func textLogger(l *logBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// docText returns a document's text, read back when the library released
// it; nil when it cannot be.
func docText(d *document.Doc) []byte {
	text, _ := d.Content(context.Background())
	return text
}
