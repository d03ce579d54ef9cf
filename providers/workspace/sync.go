package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/parallel"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/watcher"
)

// mtimeSlack widens the window of files re-checked after the watcher
// starts: file systems with coarse timestamps may date a write slightly
// before the moment it happened.
const mtimeSlack = 2 * time.Second

// NotifyWatched reports paths the client says changed
// (workspace/didChangeWatchedFiles). While the watcher runs they join its
// debounce and are re-stat'ed with its own events, so a change seen both ways
// comes out once; otherwise the workspace re-reads them itself. Either way a
// file whose content equals what the library holds is not applied again.
func (w *Workspace) NotifyWatched(paths []string) {
	clean := make([]string, 0, len(paths))
	for _, p := range paths {
		if filepath.IsAbs(p) {
			clean = append(clean, filepath.Clean(p))
		}
	}
	if len(clean) == 0 || w.closed() {
		return
	}
	if wt := w.watcher.Load(); wt != nil {
		// One source of truth while the watcher runs: applying what the
		// client says directly could race with the watcher, which reports
		// nothing for a file it never knew that is gone again.
		wt.Notify(clean...)
		return
	}
	w.nmu.Lock()
	for _, p := range clean {
		w.notified[p] = true
	}
	w.nmu.Unlock()
	select {
	case w.nwake <- struct{}{}:
	default:
	}
}

type started struct {
	wt  *watcher.Watcher
	err error
}

// sync follows the disk: it starts the watcher, applies its batches and
// the client's notifications, and restarts the watcher when the ignored
// paths change.
func (w *Workspace) sync(loaded time.Time) {
	defer w.wg.Done()
	ctx := w.ctx

	var (
		ready   chan started
		batches <-chan watcher.Batch
		since   = loaded
		// rescan says that the library read the disk while a watcher
		// was starting: once it runs, it reads the tree again (see the
		// case of w.rescan).
		rescan bool
	)
	start := func() {
		ready = make(chan started)
		w.wg.Add(1)
		go w.startWatcher(ready)
	}
	stop := func() {
		if wt := w.watcher.Swap(nil); wt != nil {
			if err := wt.Close(); err != nil {
				w.log.Warn("workspace: closing the watcher", "err", err)
			}
		}
		batches = nil
	}
	if w.opts.Watch {
		start()
	}
	notifyTimer := time.NewTimer(time.Hour)
	notifyTimer.Stop()
	defer notifyTimer.Stop()
	armed := false

	for {
		select {
		case <-w.done:
			if ready != nil {
				// The starter closes what it started once done is closed.
				ready = nil
			}
			stop()
			return

		case r := <-ready:
			ready = nil
			if r.err != nil {
				w.log.Warn("workspace: cannot watch the workspace for changes; changes reach the index only through the editor", "err", r.err)
				continue
			}
			w.watcher.Store(r.wt)
			batches = r.wt.Batches()
			w.reconcile(ctx, r.wt.Files(), since)
			if rescan {
				r.wt.Rescan()
				rescan = false
			}

		case b, ok := <-batches:
			if !ok {
				batches = nil
				continue
			}
			paths := make([]string, len(b.Changes))
			for i, c := range b.Changes {
				paths[i] = c.Path
			}
			w.applyMu.Lock()
			w.applyPaths(ctx, paths, true)
			w.applyMu.Unlock()
			if wt := w.watcher.Load(); wt != nil && b.Rescan {
				// The watcher read the whole tree again: what the library
				// holds and the watcher does not know is gone or not yet
				// reported, and the watcher would never report it gone.
				w.reconcile(ctx, wt.Files(), time.Time{})
			}

		case <-w.rescan:
			// The library read the disk by itself (a rebuild). It may hold
			// files created since the watcher last looked that are gone
			// before it looks again: the watcher, which never knew them,
			// would not report them. Reading the tree again brings the
			// watcher past the library's read, and its batch is
			// reconciled with the library.
			if wt := w.watcher.Load(); wt != nil {
				wt.Rescan()
			} else if ready != nil {
				rescan = true
			}

		case <-w.nwake:
			if !armed {
				notifyTimer.Reset(w.opts.Debounce)
				armed = true
			}

		case <-notifyTimer.C:
			armed = false
			w.nmu.Lock()
			paths := make([]string, 0, len(w.notified))
			for p := range w.notified {
				paths = append(paths, p)
			}
			clear(w.notified)
			w.nmu.Unlock()
			if wt := w.watcher.Load(); wt != nil {
				// The watcher started meanwhile: it is the one source.
				wt.Notify(paths...)
				continue
			}
			slices.Sort(paths)
			w.applyMu.Lock()
			w.applyPaths(ctx, paths, false)
			w.applyMu.Unlock()
			// The starting watcher may have read these paths' directories
			// before the library read them.
			rescan = rescan || ready != nil

		case <-w.rewatch:
			if !w.opts.Watch {
				continue
			}
			if ready != nil {
				// A watcher is starting with the old settings: let it
				// finish, then start again.
				select {
				case r := <-ready:
					if r.wt != nil {
						r.wt.Close()
					}
				case <-w.done:
					stop()
					return
				}
			}
			stop()
			since = time.Now()
			start()
		}
	}
}

