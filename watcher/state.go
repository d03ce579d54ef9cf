package watcher

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/providers/fsguard"
)

// fileID identifies a directory independently of its path, to recognise a
// directory reached twice (link loop, bind mount) or moved.
type fileID struct{ dev, ino uint64 }

func (id fileID) valid() bool { return id != fileID{} }

// fingerprint is what the watcher remembers of a file to tell whether it
// changed when nothing else says so (polls, notifications, rescans).
type fingerprint struct {
	size  int64
	mtime int64
	ino   uint64
}

func fingerprintOf(fi fs.FileInfo) fingerprint {
	return fingerprint{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: fileIDOf(fi).ino}
}

type dirNode struct {
	id      fileID
	files   map[string]fingerprint // base name → fingerprint, matching files only
	subdirs map[string]struct{}    // base names of known sub-directories
}

func newDirNode(id fileID) *dirNode {
	return &dirNode{id: id, files: make(map[string]fingerprint), subdirs: make(map[string]struct{})}
}

type extraFile struct {
	exists bool
	fp     fingerprint
}

// owner says why a directory is watched: as part of a tree, as the directory
// of an extra file, or both (one kernel watch serves both).
type owner uint8

const (
	ownTree owner = 1 << iota
	ownAnchor
)

// errLimit stands for "no more watches": the kernel's limit or MaxWatches.
var errLimit = errors.New("watch limit reached")

// state is what the watcher knows of the disk. Only the run goroutine (and
// New before it starts) touches it; Files reads it under Watcher.smu.
type state struct {
	rootsAsc   []string        // sorted, so outer roots are read first
	rootsByLen []string        // longest first, for rootOf
	rootSet    map[string]bool //
	missing    map[string]bool // roots absent or unreadable now; polled
	dirs       map[string]*dirNode
	inodes     map[fileID]string
	extras     map[string]*extraFile
	anchors    map[string]bool // directory of an extra file → watched
	watches    map[string]owner
	polled     map[string]bool // known directories without a watch
	quiet      map[string]bool // known directories of a Sparse watcher left unwatched; see Options.Sparse
	quietPolls int             // polls since the quiet directories were last read
	scanning   bool            // the first scan of a Sparse watcher: read, do not watch yet

	limitLogged bool
	limitAt     int             // watches held when the kernel refused one; 0 if never
	noted       map[string]bool // paths already warned about
}

