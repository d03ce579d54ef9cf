// Package watcher keeps directory trees and single files under observation
// and reports what changed on disk, whoever changed it (an editor, git, a
// script), as debounced batches of created, modified and removed paths.
//
// It wraps fsnotify, which on Linux watches one directory at a time: the
// watcher adds a watch for every directory below its roots (skipping ignored
// ones), walks directories as they appear, drops watches of directories that
// disappear or move, and re-adds them at their new place. Events only say
// that something happened to a path; after the debounce the watcher re-stats
// every path it was told about and reports what the disk says, compared with
// what it knew before. A burst of changes to many paths (a git checkout) is
// held until it pauses, however long it keeps naming new paths (up to
// [Options.MaxBurst]), so that it comes out as one batch. When the kernel
// refuses more watches it logs one warning and rescans the directories it
// could not watch periodically.
//
// Notifications from elsewhere (an LSP client's workspace/didChangeWatchedFiles)
// go through [Watcher.Notify] into the same debounce, so a change seen both
// ways comes out once.
package watcher

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ChangeKind says how a path changed between two batches.
type ChangeKind uint8

const (
	// Created: the path did not exist (or was not known) and exists now.
	Created ChangeKind = iota + 1
	// Modified: the file existed before and still exists; its content may
	// have changed. Directories are never reported as modified.
	Modified
	// Removed: the path existed before and does not any more.
	Removed
)

// String returns "created", "modified" or "removed".
func (k ChangeKind) String() string {
	switch k {
	case Created:
		return "created"
	case Modified:
		return "modified"
	case Removed:
		return "removed"
	}
	return fmt.Sprintf("ChangeKind(%d)", uint8(k))
}

// Change is one path that changed.
type Change struct {
	// Path is absolute and cleaned.
	Path string
	Kind ChangeKind
	// IsDir is true for directories. A removed directory is reported
	// together with every file and directory below it that the watcher
	// knew; a created directory together with everything found in it.
	IsDir bool
}

// Batch is the set of changes of one burst of events, delivered once the
// burst is over (a quiet period passed).
//
// A (Path, IsDir) pair appears at most once per batch; a path whose type
// changed appears twice, the Removed entry of the old type first. Changes
// are sorted by path.
type Batch struct {
	Changes []Change
	// Rescan is set when the watcher re-read every directory because
	// events may have been lost (kernel queue overflow, or [Watcher.Rescan]).
	// The changes are still exact differences from the previous state; a
	// consumer that keeps derived data may want to re-validate it.
	Rescan bool
}

// Options configure a [Watcher]. Only Roots or Files is required.
type Options struct {
	// Roots are directories watched recursively. A root that does not exist
	// (yet) is polled until it appears.
	Roots []string
	// Files are single files watched wherever they are, such as the
	// workspace's .ctxls.yaml. Their directory is watched (not the file
	// itself) so that atomic saves and re-creation are seen. They are
	// reported whatever Match says.
	Files []string
	// Match reports whether a file below a root matters. Default:
	// names ending in ".md". It is called from several goroutines.
	Match func(path string) bool
	// IgnoreDir reports whether the directory at path, below a root, is
	// neither watched nor read. Default: node_modules and every name
	// starting with a dot (.git, .ctxls).
	IgnoreDir func(path string) bool
	// FollowSymlinks makes the watcher descend into symbolic links to
	// directories. Off by default; either way a directory reached twice
	// (a link loop) is read only once. Links to files are always followed.
	FollowSymlinks bool
	// Debounce is the quiet time after the last event before a batch is
	// computed. Default 100ms. Once the pending batch names many paths (a
	// burst, such as a checkout) the quiet time is five times as long, so
	// that a writer stalled for a moment on a busy machine or a slow disk
	// does not split the burst.
	Debounce time.Duration
	// MaxWait bounds how long a stream of events that keeps naming the
	// same paths (a file rewritten in a loop) can delay a batch. Default 1s.
	MaxWait time.Duration
	// MaxBurst bounds how long a burst that keeps naming new paths (a git
	// checkout, a copy of a tree) can delay a batch: such a burst is held
	// past MaxWait, until it pauses or MaxBurst has passed, so that it
	// comes out as one batch and its consumer does the work once. Default
	// 30s (a checkout of 5,000 files can take several seconds on a slow
	// disk); never less than MaxWait.
	MaxBurst time.Duration
	// PollInterval is how often directories that could not be watched (and
	// missing roots) are rescanned. Default 2s.
	PollInterval time.Duration
	// Sparse watches through the kernel only the directories that hold a
	// matching file, or lead to one, as the first scan finds them: the
	// kernel's watches (and the watcher's memory for them) grow with the
	// directories that matter, not with every directory of the tree. The
	// others are quiet: rescanned every QuietPoll, and watched from the
	// moment a matching file turns up in them (a rescan finds it, or
	// [Watcher.Notify] names it). Directories created later are watched.
	Sparse bool
	// QuietPoll is how often the quiet directories of a Sparse watcher are
	// rescanned. Default 10 PollIntervals; never less than PollInterval.
	QuietPoll time.Duration
	// MaxWatches caps the number of directories watched through the kernel;
	// beyond it directories are polled as when the kernel limit is hit.
	// Zero means no cap other than the kernel's.
	MaxWatches int
	// Logger receives warnings (watch limit, unreadable directories) and
	// debug messages. Default: slog.Default().
	Logger *slog.Logger
	// OnLimit, when set, is called at most once per watcher, with the
	// warning also given to Logger, when directories have to be polled
	// because no more can be watched through the kernel: its inotify
	// instance or watch limit was reached, or MaxWatches. It is called
	// from New or from the watcher's goroutine and must not block or call
	// the watcher.
	OnLimit func(message string)
	// Clock is the watcher's time source: the debounce, the burst limits
	// and polling run on it. Default: the system clock. Tests give a
	// manual clock (package watchertest) so that whether a burst comes out
	// as one batch does not depend on how fast the disk takes it.
	Clock Clock
}