// startWatcher creates the watcher (which reads the whole tree) off the
// sync goroutine's path and hands it over, or closes it when the workspace
// closed meanwhile.
func (w *Workspace) startWatcher(ready chan<- started) {
	defer w.wg.Done()
	// The whole tree is watched, not only the roots: a directory named
	// context or commands may appear anywhere. The filter keeps out what
	// the library never reads (dependencies, virtual environments, caches,
	// build output), which would only use up kernel watches; and of the
	// rest the kernel watches only the directories that hold markdown or
	// lead to some (Sparse): in a repository of source files the others
	// are many. The client's file events (NotifyWatched) name a markdown
	// file new in one of them at once; the watcher's own rescan finds it
	// too.
	f := w.Snapshot().Library().Filter()
	wt, err := watcher.New(watcher.Options{
		Roots:        []string{w.dir},
		Files:        []string{w.cfgPath},
		Match:        func(p string) bool { return isMarkdown(p) && !f.SkipFile(p) },
		IgnoreDir:    f.SkipDir,
		Sparse:       true,
		Debounce:     w.opts.Debounce,
		PollInterval: w.opts.PollInterval,
		MaxWatches:   w.opts.MaxWatches,
		Logger:       w.watchLog,
		OnLimit:      w.watchLimit,
		Clock:        w.opts.clock,
	})
	select {
	case ready <- started{wt, err}:
	case <-w.done:
		if wt != nil {
			wt.Close()
		}
	}
}

// watchLimit passes the watcher's limit warning on to Options.OnWatchLimit,
// once per workspace.
func (w *Workspace) watchLimit(message string) {
	if w.opts.OnWatchLimit != nil && w.limitSaid.CompareAndSwap(false, true) {
		w.opts.OnWatchLimit(message)
	}
}

// reconcile applies what changed between the library's scan and the moment
// the watcher read the tree: files only one of them knows, and, unless
// since is zero, files modified since.
func (w *Workspace) reconcile(ctx context.Context, disk []string, since time.Time) {
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	onDisk := make(map[string]bool, len(disk))
	for _, p := range disk {
		onDisk[p] = true
	}
	var paths []string
	cutoff := since.Add(-mtimeSlack)
	lib := w.Snapshot().Library()
	// One look at each folder, not at every folder of each file's path.
	root := lib.Root().Memo()
	for _, f := range lib.Files() {
		if !onDisk[f.Path] {
			paths = append(paths, f.Path)
			continue
		}
		delete(onDisk, f.Path)
		if since.IsZero() {
			continue
		}
		if fi, err := root.Stat(f.Path); err != nil || !fi.ModTime().Before(cutoff) {
			paths = append(paths, f.Path)
		}
	}
	for p := range onDisk {
		if p != w.cfgPath {
			paths = append(paths, p)
		}
	}
	if fi, err := root.Stat(w.cfgPath); err == nil && !since.IsZero() && !fi.ModTime().Before(cutoff) {
		paths = append(paths, w.cfgPath)
	}
	slices.Sort(paths)
	w.applyPaths(ctx, paths, false)
}

