package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestStateUnchangedByChanges takes the workspace's state before each of
// a series of editor and disk changes and checks at the end that every
// one still holds the library and open documents it held when taken.
func TestStateUnchangedByChanges(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/a.md": "# A\n\npython:b\n",
		"context/python/b.md": "# B\n",
	})
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a, b := filepath.Join(dir, "context/python/a.md"), filepath.Join(dir, "context/python/b.md")
	steps := []func(){
		func() { w.DidOpen(a, "# A\n\npython:b python:a\n", 1) },
		func() { w.DidChange(a, "# A\n\nnothing\n", 2) },
		func() { w.DidOpen(b, "# B\n\n## New\n", 1) },
		func() { w.DidClose(a) },
		func() {
			testtree.WriteFiles(t, dir, map[string]string{"context/go/c.md": "# C\n"})
			w.applyMu.Lock()
			defer w.applyMu.Unlock()
			w.applyPaths(t.Context(), []string{filepath.Join(dir, "context/go/c.md")}, false)
		},
		func() {
			if err := w.SetSettings(t.Context(), json.RawMessage(`{"tokenizer":"estimate"}`)); err != nil {
				t.Fatal(err)
			}
		},
	}
	type taken struct {
		s        *state
		overlays map[string]overlay
	}
	var states []taken
	for _, step := range steps {
		w.applyMu.Lock()
		s := w.cur.Load()
		w.applyMu.Unlock()
		states = append(states, taken{s, maps.Clone(s.snap.overlays)})
		step()
	}
	for i, s := range states {
		if !maps.Equal(s.s.snap.overlays, s.overlays) {
			t.Errorf("the open documents of the state taken before step %d changed: %v, were %v", i, s.s.snap.overlays, s.overlays)
		}
	}
	if got := slices.Sorted(maps.Keys(w.cur.Load().snap.overlays)); !slices.Equal(got, []string{b}) {
		t.Errorf("open documents at the end = %v, want %v", got, []string{b})
	}
	if states[len(states)-1].s.snap.lib == w.Snapshot().Library() {
		t.Error("the configuration change kept the library: the last state shows nothing")
	}
}

// TestReadersDuringRebuild holds a rebuild of the library (the writer)
// where it has indexed the workspace again, and reads the open
// documents and the library meanwhile: the reads return at once, with
// the state from before the rebuild.
func TestReadersDuringRebuild(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"context/python/a.md": "# A\n"})
	var indexes atomic.Int32
	held, release := make(chan struct{}), make(chan struct{})
	var unblock sync.Once
	free := func() { unblock.Do(func() { close(release) }) }
	defer free()
	w, err := Open(t.Context(), dir, Options{AfterIndex: func() {
		if indexes.Add(1) == 2 { // the first is Open's
			close(held)
			<-release
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a := filepath.Join(dir, "context/python/a.md")
	w.DidOpen(a, "# A\n\nedited\n", 3)
	lib := w.Snapshot().Library()

	rebuilt := make(chan error, 1)
	go func() { rebuilt <- w.SetSettings(context.Background(), json.RawMessage(`{"tokenizer":"estimate"}`)) }()
	libtest.Receive(t, held, "the rebuild to index the workspace")
	got := make(chan string, 1)
	go func() {
		s := w.Snapshot()
		text, version, open := s.Overlay(a)
		got <- fmt.Sprintf("%q %d %v %v %v %d", text, version, open, s.OpenPaths(), s.Library() == lib, len(s.Library().Topics()))
	}()
	r := libtest.Receive(t, got, "a reader while a rebuild is in progress")
	if want := fmt.Sprintf("%q 3 true %v true 1", "# A\n\nedited\n", []string{a}); r != want {
		t.Errorf("read during the rebuild: %s, want %s", r, want)
	}
	free()
	if err := libtest.Receive(t, rebuilt, "the rebuild to finish once released"); err != nil {
		t.Fatal(err)
	}
	if w.Snapshot().Library() == lib || w.Snapshot().Library().Counter().Name() != "estimate" {
		t.Errorf("after the rebuild the library is the old one (%v) or counts with %s", w.Snapshot().Library() == lib, w.Snapshot().Library().Counter().Name())
	}
}

// TestReadersDuringEdits reads the workspace from several goroutines while
// the editor opens, changes and closes documents and the disk changes:
// under the race detector, a change to state a reader can reach fails.
func TestReadersDuringEdits(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("context/python/t%d.md", i)] = fmt.Sprintf("# T%d\n\npython:t%d\n", i, (i+1)%10)
	}
	dir := libtest.WriteTree(t, files)
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var reads atomic.Int64
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				s := w.Snapshot()
				for _, p := range s.OpenPaths() {
					s.Overlay(p)
				}
				lib := s.Library()
				for _, tp := range lib.Topics() {
					lib.References(tp.ID)
				}
				reads.Add(1)
			}
		})
	}
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("context/python/t%d.md", i%10))
		switch i % 4 {
		case 0:
			w.DidOpen(p, fmt.Sprintf("# T\n\npython:t%d\n", i%7), int32(i))
		case 1:
			w.DidChange(p, fmt.Sprintf("# T\n\npython:t%d python:t%d\n", i%3, i%5), int32(i))
		case 2:
			testtree.WriteFiles(t, dir, map[string]string{fmt.Sprintf("context/python/n%d.md", i): "# N\n\npython:t1\n"})
			w.applyMu.Lock()
			w.applyPaths(t.Context(), []string{filepath.Join(dir, fmt.Sprintf("context/python/n%d.md", i))}, false)
			w.applyMu.Unlock()
		case 3:
			w.DidClose(filepath.Join(dir, fmt.Sprintf("context/python/t%d.md", (i-3)%10)))
		}
	}
	for deadline := time.Now().Add(waitDeadline); reads.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reader finished a pass within %v", waitDeadline)
		}
	}
	stop()
	wg.Wait()
	if n := len(w.Snapshot().Library().References("python/t1")); n == 0 {
		t.Error("no references to python/t1 after the changes")
	}
}