func (s *state) init(roots, files []string) {
	s.rootsAsc = slices.Sorted(slices.Values(roots))
	s.rootsByLen = slices.Clone(s.rootsAsc)
	slices.SortFunc(s.rootsByLen, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	s.rootSet = make(map[string]bool)
	for _, r := range roots {
		s.rootSet[r] = true
	}
	s.missing = make(map[string]bool)
	s.dirs = make(map[string]*dirNode)
	s.inodes = make(map[fileID]string)
	s.extras = make(map[string]*extraFile)
	s.anchors = make(map[string]bool)
	for _, f := range files {
		s.extras[f] = &extraFile{}
		s.anchors[filepath.Dir(f)] = false
	}
	s.watches = make(map[string]owner)
	s.polled = make(map[string]bool)
	s.quiet = make(map[string]bool)
	s.noted = make(map[string]bool)
}

func (s *state) files() []string {
	var out []string
	for p, n := range s.dirs {
		for name := range n.files {
			out = append(out, filepath.Join(p, name))
		}
	}
	for x, e := range s.extras {
		if e.exists {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// rootOf returns the innermost root containing p, or "".
func (s *state) rootOf(p string) string {
	for _, r := range s.rootsByLen {
		if within(p, r) {
			return r
		}
	}
	return ""
}

func within(p, dir string) bool { return fsguard.Within(dir, p) }

// request is what one flush has to look at.
type request struct {
	named  map[string]bool // paths from events and notifications → strong
	rescan bool            // re-read everything
	poll   bool            // re-read what is not watched
}

func (r request) empty() bool { return len(r.named) == 0 && !r.rescan && !r.poll }

// visit flags say how far visitEntry and scanDir go.
type visit uint8

const (
	vDeep   visit = 1 << iota // read known sub-directories too
	vRenew                    // re-add the watch of directories read: a move may have dropped it
	vNamed                    // the entry was named by an event or a notification
	vStrong                   // ... by an event implying a write: a known file is reported modified
)

type entryKind uint8

const (
	kindNone entryKind = iota
	kindFile
	kindDir
)

func (w *Watcher) initialScan() {
	w.scanning = w.opts.Sparse
	for _, r := range w.rootsAsc {
		w.visitRoot(r, nil, 0)
	}
	if w.scanning {
		w.scanning = false
		w.settleSparse()
	}
	for _, a := range slices.Sorted(maps.Keys(w.anchors)) {
		w.checkAnchor(a, false)
	}
	for x := range w.extras {
		w.visitExtra(x, nil, false)
	}
}

func (w *Watcher) needsPoll() bool {
	if len(w.polled) > 0 || len(w.missing) > 0 || len(w.quiet) > 0 {
		return true
	}
	for _, ok := range w.anchors {
		if !ok {
			return true
		}
	}
	return false
}

// apply brings the state in line with the disk for everything req names,
// recording the differences in b.
func (w *Watcher) apply(req request, b *builder) {
	named := slices.Sorted(maps.Keys(req.named))

	// Forget vanished directories before adding any watch: the kernel hands
	// back the existing descriptor for an inode it already watches, so the
	// watches a moved directory left at its old path must go first.
	switch {
	case req.rescan:
		for _, p := range slices.Sorted(maps.Keys(w.dirs)) {
			w.dropIfGone(p, b)
		}
	case req.poll:
		for _, p := range slices.Sorted(maps.Keys(w.polled)) {
			w.dropIfGone(p, b)
		}
	}
	for _, p := range named {
		w.dropIfGone(p, b)
	}

	if req.rescan {
		for _, r := range w.rootsAsc {
			w.visitRoot(r, b, vDeep|vRenew)
		}
		for _, a := range slices.Sorted(maps.Keys(w.anchors)) {
			w.checkAnchor(a, true)
		}
		for x := range w.extras {
			w.visitExtra(x, b, false)
		}
	} else if req.poll {
		polled := slices.Sorted(maps.Keys(w.polled))
		w.promote(polled)
		for _, r := range slices.Sorted(maps.Keys(w.missing)) {
			w.visitRoot(r, b, 0)
		}
		for _, p := range polled {
			if node := w.dirs[p]; node != nil {
				w.scanDir(p, node, b, 0)
			}
		}
		w.pollQuiet(b)
		for _, a := range slices.Sorted(maps.Keys(w.anchors)) {
			if !w.anchors[a] {
				w.checkAnchor(a, false)
			}
		}
		for x := range w.extras {
			if !w.anchors[filepath.Dir(x)] {
				w.visitExtra(x, b, false)
			}
		}
	}

	// Sorted, so a directory comes before what is inside it.
	for _, p := range named {
		w.visitNamed(p, req.named[p], b)
	}
}

// dropIfGone forgets the known directory p if it no longer exists or is
// another directory now.
func (w *Watcher) dropIfGone(p string, b *builder) {
	node := w.dirs[p]
	if node == nil {
		return
	}
	if kind, fi := w.classify(p); kind != kindDir || fileIDOf(fi) != node.id {
		w.removeDir(p, b)
	}
}

// visitNamed handles one path from an event or a notification.
func (w *Watcher) visitNamed(p string, strong bool, b *builder) {
	if _, ok := w.anchors[p]; ok {
		// The directory of an extra file was itself touched (moved,
		// removed, re-created): renew its watch, look at its files again.
		w.checkAnchor(p, true)
		for x := range w.extras {
			if filepath.Dir(x) == p {
				w.visitExtra(x, b, false)
			}
		}
	}
	if w.extras[p] != nil {
		w.visitExtra(p, b, strong)
		return
	}
	r := w.rootOf(p)
	if r == "" {
		return
	}
	if p == r {
		w.visitRoot(r, b, vRenew)
		return
	}
	// Start from the nearest directory known: for "mkdir -p a/b/c" the
	// event names only a, and a path from a notification may lie in a
	// directory not seen yet (or an ignored one).
	parent, child := filepath.Dir(p), p
	for parent != r && w.dirs[parent] == nil {
		parent, child = filepath.Dir(parent), parent
	}
	pn := w.dirs[parent]
	if pn == nil {
		return
	}
	fl := vNamed
	if strong && child == p {
		fl |= vStrong
	}
	w.visitEntry(parent, pn, filepath.Base(child), 0, false, fl, b)
}

// visitRoot (re)reads a root.
func (w *Watcher) visitRoot(r string, b *builder, fl visit) {
	kind, fi := w.classify(r)
	if kind != kindDir {
		if w.dirs[r] != nil {
			w.removeDir(r, b)
		}
		w.missing[r] = true
		return
	}
	id := fileIDOf(fi)
	node := w.dirs[r]
	if node != nil && node.id != id {
		w.removeDir(r, b)
		node = nil
	}
	if node == nil {
		if other, ok := w.inodes[id]; ok && id.valid() && other != r {
			if w.rootSet[other] {
				w.warnOnce(r, "watcher: root is the same directory as another root; skipped", "other", other)
				w.missing[r] = true
				return
			}
			// A root wins over the same directory reached through a link.
			w.removeDir(other, b)
		}
		node = newDirNode(id)
		w.dirs[r] = node
		w.inodes[id] = r
		delete(w.missing, r)
		b.dirSeen(r, false)
		fl |= vDeep
	}
	w.scanDir(r, node, b, fl)
}

// scanDir reads the known directory p and reconciles its entries.
func (w *Watcher) scanDir(p string, node *dirNode, b *builder, fl visit) {
	// Watch before reading, so that nothing created in between is missed.
	if err := w.watchDir(p, fl&vRenew != 0); err != nil {
		w.unusable(p, err, b)
		return
	}
	entries, err := readDir(p)
	if err != nil {
		w.unusable(p, err, b)
		return
	}
	delete(w.noted, p)
	present := make(map[string]struct{}, len(entries))
	for _, e := range entries {
		present[e.Name()] = struct{}{}
	}
	// Removals first, for the same reason as in apply.
	for name := range node.files {
		if _, ok := present[name]; !ok {
			b.fileGone(filepath.Join(p, name), true)
			delete(node.files, name)
		}
	}
	for name := range node.subdirs {
		if _, ok := present[name]; !ok {
			w.removeDir(filepath.Join(p, name), b)
		}
	}
	child := fl &^ (vNamed | vStrong)
	for _, e := range entries {
		if w.dirs[p] != node {
			return // p was dropped meanwhile (replaced while being read)
		}
		w.visitEntry(p, node, e.Name(), e.Type(), true, child, b)
	}
}

func readDir(p string) ([]fs.DirEntry, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Unsorted: order does not matter here and sorting costs.
	return f.ReadDir(-1)
}

// unusable drops a directory that vanished or cannot be read.
func (w *Watcher) unusable(p string, err error, b *builder) {
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		w.warnOnce(p, "watcher: skipping unreadable directory", "err", err)
	}
	w.removeDir(p, b)
}

// visitEntry looks at the entry name of the known directory parent. typ is
// the entry's type from the directory listing when hinted.
func (w *Watcher) visitEntry(parent string, pn *dirNode, name string, typ fs.FileMode, hinted bool, fl visit, b *builder) {
	p := filepath.Join(parent, name)
	if w.rootSet[p] || w.extras[p] != nil {
		return // read on their own
	}
	_, wasFile := pn.files[name]
	_, wasDir := pn.subdirs[name]
	if hinted && !wasFile && !wasDir {
		// Skip the stat for what cannot matter.
		switch {
		case typ.IsRegular():
			if !w.opts.Match(p) {
				return
			}
		case typ.IsDir():
			if w.opts.IgnoreDir(p) {
				return
			}
		case typ&fs.ModeSymlink != 0:
		default:
			return
		}
	}

	kind, fi := w.classify(p)
	switch kind {
	case kindNone:
		if wasFile {
			b.fileGone(p, true)
			delete(pn.files, name)
		}
		if wasDir {
			w.removeDir(p, b)
		}

	case kindFile:
		if wasDir {
			w.removeDir(p, b)
		}
		if !w.opts.Match(p) {
			if wasFile {
				b.fileGone(p, true)
				delete(pn.files, name)
			}
			return
		}
		if w.quiet[parent] {
			w.wakeQuiet(parent)
		}
		fp := fingerprintOf(fi)
		if wasFile {
			b.fileSeen(p, true, fl&vStrong != 0 || pn.files[name] != fp)
		} else {
			b.fileSeen(p, false, true)
			if hinted {
				b.discovered()
			}
		}
		pn.files[name] = fp

	case kindDir:
		if wasFile {
			b.fileGone(p, true)
			delete(pn.files, name)
		}
		if w.opts.IgnoreDir(p) {
			if wasDir {
				w.removeDir(p, b)
			}
			return
		}
		id := fileIDOf(fi)
		node := w.dirs[p]
		if node != nil && node.id != id {
			w.removeDir(p, b) // replaced by another directory
			node = nil
		}
		if node == nil {
			if other, ok := w.inodes[id]; ok && id.valid() {
				if k, ofi := w.classify(other); k == kindDir && fileIDOf(ofi) == id {
					w.warnOnce(p, "watcher: skipping directory reached twice (symbolic link loop or bind mount)", "same-as", other)
					return
				}
				// Moved here from a place no event told about.
				w.removeDir(other, b)
			}
			node = newDirNode(id)
			pn.subdirs[name] = struct{}{}
			w.dirs[p] = node
			w.inodes[id] = p
			b.dirSeen(p, false)
			if hinted {
				b.discovered()
			}
			w.scanDir(p, node, b, fl|vDeep)
			return
		}
		switch {
		case fl&vNamed != 0:
			w.scanDir(p, node, b, fl|vRenew)
		case fl&vDeep != 0:
			w.scanDir(p, node, b, fl)
		}
	}
}

// classify stats p the way the watcher sees it: links to files are files,
// links to directories are directories only when followed (roots always
// are), anything else counts as absent.
func (w *Watcher) classify(p string) (entryKind, fs.FileInfo) {
	fi, err := os.Lstat(p)
	if err != nil {
		return kindNone, nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Stat(p)
		if err != nil {
			return kindNone, nil // dangling, or a loop of links
		}
		switch {
		case t.Mode().IsRegular():
			return kindFile, t
		case t.IsDir():
			if w.opts.FollowSymlinks || w.rootSet[p] {
				return kindDir, t
			}
			if !w.noted[p] {
				w.noted[p] = true
				w.log.Debug("watcher: not following symbolic link to directory", "path", p)
			}
		}
		return kindNone, nil
	}
	switch {
	case fi.Mode().IsRegular():
		return kindFile, fi
	case fi.IsDir():
		return kindDir, fi
	}
	return kindNone, nil
}

// removeDir forgets the directory p and everything below it, reporting each
// as removed, and releases their watches.
func (w *Watcher) removeDir(p string, b *builder) {
	node := w.dirs[p]
	if node == nil {
		return
	}
	for name := range node.files {
		b.fileGone(filepath.Join(p, name), true)
	}
	for name := range node.subdirs {
		w.removeDir(filepath.Join(p, name), b)
	}
	delete(w.polled, p)
	delete(w.quiet, p)
	w.release(p, ownTree)
	if w.inodes[node.id] == p {
		delete(w.inodes, node.id)
	}
	delete(w.dirs, p)
	b.dirGone(p, true)
	if w.rootSet[p] {
		w.missing[p] = true
		return
	}
	if pn := w.dirs[filepath.Dir(p)]; pn != nil {
		delete(pn.subdirs, filepath.Base(p))
	}
}

// visitExtra re-stats an extra file.
func (w *Watcher) visitExtra(x string, b *builder, strong bool) {
	e := w.extras[x]
	if fi, err := os.Stat(x); err == nil && fi.Mode().IsRegular() {
		fp := fingerprintOf(fi)
		if e.exists {
			b.fileSeen(x, true, strong || e.fp != fp)
		} else {
			b.fileSeen(x, false, true)
		}
		e.exists, e.fp = true, fp
		return
	}
	if e.exists {
		b.fileGone(x, true)
		e.exists = false
	}
}

// checkAnchor makes sure the directory of extra files is watched when it
// exists; renew re-adds the watch.
func (w *Watcher) checkAnchor(dir string, renew bool) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || w.fsw == nil {
		w.release(dir, ownAnchor)
		w.anchors[dir] = false
		return
	}
	if w.anchors[dir] && !renew {
		return
	}
	w.anchors[dir] = w.acquire(dir, ownAnchor, renew) == nil
}

// watchDir makes sure the tree directory p is watched, or polled when no
// watch can be had. It returns an error only when p is gone or unreadable.
func (w *Watcher) watchDir(p string, renew bool) error {
	if w.scanning || w.quiet[p] {
		return nil // see settleSparse and wakeQuiet
	}
	if w.fsw == nil {
		w.polled[p] = true
		return nil
	}
	if !renew && (w.watches[p]&ownTree != 0 || w.polled[p]) {
		return nil // polled directories are promoted by promote
	}
	err := w.acquire(p, ownTree, renew)
	switch {
	case err == nil:
		delete(w.polled, p)
		return nil
	case errors.Is(err, errLimit):
		w.polled[p] = true
		return nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOTDIR):
		delete(w.polled, p)
		return err
	default:
		w.warnOnce(p, "watcher: cannot watch directory; polling it instead", "err", err)
		w.polled[p] = true
		return nil
	}
}

// acquire takes a kernel watch on p for o. renew drops and re-adds an
// existing watch: after a directory moved away and back, fsnotify may have
// dropped the descriptor while we still count it.
func (w *Watcher) acquire(p string, o owner, renew bool) error {
	cur := w.watches[p]
	if cur != 0 && !renew {
		w.watches[p] = cur | o
		return nil
	}
	if cur != 0 {
		_ = w.fsw.Remove(p) // may already be gone with the directory
		delete(w.watches, p)
	}
	var err error
	if w.opts.MaxWatches > 0 && len(w.watches) >= w.opts.MaxWatches {
		w.limitReached(nil)
		err = errLimit
	} else if w.limitAt > 0 && len(w.watches) >= w.limitAt {
		err = errLimit // the kernel said no at this count; promote retries
	} else if err = w.fsw.Add(p); err != nil && isLimitErr(err) {
		w.limitReached(err)
		err = errLimit
	}
	if err != nil {
		// Whoever else shared the watch lost it too.
		others := cur &^ o
		if others&ownAnchor != 0 {
			w.anchors[p] = false
		}
		if others&ownTree != 0 {
			w.polled[p] = true
		}
		return err
	}
	w.watches[p] = cur | o
	return nil
}

// release gives up o's claim on the watch of p.
func (w *Watcher) release(p string, o owner) {
	cur, ok := w.watches[p]
	if !ok {
		return
	}
	if cur &^= o; cur != 0 {
		w.watches[p] = cur
		return
	}
	delete(w.watches, p)
	if w.fsw == nil {
		return
	}
	_ = w.fsw.Remove(p) // fails harmlessly when the directory is already gone
}

// promote tries to watch polled directories again, shallowest first: watches
// may have been freed (directories removed, the kernel limit raised).
func (w *Watcher) promote(polled []string) {
	if w.fsw == nil || len(polled) == 0 {
		return
	}
	slices.SortStableFunc(polled, func(a, b string) int {
		return cmp.Compare(strings.Count(a, string(filepath.Separator)), strings.Count(b, string(filepath.Separator)))
	})
	for _, p := range polled {
		if w.opts.MaxWatches > 0 && len(w.watches) >= w.opts.MaxWatches {
			return
		}
		if w.watches[p] != 0 {
			w.watches[p] |= ownTree
			delete(w.polled, p)
			continue
		}
		err := w.fsw.Add(p)
		if err != nil {
			if isLimitErr(err) {
				w.limitAt = len(w.watches)
				return
			}
			continue // gone or unreadable: the scan that follows finds out
		}
		w.limitAt = 0
		w.watches[p] = ownTree
		delete(w.polled, p)
	}
}

// limitReached logs, once per watcher, that no more directories can be
// watched. cause is nil when MaxWatches was reached.
func (w *Watcher) limitReached(cause error) {
	if cause != nil {
		w.limitAt = len(w.watches)
	}
	if w.limitLogged {
		return
	}
	w.limitLogged = true
	var msg string
	if cause == nil {
		msg = fmt.Sprintf("watcher: watch limit reached: %d directories watched, the configured maximum; "+
			"the others are rescanned every %s instead (the kernel's own limit is fs.inotify.max_user_watches)",
			len(w.watches), w.opts.PollInterval)
		w.log.Warn(msg, "watched", len(w.watches), "poll", w.opts.PollInterval)
	} else {
		msg = fmt.Sprintf("watcher: watch limit reached: the kernel refused to watch more than %d directories "+
			"(fs.inotify.max_user_watches); the others are rescanned every %s instead. "+
			"To raise the limit: sudo sysctl fs.inotify.max_user_watches=524288 "+
			"(add the line fs.inotify.max_user_watches=524288 to /etc/sysctl.d/90-inotify.conf to keep it)",
			len(w.watches), w.opts.PollInterval)
		w.log.Warn(msg, "watched", len(w.watches), "poll", w.opts.PollInterval, "err", cause)
	}
	if w.opts.OnLimit != nil {
		w.opts.OnLimit(msg)
	}
}

func (w *Watcher) warnOnce(p, msg string, args ...any) {
	if w.noted[p] {
		return
	}
	w.noted[p] = true
	w.log.Warn(msg, append([]any{"path", p}, args...)...)
}

// settleSparse ends the first scan of a Sparse watcher, which read every
// directory and watched none: the directories that hold a matching file,
// and those on the way to one, are watched (and read again, for what was
// created before the watch); the others are quiet.
func (w *Watcher) settleSparse() {
	live := map[string]bool{}
	for _, r := range w.rootsAsc {
		live[r] = true
	}
	for p, node := range w.dirs {
		if len(node.files) == 0 {
			continue
		}
		for d := p; !live[d]; d = filepath.Dir(d) {
			live[d] = true
		}
	}
	for _, p := range slices.Sorted(maps.Keys(w.dirs)) {
		if !live[p] {
			w.quiet[p] = true
			continue
		}
		if node := w.dirs[p]; node != nil {
			w.scanDir(p, node, nil, 0)
		}
	}
}

// pollQuiet reads the quiet directories again, every QuietPoll.
func (w *Watcher) pollQuiet(b *builder) {
	if len(w.quiet) == 0 {
		return
	}
	w.quietPolls++
	if time.Duration(w.quietPolls)*w.opts.PollInterval < w.opts.QuietPoll {
		return
	}
	w.quietPolls = 0
	quiet := slices.Sorted(maps.Keys(w.quiet))
	for _, p := range quiet {
		w.dropIfGone(p, b)
	}
	for _, p := range quiet {
		if node := w.dirs[p]; node != nil && w.quiet[p] {
			w.scanDir(p, node, b, 0)
		}
	}
}

// wakeQuiet watches the quiet directory p, which a matching file turned
// up in, and the quiet directories on the way to it.
func (w *Watcher) wakeQuiet(p string) {
	var woken []string
	for d := p; w.quiet[d]; d = filepath.Dir(d) {
		delete(w.quiet, d)
		woken = append(woken, d)
	}
	slices.Reverse(woken) // the outermost first, as the first scan does
	for _, d := range woken {
		if err := w.watchDir(d, false); err != nil {
			w.unusable(d, err, nil)
		}
	}
}