// applyPaths re-reads the given paths, compares them with the library and
// applies what differs. exhaustive says that every file below a created or
// removed directory is listed too (a watcher batch), so directories matter
// only when they make or unmake context and command roots. The caller holds
// applyMu.
func (w *Workspace) applyPaths(ctx context.Context, paths []string, exhaustive bool) {
	if len(paths) == 0 || ctx.Err() != nil {
		return
	}
	t0 := time.Now()
	lib := w.Snapshot().Library()
	c := collector{w: w, lib: lib, cfg: lib.Config(), flt: lib.Filter(), exhaustive: exhaustive, seen: make(map[string]bool)}
	for _, p := range paths {
		c.collect(p)
	}
	c.readAll(ctx)
	t1 := time.Now()
	defer func() {
		w.log.Debug("workspace: applied file changes", "paths", len(paths), "changes", len(c.changes),
			"read", t1.Sub(t0), "apply", time.Since(t1))
	}()
	if c.config {
		if reloaded, err := w.reconfigure(ctx, true); err != nil {
			w.log.Warn("workspace: cannot apply the configuration", "path", w.cfgPath, "err", err)
		} else if reloaded {
			return // the rebuild read everything else from disk too
		}
	}
	if len(c.changes) == 0 {
		return
	}
	if c.roots || len(c.changes) > w.opts.ReloadThreshold {
		// New or removed roots change what every file is; past the
		// threshold a fresh scan is cheaper than file by file.
		u, err := w.rebuild(ctx, c.cfg, lib.ConfigProblems())
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("workspace: cannot scan the workspace again", "err", err)
			}
			return
		}
		w.publish(u)
		return
	}
	w.apply(ctx, c.changes)
}