// Clock is a source of time and timers. Its method set is that of the
// time package, so that a clock need not import this one.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed, unless
	// the returned stop is called first; stop reports whether it
	// prevented the call, as [time.Timer.Stop].
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the default Clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Default values of [Options].
const (
	DefaultDebounce     = 100 * time.Millisecond
	defaultMaxWait      = time.Second
	defaultMaxBurst     = 30 * time.Second
	defaultPollInterval = 2 * time.Second
)

// A pending batch naming burstPaths paths or more is a burst: it needs
// burstQuiet Debounces of quiet to end.
const (
	burstPaths = 32
	burstQuiet = 5
)

// defaultMatch reports whether path names a markdown file.
func defaultMatch(path string) bool {
	return strings.HasSuffix(path, ".md")
}

// defaultIgnoreDir reports whether a directory is skipped by default:
// .git, node_modules, .ctxls and every name starting with a dot.
func defaultIgnoreDir(path string) bool {
	name := filepath.Base(path)
	return name == "node_modules" || strings.HasPrefix(name, ".")
}

// Watcher reports changes below its roots and to its extra files on the
// channel returned by [Watcher.Batches]. All of its methods are safe for
// concurrent use.
type Watcher struct {
	opts Options
	log  *slog.Logger
	fsw  *fsnotify.Watcher // nil when inotify could not start: everything is polled

	batches   chan Batch
	wake      chan struct{}
	done      chan struct{}
	runDone   chan struct{}
	drainDone chan struct{}
	closeOnce sync.Once
	closeErr  error

	pmu  sync.Mutex
	pend pending

	// acc holds the differences of the batch being built, across the
	// applications of one burst; only the run goroutine touches it.
	acc       *builder
	accRescan bool

	// extraSet holds Options.Files; it never changes after New.
	extraSet map[string]bool

	// smu guards the state below against Files; only the run goroutine
	// (and New, before it starts) writes it.
	smu sync.RWMutex
	state
}

// pending collects what happened since the last batch was delivered.
//
// The events of a batch are applied to the state (re-stat'ed, new
// directories watched and read) after a short quiet time, but the batch is
// delivered only when the burst they belong to is over (see due). Applying
// early matters when directories are created: files written into a new
// directory raise no event until it is watched, so a checkout that creates
// directories would otherwise look over after its first mkdir.
type pending struct {
	named  map[string]bool // path → named by a content event (not a mere chmod or hint); not applied yet
	rescan bool            // a rescan is requested; not applied yet

	// The burst: what happened since the last batch was delivered, across
	// the applications of named. first is zero when nothing did.
	first time.Time // the first event
	last  time.Time // the last event, or the last time a directory read found entries no event named
	grew  time.Time // the last time a path joined that the burst had not named
	paths int       // paths named (again after each application) or found
}

