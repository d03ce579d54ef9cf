//go:build unix

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/fsguard/fsguardtest"
	"github.com/ctxls/ctxls/providers/library/libtest"
)

// TestLiveSyncRootCheck adds, while the workspace runs, the files that are
// not what they seem: a markdown link out of the workspace, a file below a
// link to a directory outside, a named pipe and a link to it. The live
// sync, through the watcher and through the client's notifications, reads
// none of them, as discovery does not; a link inside the workspace is read.
func TestLiveSyncRootCheck(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{true, false} {
		name := "notifications"
		if watch {
			name = "watcher"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := libtest.WriteTree(t, baseTree())
			outside := t.TempDir()
			testtree.WriteAt(t, outside, "host.md", "# Host secret\n\n## Status\n\nfrom outside\n")
			w := openGuarded(t, dir, watch)

			py := filepath.Join(dir, "context/python")
			links := map[string]string{
				"host.md":   filepath.Join(outside, "host.md"),
				"alias.md":  "async.md",
				"outdir":    outside,
				"topipe.md": "pipe.md",
			}
			fsguardtest.Links(t, py, links)
			fsguardtest.Pipe(t, filepath.Join(py, "pipe.md"))
			// The marker comes last: once it is in, so is what came before.
			testtree.WriteAt(t, dir, "context/python/after.md", "# After\n")
			paths := []string{filepath.Join(py, "outdir", "host.md"), filepath.Join(py, "after.md")}
			for name := range links {
				paths = append(paths, filepath.Join(py, name))
			}
			paths = append(paths, filepath.Join(py, "pipe.md"))
			// Aside: with a reader stuck on the pipe, the notification
			// could wait for it; the wait below then fails.
			go w.NotifyWatched(paths)
			waitFor(t, "the marker file", func() bool { return hasTopic(w, "python/after") })
			waitFor(t, "the link inside the workspace", func() bool { return hasTopic(w, "python/alias") })

			for _, id := range []string{"python/host", "python/outdir/host", "python/pipe", "python/topipe"} {
				if hasTopic(w, id) {
					t.Errorf("topic %s indexed", id)
				}
			}
			for _, f := range w.Snapshot().Library().Files() {
				if f.Doc != nil && strings.Contains(string(docText(f.Doc)), "from outside") {
					t.Errorf("%s holds the text of a file outside the workspace", f.Rel)
				}
			}
			if t.Failed() {
				return // a fresh scan might block on the pipe as well
			}
			// What the live sync holds is what a fresh scan finds.
			waitInSync(t, w)
		})
	}
}

// TestLiveSyncLinkRetargeted points a link that was inside the workspace
// out of it: the file it stood for goes away rather than showing the
// outside file's text.
func TestLiveSyncLinkRetargeted(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, baseTree())
	outside := t.TempDir()
	testtree.WriteAt(t, outside, "host.md", "# Host secret\n")
	link := fsguardtest.Link(t, "async.md", filepath.Join(dir, "context/python/alias.md"))
	w := open(t, dir, nil, nil)
	if !hasTopic(w, "python/alias") {
		t.Fatal("the link inside the workspace was not indexed")
	}
	tmp := fsguardtest.Link(t, filepath.Join(outside, "host.md"), link+".tmp")
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	w.NotifyWatched([]string{link})
	waitFor(t, "the retargeted link to go", func() bool { return !hasTopic(w, "python/alias") })
	waitInSync(t, w)
}

// openGuarded opens a workspace on dir like open, but an Open or a Close
// that does not return (a read blocked on a named pipe) fails the test
// instead of hanging it.
func openGuarded(t *testing.T, dir string, watch bool) *Workspace {
	t.Helper()
	opts := Options{Watch: watch, Debounce: 30 * time.Millisecond, PollInterval: 200 * time.Millisecond}
	w := fsguardtest.Call(t, "Open "+dir, func() (*Workspace, error) { return Open(context.Background(), dir, opts) })
	t.Cleanup(func() { fsguardtest.Within(t, "Close", func() { w.Close() }) })
	if watch {
		waitWatching(t, w)
	}
	return w
}