// rebuild scans the workspace again into a new library, lays the open
// documents over it and puts it in place of the current one. The caller
// holds applyMu.
func (w *Workspace) rebuild(ctx context.Context, cfg *config.Config, problems []config.Problem) (Update, error) {
	old := w.Snapshot().Library()
	plain := reflect.DeepEqual(w.settings, &config.Settings{})
	nl, err := load(ctx, w.dir, cfg, problems, plain, library.Options{Logger: w.log, AfterIndex: w.opts.AfterIndex, CacheDir: w.opts.CacheDir, Version: w.opts.CacheVersion, Changed: w.changed})
	if err != nil {
		return Update{}, err
	}
	w.restoreOverlays(ctx, nl)
	w.setLibrary(nl, false)
	select {
	case w.rescan <- struct{}{}:
	default:
	}
	var all []string
	for _, l := range []*library.Snapshot{old, w.Snapshot().Library()} {
		for _, f := range l.Files() {
			all = append(all, f.Path)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	w.logWarnings(old.Warnings())
	return Update{Changed: all, Affected: slices.Clone(all), Reloaded: true}, nil
}

// collector turns paths into library changes.
type collector struct {
	w          *Workspace
	lib        *library.Snapshot
	cfg        *config.Config
	flt        *discover.Filter // cfg's directory rules
	exhaustive bool
	seen       map[string]bool
	changes    []library.Change
	config     bool
	roots      bool            // a context or command root appeared or went
	reads      []string        // files to read and compare, in order
	dirRoot    map[string]bool // directory → inNewRoot, memoized
	roots0     map[string]bool // the library's roots
	sorted     []string        // the library's file paths, sorted; built on demand
}

func (c *collector) add(ch library.Change) {
	if c.seen[ch.Path] {
		return
	}
	c.seen[ch.Path] = true
	c.changes = append(c.changes, ch)
}

func (c *collector) collect(p string) {
	w := c.w
	if p == w.cfgPath {
		c.config = true
		return
	}
	if c.seen[p] || !within(w.dir, p) || p == w.dir || w.isOpen(p) {
		return
	}
	f := c.flt
	fi, err := os.Lstat(p)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if t, terr := os.Stat(p); terr == nil && t.IsDir() {
			return // the library does not follow links to directories
		}
		// A link to a file is left to the root's check below, which
		// refuses a dangling or looping link and one that leaves the
		// workspace.
	}
	if err != nil {
		if _, ok := c.lib.File(p); ok {
			c.add(library.Change{Path: p, Removed: true})
			return
		}
		if f.SkipDir(p) {
			return // nothing the library read was there
		}
		if c.rootish(p) {
			// A root or a parent of one is gone: scan again.
			c.roots = true
			c.add(library.Change{Path: p, Removed: true})
			return
		}
		// Files below a removed directory: the watcher lists those it
		// knew; the library may know more (applied from a notification).
		for _, q := range c.filesUnder(p) {
			c.collect(q)
		}
		return
	}
	if fi.IsDir() {
		if _, ok := c.lib.File(p); ok {
			// A file replaced by a directory of the same name.
			c.add(library.Change{Path: p, Removed: true})
		}
		if f.SkipDir(p) {
			return
		}
		if c.rootish(p) {
			c.roots = true
			c.add(library.Change{Path: p})
			return
		}
		if c.exhaustive {
			return
		}
		for _, q := range c.filesUnder(p) {
			c.collect(q) // gone ones are removed
		}
		filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && q != p && f.SkipDir(q) {
				return fs.SkipDir
			}
			if !d.IsDir() {
				c.collect(q)
			}
			return nil
		})
		return
	}
	if !isMarkdown(p) {
		return
	}
	// The one check that discovery makes too: what p leads to is a
	// regular file inside the workspace, links in its directories
	// included (a client may name any path).
	fi, err = c.lib.Root().Check(p)
	if err != nil || f.SkipFile(p) {
		if _, ok := c.lib.File(p); ok {
			c.add(library.Change{Path: p, Removed: true})
		}
		return
	}
	if fi.Size() > c.cfg.MaxFileSize {
		c.add(library.Change{Path: p}) // the library records why it skips it
		return
	}
	c.seen[p] = true
	c.reads = append(c.reads, p)
	if !c.roots && c.inNewRoot(filepath.Dir(p)) {
		// The library would scan again in place, showing the disk's text
		// of open documents for a moment; rebuild aside instead.
		c.roots = true
	}
}

// inNewRoot reports whether dir is, or lies below, a directory that would
// be a new context or command root (a "context" directory outside any
// root, say), as when a file arrives before its directory was reported.
func (c *collector) inNewRoot(dir string) bool {
	if c.dirRoot == nil {
		c.dirRoot = make(map[string]bool)
		c.roots0 = make(map[string]bool)
		for _, r := range append(c.lib.ContextRoots(), c.lib.CommandRoots()...) {
			c.roots0[r] = true
		}
	}
	if !within(c.w.dir, dir) || dir == c.w.dir {
		return false
	}
	if v, ok := c.dirRoot[dir]; ok {
		return v
	}
	b := filepath.Base(dir)
	v := (b == discover.ContextDirName || b == discover.CommandDirName) && !c.roots0[dir] && c.rootish(dir)
	if !v {
		v = c.inNewRoot(filepath.Dir(dir))
	}
	c.dirRoot[dir] = v
	return v
}

// readAll reads the files collect queued, a few at a time (a checkout
// names thousands), and queues those whose content differs from what the
// library holds.
func (c *collector) readAll(ctx context.Context) {
	type read struct {
		data []byte
		err  error
	}
	out := make([]read, len(c.reads))
	parallel.For(len(c.reads), readers, func(i int) {
		out[i].data, out[i].err = c.lib.Root().ReadFile(ctx, c.reads[i], c.cfg.MaxFileSize)
	})
	for i, p := range c.reads {
		switch {
		case out[i].err != nil:
			c.changes = append(c.changes, library.Change{Path: p}) // the library records the error
		case c.unchanged(p, out[i].data):
			// Already applied (seen by the watcher and the client).
		default:
			c.changes = append(c.changes, library.Change{Path: p, Content: out[i].data, FromDisk: true})
		}
	}
	c.reads = nil
}