// idle reports whether nothing waits to be applied.
// add records an event at now naming path (or a rescan when path is "").
// It reports whether nothing waited to be applied before, so that the run
// goroutine must be woken.
func (p *pending) add(now time.Time, path string, strong bool) bool {
	idle := p.idle()
	if p.first.IsZero() {
		p.first = now
	}
	p.last = now
	if path == "" {
		p.rescan = true
		p.grew = now
		return idle
	}
	old, ok := p.named[path]
	if !ok {
		p.grew = now
		p.paths++
	}
	p.named[path] = old || strong
	return idle
}

// found records that applying the burst found n entries no event named.
func (p *pending) found(now time.Time, n int) {
	if n > 0 && !p.first.IsZero() {
		p.last, p.grew = now, now
		p.paths += n
	}
}

// take hands out what waits to be applied.
func (p *pending) take() request {
	req := request{named: p.named, rescan: p.rescan}
	p.named = make(map[string]bool)
	p.rescan = false
	return req
}

// due returns when the burst is over: after a quiet time following the
// last event (longer once the burst names many paths); or once MaxWait has
// passed, unless the burst is still growing; or at the latest after
// MaxBurst.
func (p *pending) due(debounce, maxWait, maxBurst time.Duration) time.Time {
	quiet := debounce
	if p.paths >= burstPaths || p.rescan {
		quiet *= burstQuiet
	}
	due := p.last.Add(quiet)
	soft := p.first.Add(maxWait)
	if g := p.grew.Add(quiet); g.After(soft) {
		soft = g // new paths keep coming: hold the batch
	}
	if soft.Before(due) {
		due = soft
	}
	if hard := p.first.Add(maxBurst); hard.Before(due) {
		due = hard
	}
	return due
}

// next says what the run goroutine does at now: apply req to the state
// (when not empty), then deliver the batch, which ends the burst; or wait
// before asking again. When the burst looks over, what waits is applied
// before deciding, since what that finds may show the burst goes on;
// final says this was done, so that a stream of events cannot postpone
// the decision.
func (p *pending) next(now time.Time, o *Options, final bool) (req request, deliver bool, wait time.Duration) {
	if p.first.IsZero() {
		return request{}, false, 0
	}
	due := p.due(o.Debounce, o.MaxWait, o.MaxBurst)
	if !now.Before(due) {
		if !p.idle() {
			req = p.take()
			if !final {
				return req, false, 0
			}
		}
		*p = pending{named: p.named}
		return req, true, 0
	}
	if p.idle() {
		return request{}, false, due.Sub(now)
	}
	if apply := p.last.Add(o.Debounce); now.Before(apply) {
		return request{}, false, min(apply.Sub(now), due.Sub(now))
	}
	return p.take(), false, 0
}

// New starts watching. It reads every root once before returning, so
// [Watcher.Files] is complete at once and later batches are differences from
// that first scan; for a large tree call it off the request path.
func New(opts Options) (*Watcher, error) {
	if opts.Match == nil {
		opts.Match = defaultMatch
	}
	if opts.IgnoreDir == nil {
		opts.IgnoreDir = defaultIgnoreDir
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = defaultMaxWait
	}
	if opts.MaxWait < opts.Debounce {
		opts.MaxWait = opts.Debounce
	}
	if opts.MaxBurst <= 0 {
		opts.MaxBurst = defaultMaxBurst
	}
	if opts.MaxBurst < opts.MaxWait {
		opts.MaxBurst = opts.MaxWait
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = defaultPollInterval
	}
	if opts.QuietPoll <= 0 {
		opts.QuietPoll = 10 * opts.PollInterval
	}
	opts.QuietPoll = max(opts.QuietPoll, opts.PollInterval)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	roots, err := absPaths(opts.Roots)
	if err != nil {
		return nil, err
	}
	files, err := absPaths(opts.Files)
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 && len(files) == 0 {
		return nil, errors.New("watcher: no roots or files to watch")
	}

	w := &Watcher{
		opts:    opts,
		log:     opts.Logger,
		batches: make(chan Batch),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		runDone: make(chan struct{}),
		pend:    pending{named: make(map[string]bool)},
		acc:     newBuilder(),
	}
	w.state.init(roots, files)
	w.extraSet = make(map[string]bool, len(files))
	for _, f := range files {
		w.extraSet[f] = true
	}

	fsw, err := fsnotify.NewWatcher()
	switch {
	case err == nil:
		w.fsw = fsw
	case isLimitErr(err):
		w.limitLogged = true
		msg := "file watching unavailable: the inotify instance limit is reached (fs.inotify.max_user_instances); " +
			"all directories are rescanned periodically instead. Raise it with: sudo sysctl fs.inotify.max_user_instances=512"
		w.log.Warn(msg, "err", err, "interval", opts.PollInterval)
		if opts.OnLimit != nil {
			opts.OnLimit(msg)
		}
	default:
		return nil, fmt.Errorf("watcher: start inotify: %w", err)
	}

	w.initialScan()

	if w.fsw != nil {
		w.drainDone = make(chan struct{})
		go w.drain()
	}
	go w.run()
	return w, nil
}

