package library_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

func topicIDs(l *library.Library) []string {
	var ids []string
	for _, tp := range l.Snapshot().Topics() {
		ids = append(ids, tp.ID)
	}
	return ids
}

// TestReaderNotBlockedByApply holds an Apply in the middle of its work and
// reads the library meanwhile: the reads return at once, with the model
// from before the change. The Apply is held where it scans again the
// references of a file that changed on disk since it was indexed (a new
// domain makes it rescan every file): reading the file back tells
// Options.Changed, which here waits for the reader.
func TestReaderNotBlockedByApply(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/a.md": "# A\n\nSee python:b.\n",
		"context/python/b.md": "# B\n\n## Usage\n\nBack to python:a.\n",
	})
	held, release := make(chan struct{}), make(chan struct{})
	var once, unblock sync.Once
	free := func() { unblock.Do(func() { close(release) }) }
	defer free() // a test that fails early must not leave Apply held
	cfg := config.Default()
	cfg.Tokenizer = "estimate"
	cfg.ContextRoots = []string{"context"}
	l, err := library.Load(t.Context(), dir, cfg, library.Options{Changed: func(string) {
		once.Do(func() {
			close(held)
			<-release
		})
	}})
	if err != nil {
		t.Fatal(err)
	}
	testtree.WriteFiles(t, dir, map[string]string{"context/python/a.md": "# A\n\nSee python:b, changed behind the index's back.\n"})

	applied := make(chan error, 1)
	go func() {
		_, err := l.Apply(context.Background(), []library.Change{{Path: "context/rust/c.md", Content: []byte("# C\n\npython:a\n")}})
		applied <- err
	}()
	libtest.Receive(t, held, "Apply to rescan the file changed on disk")

	type read struct {
		ids  []string
		refs int
	}
	got := make(chan read, 1)
	go func() {
		got <- read{topicIDs(l), len(l.Snapshot().References("python/b"))}
	}()
	r := libtest.Receive(t, got, "a reader while an Apply is in progress")
	if want := []string{"python/a", "python/b"}; !slices.Equal(r.ids, want) {
		t.Errorf("topics during Apply = %v, want the model before it, %v", r.ids, want)
	}
	if r.refs != 1 {
		t.Errorf("references to python/b during Apply = %d, want 1", r.refs)
	}
	free()
	if err := libtest.Receive(t, applied, "Apply to finish once released"); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Snapshot().Topic("rust/c"); !ok {
		t.Errorf("after Apply, topics = %v, want rust/c among them", topicIDs(l))
	}
}

// TestReadersDuringApplies reads the library from several goroutines
// while edits, new files, removals and a new domain are applied: under
// the race detector, a change that touched what a reader can reach fails
// the test.
func TestReadersDuringApplies(t *testing.T) {
	t.Parallel()
	files := map[string]string{"commands/run.md": "# Run\n\npython:t0 @python\n"}
	for i := range 20 {
		files[fmt.Sprintf("context/python/t%d.md", i)] = fmt.Sprintf("# T%d\n\n## Usage\n\nSee python:t%d#usage and t%d.md.\n", i, (i+1)%20, (i+2)%20)
	}
	dir := libtest.WriteTree(t, files)
	cfg := config.Default()
	cfg.Tokenizer = "estimate"
	cfg.ContextRoots = []string{"context"}
	l, err := library.Load(t.Context(), dir, cfg, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				s := l.Snapshot()
				for _, tp := range s.Topics() {
					_ = s.References(tp.ID)
				}
				for _, f := range s.Files() {
					for _, r := range f.Refs.All() {
						_ = s.Resolve(f, r)
					}
				}
				_ = s.DomainReferences("python")
				_ = s.DiagnoseAll(ctx)
				for _, d := range s.Domains() {
					_ = d.Tokens()
				}
			}
		})
	}
	for i := range 30 {
		rel := fmt.Sprintf("context/python/t%d.md", i%20)
		changes := []library.Change{{Path: rel, Content: fmt.Appendf(nil, "# T\n\n## Usage\n\npython:t%d python:t%d @python\n", i%7, i%11)}}
		switch i % 6 {
		case 2:
			changes = append(changes, library.Change{Path: fmt.Sprintf("context/python/new%d.md", i), Content: []byte("# New\n\nt1.md\n")})
		case 4:
			changes = append(changes, library.Change{Path: fmt.Sprintf("context/go%d/x.md", i), Content: []byte("# X\n\npython:t3\n")})
		case 5:
			changes = append(changes, library.Change{Path: fmt.Sprintf("context/python/new%d.md", i-3), Removed: true})
		}
		if _, err := l.Apply(t.Context(), changes); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	wg.Wait()
	if n := len(l.Snapshot().References("python/t3")); n == 0 {
		t.Error("no references to python/t3 after the changes: the readers read nothing")
	}
}