// readers bounds the files read at once.
const readers = 4

func (c *collector) unchanged(p string, data []byte) bool {
	f, ok := c.lib.File(p)
	return ok && f.Doc != nil && sameContent(f.Doc, data)
}

// filesUnder lists the library's files below dir.
func (c *collector) filesUnder(dir string) []string {
	if c.sorted == nil {
		for _, f := range c.lib.Files() { // sorted by path
			c.sorted = append(c.sorted, f.Path)
		}
	}
	prefix := dir + string(filepath.Separator)
	i, _ := slices.BinarySearch(c.sorted, prefix)
	j := i
	for j < len(c.sorted) && strings.HasPrefix(c.sorted[j], prefix) {
		j++
	}
	return c.sorted[i:j]
}

// rootish reports whether the directory at p is, or would be, a context or
// command root, or holds one: creating or removing it changes which files
// are topics and commands.
func (c *collector) rootish(p string) bool {
	if b := filepath.Base(p); b == discover.ContextDirName || b == discover.CommandDirName {
		// Within a context root such a name is an ordinary directory.
		for _, r := range c.lib.ContextRoots() {
			if within(r, p) && r != p {
				return false
			}
		}
		if b == discover.CommandDirName {
			for _, r := range c.lib.CommandRoots() {
				if within(r, p) && r != p {
					return false
				}
			}
		}
		return true
	}
	for _, r := range append(c.lib.ContextRoots(), c.lib.CommandRoots()...) {
		if within(p, r) {
			return true
		}
	}
	return false
}

// reconfigure re-reads .ctxls.yaml, lays the settings over it and rebuilds
// the library when the result differs from the configuration in effect.
// fileChanged says .ctxls.yaml itself changed (rather than the settings),
// so that its own diagnostics are re-published. The caller holds applyMu.
func (w *Workspace) reconfigure(ctx context.Context, fileChanged bool) (bool, error) {
	cfg, problems, err := effectiveConfig(w.dir, w.settings)
	if err != nil {
		return false, err
	}
	lib := w.Snapshot().Library()
	cur := lib.Config()
	curProblems := lib.ConfigProblems()
	if sameConfig(cfg, cur) && (len(problems) == 0 && len(curProblems) == 0 || reflect.DeepEqual(problems, curProblems)) {
		return false, nil
	}
	u, err := w.rebuild(ctx, cfg, problems)
	if err != nil {
		return false, err
	}
	if fileChanged {
		u.merge(Update{Changed: []string{w.cfgPath}, Affected: []string{w.cfgPath}})
	} else {
		u.merge(Update{Affected: []string{w.cfgPath}})
	}
	w.publish(u)
	if !slices.Equal(cfg.Ignore, cur.Ignore) || !slices.Equal(cfg.ContextRoots, cur.ContextRoots) || !slices.Equal(cfg.CommandRoots, cur.CommandRoots) {
		// What the watcher watches depends on these.
		select {
		case w.rewatch <- struct{}{}:
		default:
		}
	}
	return true, nil
}

func within(dir, p string) bool { return fsguard.Within(dir, p) }

func isMarkdown(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// sameContent reports whether data read from disk is the text a document
// was parsed from.
func sameContent(doc *document.Doc, data []byte) bool {
	if bytes.HasPrefix(data, bom) != doc.HasBOM {
		return false
	}
	return doc.SameText(bytes.TrimPrefix(data, bom))
}

// sameConfig compares configurations by their JSON form, which treats
// empty and nil lists alike.
func sameConfig(a, b *config.Config) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	// Where the executor's command line comes from is no JSON field, and
	// it decides whether the command line needs consent.
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb) && a.Executor.CommandFromSettings == b.Executor.CommandFromSettings
}