func absPaths(in []string) ([]string, error) {
	var out []string
	for _, p := range in {
		if p == "" {
			continue
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("watcher: resolve %s: %w", p, err)
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// Batches returns the channel on which batches are delivered, one at a time.
// While nobody receives, later events keep being coalesced. The channel is
// closed by [Watcher.Close].
func (w *Watcher) Batches() <-chan Batch { return w.batches }

// Notify reports paths that changed according to someone else (an LSP
// client's workspace/didChangeWatchedFiles). They join the current debounce
// window and are re-stat'ed like the watcher's own events; a path whose size,
// modification time and inode are unchanged since the watcher last looked is
// not reported again, so a change seen both by the watcher and by the client
// comes out once. Relative paths and paths outside the roots and files are
// ignored.
func (w *Watcher) Notify(paths ...string) {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			w.log.Debug("watcher: ignoring relative path in notification", "path", p)
			continue
		}
		w.note(filepath.Clean(p), false)
	}
}

// Rescan asks for every directory to be read again at the end of the current
// debounce window; the batch that follows has Rescan set.
func (w *Watcher) Rescan() {
	w.pmu.Lock()
	signal := w.pend.add(w.opts.Clock.Now(), "", false)
	w.pmu.Unlock()
	if signal {
		w.signal()
	}
}

// Waiting reports whether an event naming path (a file or directory below
// a root) has been received and not yet applied. Events are received in
// the order the kernel gives them, and with a manual [Clock] nothing is
// applied until the clock moves, so a test that writes a last file after
// a burst knows, once that file is waiting, that the whole burst has
// arrived.
func (w *Watcher) Waiting(path string) bool {
	w.pmu.Lock()
	defer w.pmu.Unlock()
	_, ok := w.pend.named[filepath.Clean(path)]
	return ok
}

// Watched returns the directories watched through the kernel, sorted. The
// other directories below the roots that are not ignored are polled (or,
// for a Sparse watcher, quiet).
func (w *Watcher) Watched() []string {
	w.smu.RLock()
	defer w.smu.RUnlock()
	out := make([]string, 0, len(w.watches))
	for p := range w.watches {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Files returns the files the watcher knows to exist, sorted: the state as
// of the last time it looked at the disk, which may be ahead of the batches
// delivered (a burst is applied as it comes and delivered once over).
func (w *Watcher) Files() []string {
	w.smu.RLock()
	defer w.smu.RUnlock()
	return w.state.files()
}

// Close stops watching and returns once every goroutine the watcher started
// has ended; the channel returned by Batches is then closed. It is safe to
// call more than once.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.done)
		<-w.runDone
		if w.fsw != nil {
			if err := w.fsw.Close(); err != nil {
				w.closeErr = fmt.Errorf("watcher: close inotify: %w", err)
			}
			<-w.drainDone
		}
	})
	return w.closeErr
}

func (p *pending) idle() bool { return len(p.named) == 0 && !p.rescan }

// note records that path may have changed. strong marks events that imply a
// write (create, write, remove, rename): such a path is reported as modified
// even if its size and times look unchanged.
func (w *Watcher) note(path string, strong bool) {
	select {
	case <-w.done:
		return
	default:
	}
	now := w.opts.Clock.Now()
	w.pmu.Lock()
	signal := w.pend.add(now, path, strong)
	w.pmu.Unlock()
	if signal {
		w.signal()
	}
}

func (w *Watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// drain moves fsnotify's events into the pending set. It never calls into
// fsnotify (Add takes a lock the event reader holds while it reports errors)
// and never blocks on the run goroutine.
func (w *Watcher) drain() {
	defer close(w.drainDone)
	events, errs := w.fsw.Events, w.fsw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			name := filepath.Clean(ev.Name)
			if ev.Op == fsnotify.Write && !w.opts.Match(name) && !w.extraSet[name] {
				// Writes name files only (a directory's own changes come
				// as create, remove, rename or attribute events), and
				// this one does not matter: a build log written in a
				// loop must not hold every batch back until MaxWait.
				continue
			}
			w.note(name, ev.Op&^fsnotify.Chmod != 0)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			w.handleError(err)
		}
	}
}

func (w *Watcher) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("watcher: file events were lost (kernel queue overflow); rescanning everything")
		w.Rescan()
		return
	}
	w.log.Debug("watcher: fsnotify error", "err", err)
}

// run owns the watcher's state: it applies events after a short quiet
// time, delivers a batch when the burst is over, and polls what could not
// be watched.
func (w *Watcher) run() {
	defer close(w.runDone)
	defer close(w.batches)

	clock := w.opts.Clock
	// A timer that fires sends on its channel; a stale send from a timer
	// stopped too late only makes step look again, which is harmless.
	fired := func(ch chan struct{}) func() {
		return func() {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	timerC := make(chan struct{}, 1)
	stopTimer := func() bool { return false }
	defer func() { stopTimer() }()
	var armed time.Time // when the timer fires; zero when stopped
	arm := func(d time.Duration) {
		stopTimer()
		armed = clock.Now().Add(d)
		stopTimer = clock.AfterFunc(d, fired(timerC))
	}
	// step applies what is due and reports whether the batch is to be
	// delivered; otherwise it sets the timer for the next step, if any.
	step := func() bool {
		for applied := false; ; {
			now := clock.Now()
			w.pmu.Lock()
			req, deliver, wait := w.pend.next(now, &w.opts, applied)
			w.pmu.Unlock()
			if !req.empty() {
				w.flush(req)
				applied = true
			}
			switch {
			case deliver:
				return true
			case wait > 0:
				arm(wait)
				return false
			case req.empty():
				return false // nothing happened
			}
		}
	}
	pollC := make(chan struct{}, 1)
	stopPoll := func() bool { return false }
	defer func() { stopPoll() }()
	polling := false

	for {
		if !polling && w.needsPoll() {
			stopPoll = clock.AfterFunc(w.opts.PollInterval, fired(pollC))
			polling = true
		}
		select {
		case <-w.done:
			return
		case <-w.wake:
			// Something waits to be applied: step after the debounce,
			// or sooner if the timer was set for later.
			if armed.IsZero() || armed.Sub(clock.Now()) > w.opts.Debounce {
				arm(w.opts.Debounce)
			}
			continue
		case <-timerC:
			armed = time.Time{}
			if !step() {
				continue
			}
		case <-pollC:
			polling = false
			w.flush(request{poll: true})
			w.pmu.Lock()
			bursting := !w.pend.first.IsZero()
			w.pmu.Unlock()
			if bursting {
				continue // delivered with the burst
			}
		}
		b := w.acc.batch(w.accRescan)
		w.acc, w.accRescan = newBuilder(), false
		if len(b.Changes) == 0 && !b.Rescan {
			continue
		}
		select {
		case w.batches <- b:
		case <-w.done:
			return
		}
	}
}

// flush applies req to the state under the state lock, adding the
// differences to the batch being built, and tells the burst about entries
// found that no event named.
func (w *Watcher) flush(req request) {
	w.smu.Lock()
	found := w.acc.found
	w.apply(req, w.acc)
	found = w.acc.found - found
	w.smu.Unlock()
	w.accRescan = w.accRescan || req.rescan
	w.pmu.Lock()
	w.pend.found(w.opts.Clock.Now(), found)
	w.pmu.Unlock()
}

// isLimitErr reports whether err means the kernel ran out of watches or
// inotify instances.
func isLimitErr(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
