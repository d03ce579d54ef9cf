// Package workspace is a live workspace session: the library of a directory
// kept in step with the disk by a file watcher, with the editor's open
// documents laid over it and the configuration (.ctxls.yaml and the editor's
// ctxls.* settings) applied.
//
// The watcher covers the whole workspace directory (the library indexes
// every markdown file in it, and a context or command root may appear
// anywhere) except the directories the library never reads (see
// discover.Filter), plus .ctxls.yaml.
// After each quiet period the paths it names are read again and compared
// with what the library holds; only what differs is applied, in one pass per
// batch, so a burst such as a checkout costs one update and a change seen
// both by the watcher and by the client (workspace/didChangeWatchedFiles)
// is applied once.
//
// Open documents are the source of truth for their own text until they are
// closed: changes on disk to an open document are ignored, and closing it
// reads the disk again. Every change, whoever made it, ends in one call of
// Options.OnUpdate that names the files whose content changed and the files
// whose diagnostics may have changed (including those that refer to a
// changed topic).
package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentwatch"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/watcher"
)

// Options configure a Workspace.
type Options struct {
	// Settings is the `ctxls` section of the client's settings; may be nil.
	Settings json.RawMessage
	// Watch starts the file watchers: of the workspace's files, and of
	// the hidden folders agent files live in (see package agentwatch),
	// which the first skips.
	Watch bool
	// Logger receives warnings (watch limit, unreadable directories) and
	// debug messages; nil discards.
	Logger *slog.Logger
	// OnUpdate is called, from a goroutine of the workspace and one call at
	// a time, after every applied change. Updates that pile up while it
	// runs are merged into one.
	OnUpdate func(Update)
	// Progress reports the initial index: files parsed so far and total.
	Progress func(done, total int)
	// AfterIndex runs after each full index of the workspace (see
	// library.Options).
	AfterIndex func()
	// CacheDir and CacheVersion configure the index cache (see
	// library.Options); an empty CacheDir keeps none.
	CacheDir, CacheVersion string

	// Debounce is the quiet time after the last file event before changes
	// are applied. Zero means watcher.DefaultDebounce.
	Debounce time.Duration
	// ReloadThreshold is the number of changed files in one batch above
	// which the whole library is scanned again rather than updated file by
	// file. Zero means 20000.
	ReloadThreshold int
	// MaxWatches caps kernel watches (see watcher.Options); zero: no cap.
	MaxWatches int
	// PollInterval is how often what cannot be watched is rescanned. Zero
	// means the watcher's default, 2s.
	PollInterval time.Duration
	// OnWatchLimit, when set, is called at most once per workspace when
	// directories cannot be watched through the kernel (its inotify watch
	// or instance limit, or MaxWatches) and are rescanned every
	// PollInterval instead. message says so and how to raise the limit;
	// it is logged as a warning too. OnWatchLimit is called from a
	// goroutine of the workspace's watcher and must not block or call the
	// workspace.
	OnWatchLimit func(message string)

	// clock is the watcher's time source (see watcher.Options.Clock);
	// tests of this package set a manual one.
	clock watcher.Clock
}

// defaultReloadThreshold is the default of Options.ReloadThreshold. Applying
// changes file by file stays cheaper than a full scan even when every file
// changed (5,000 of 5,000 topics: about half the time of a scan), so only
// bursts larger than most libraries are rebuilt whole, which bounds the
// memory of one pass.
const defaultReloadThreshold = 20000

// Update says what one applied change touched.
type Update struct {
	// Changed lists absolute paths whose content changed (disk or overlay).
	Changed []string
	// Affected lists absolute paths whose diagnostics may have changed: the
	// changed files and the files referring to them.
	Affected []string
	// Reloaded says the whole library was rebuilt (configuration change,
	// a context or command root appearing or going, a very large burst):
	// every file's diagnostics may have changed, and the snapshots show a
	// new library.
	Reloaded bool
	// Snapshot is the snapshot the changes made: the one to read them in.
	// Later snapshots may exist by the time OnUpdate is called.
	Snapshot *Snapshot
}

func (u *Update) merge(o Update) {
	u.Changed = union(u.Changed, o.Changed)
	u.Affected = union(u.Affected, o.Affected)
	u.Reloaded = u.Reloaded || o.Reloaded
	if o.Snapshot != nil {
		u.Snapshot = o.Snapshot
	}
}

func (u Update) empty() bool { return len(u.Changed) == 0 && len(u.Affected) == 0 && !u.Reloaded }

func union(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return slices.Clone(b)
	}
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

type overlay struct {
	text    string
	version int32
}

// state is the workspace at one moment: the library that changes go
// through and the snapshot requests read. A published state is never
// changed: the writer (holding applyMu) publishes the next one, so that
// readers load it without a lock.
type state struct {
	lib  *library.Library
	snap Snapshot
}

// Snapshot is what a request reads of the workspace: one snapshot of the
// library (its model and the diagnostics of its files) and the editor's
// texts of the open documents, taken at one moment. It never changes: an
// edit or a change on disk makes the next one. A request takes one with
// Workspace.Snapshot and reads everything through it, so that its reads
// agree with each other.
type Snapshot struct {
	lib      *library.Snapshot
	overlays map[string]overlay
	agents   *agents
}

// Library returns the library's model, diagnostics included.
func (s *Snapshot) Library() *library.Snapshot { return s.lib }

// Overlay returns the editor's text of an open document.
func (s *Snapshot) Overlay(path string) (text string, version int32, ok bool) {
	o, ok := s.overlays[filepath.Clean(path)]
	return o.text, o.version, ok
}

// OpenPaths returns the paths of the open documents, in no particular
// order.
func (s *Snapshot) OpenPaths() []string { return slices.Collect(maps.Keys(s.overlays)) }

// Workspace is one live workspace. Its methods are safe for concurrent use.
type Workspace struct {
	dir     string
	cfgPath string
	cur     atomic.Pointer[state]
	opts    Options
	log     *slog.Logger
	// watchLog is log without repeats of a warning: the watcher is started
	// again when the ignored paths change, and the watch limit or an
	// unreadable directory is worth saying once.
	watchLog *slog.Logger
	// changed re-indexes a file the library found changed on reading
	// its text back (library.Options.Changed).
	changed func(path string)

	// parsed keeps the parses of the agent files the snapshots read.
	parsed *agentfiles.Parsed
	// agentWatch follows the agent folders when Options.Watch is set; set
	// once by Open.
	agentWatch *agentwatch.Watcher

	// applyMu serialises every change to the library and to cur, so
	// that overlays, disk changes and configuration changes are applied
	// in one order.
	applyMu  sync.Mutex
	settings *config.Settings // guarded by applyMu

	// updates holds the update waiting for OnUpdate, if any. publish,
	// under applyMu, is its one sender (see publish).
	updates chan Update

	// Notifications from the client while no watcher runs. They come
	// from any goroutine, a request's among them, which must not wait
	// for a change being applied under applyMu: the set has a lock of
	// its own, held only to add to it or take it.
	nmu      sync.Mutex
	notified map[string]bool
	nwake    chan struct{}

	// watcher is the running watcher, set and cleared by the sync
	// goroutine; NotifyWatched passes notifications to it.
	watcher atomic.Pointer[watcher.Watcher]
	rewatch chan struct{}
	// rescan is signalled when the library was rebuilt from the disk,
	// apart from the watcher's batches.
	rescan chan struct{}
	// limitSaid is set once OnWatchLimit was called: the watcher is
	// started again when the configuration changes.
	limitSaid atomic.Bool

	// ctx is cancelled by Close, stopping a pass in progress.
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// Open loads the workspace at dir (the cold index) and, when opts.Watch is
// set, starts watching it in the background.
func Open(ctx context.Context, dir string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	abs = filepath.Clean(abs)
	// A folder that is gone or unreadable would be served as an empty
	// library, which looks like one without problems.
	if err := checkDir(abs); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = watcher.DefaultDebounce
	}
	if opts.ReloadThreshold <= 0 {
		opts.ReloadThreshold = defaultReloadThreshold
	}
	settings, err := config.ParseSettings(opts.Settings)
	if err != nil {
		log.Warn("ignoring the client's ctxls settings", "err", err)
		settings = &config.Settings{}
	}
	cfg, problems, err := effectiveConfig(abs, settings)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	// A file the library finds changed when it reads its text back is
	// handled as the watcher's events are; the library exists before the
	// workspace does.
	var self atomic.Pointer[Workspace]
	changed := func(p string) {
		if w := self.Load(); w != nil {
			// Not from the reader's goroutine: it may be an Apply's,
			// whose caller holds applyMu.
			go w.NotifyWatched([]string{p})
		}
	}
	lib, err := load(ctx, abs, cfg, problems, reflect.DeepEqual(settings, &config.Settings{}), library.Options{Logger: log, Progress: opts.Progress, AfterIndex: opts.AfterIndex, CacheDir: opts.CacheDir, Version: opts.CacheVersion, Changed: changed})
	if err != nil {
		return nil, err
	}
	w := &Workspace{
		dir:      lib.Snapshot().Dir(),
		cfgPath:  filepath.Join(lib.Snapshot().Dir(), config.FileName),
		opts:     opts,
		log:      log,
		watchLog: slog.New(&onceHandler{Handler: log.Handler(), seen: &seenSet{m: make(map[string]bool)}}),
		settings: settings,
		updates:  make(chan Update, 1),
		notified: make(map[string]bool),
		nwake:    make(chan struct{}, 1),
		rewatch:  make(chan struct{}, 1),
		rescan:   make(chan struct{}, 1),
		done:     make(chan struct{}),
		changed:  changed,
		parsed:   &agentfiles.Parsed{},
	}
	self.Store(w)
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.cur.Store(&state{lib: lib, snap: Snapshot{lib: lib.Snapshot(), agents: w.agents(nil)}})
	w.logWarnings(nil)
	w.wg.Add(2)
	go w.deliver()
	go w.sync(start)
	if opts.Watch {
		// The hidden folders agent files live in, which the watcher above
		// skips: a skill created on disk makes the next snapshot as an
		// edit does.
		aw, err := agentwatch.Watch(w.dir, agentwatch.Options{Debounce: opts.Debounce, Logger: log}, func(paths []string) { w.AgentFilesChanged(paths) })
		if err != nil {
			log.Warn("workspace: agent folders are not watched; skills and rules changed on disk are read when a client reports them", "err", err)
		}
		w.agentWatch = aw
	}
	return w, nil
}

// Preview looks at the workspace at dir under the configuration Open
// would use, to diagnose open documents while Open indexes it (see
// library.Preview). Of opts it uses Settings, Logger, CacheDir and
// CacheVersion.
func Preview(ctx context.Context, dir string, opts Options) (*library.Preview, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	settings, err := config.ParseSettings(opts.Settings)
	if err != nil {
		settings = &config.Settings{}
	}
	cfg, _, err := effectiveConfig(filepath.Clean(abs), settings)
	if err != nil {
		return nil, err
	}
	return library.NewPreview(ctx, abs, cfg, library.Options{Logger: opts.Logger, CacheDir: opts.CacheDir, Version: opts.CacheVersion})
}

// Config returns the configuration of the workspace at dir with the
// client's settings (the `ctxls` section; may be nil) laid over its
// .ctxls.yaml, as Open would use it, without reading anything else.
// Settings that do not parse are left out, as Preview does.
func Config(dir string, settings json.RawMessage) (*config.Config, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	st, err := config.ParseSettings(settings)
	if err != nil {
		st = &config.Settings{}
	}
	cfg, _, err := effectiveConfig(filepath.Clean(abs), st)
	return cfg, err
}

// load scans the workspace with cfg, recording problems. plain says that no
// client settings apply, so that the library may read .ctxls.yaml itself.
func load(ctx context.Context, dir string, cfg *config.Config, problems []config.Problem, plain bool, opts library.Options) (*library.Library, error) {
	var lib *library.Library
	var err error
	if plain {
		// The library reads .ctxls.yaml itself and keeps its problems.
		lib, err = library.Load(ctx, dir, nil, opts)
	} else {
		lib, err = library.Load(ctx, dir, cfg, opts)
		if err == nil && len(problems) > 0 {
			// Load with an explicit configuration records no problems.
			_, err = lib.SetConfig(ctx, cfg, problems)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", dir, err)
	}
	return lib, nil
}

// effectiveConfig reads dir/.ctxls.yaml and lays the settings over it.
func effectiveConfig(dir string, s *config.Settings) (*config.Config, []config.Problem, error) {
	fileCfg, problems, err := config.Load(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("configuration of %s: %w", dir, err)
	}
	cfg, more := fileCfg.Apply(s)
	return cfg, append(problems, more...), nil
}

// Snapshot returns the workspace as it is now. The library behind it
// changes as the workspace follows the disk: file changes give it its next
// snapshot, while a configuration change or a new or removed context root
// replaces it by a library built aside (with the open documents laid over
// it), so that no snapshot shows the disk's text of an open document. Take
// one snapshot per request rather than keeping it.
func (w *Workspace) Snapshot() *Snapshot { return &w.cur.Load().snap }

// Dir returns the workspace directory (absolute, cleaned).
func (w *Workspace) Dir() string { return w.dir }

// SetSettings lays new client settings (the `ctxls` section) over
// .ctxls.yaml and rebuilds the library when the effective configuration
// changed.
func (w *Workspace) SetSettings(ctx context.Context, raw json.RawMessage) error {
	s, err := config.ParseSettings(raw)
	if err != nil {
		return err
	}
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	if w.closed() {
		return errClosed
	}
	w.settings = s
	_, err = w.reconfigure(ctx, false)
	return err
}

// Close stops watching and waits for the workspace's goroutines. OnUpdate is
// not called after Close returns; Close must not be called from OnUpdate.
// It is safe to call more than once.
func (w *Workspace) Close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.done)
		w.cancel()
		w.wg.Wait()
		if wt := w.watcher.Swap(nil); wt != nil {
			err = wt.Close()
		}
		if w.agentWatch != nil {
			err = errors.Join(err, w.agentWatch.Close())
		}
	})
	return err
}

func (w *Workspace) closed() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// publish queues an update for OnUpdate, merged with the one waiting if
// any. The caller holds applyMu, which makes it the one sender on
// w.updates: once it took the update waiting, nothing can fill the
// channel before its send, which therefore never blocks.
func (w *Workspace) publish(u Update) {
	if u.empty() || w.opts.OnUpdate == nil {
		return
	}
	u.Snapshot = w.Snapshot()
	select {
	case waiting := <-w.updates:
		waiting.merge(u)
		u = waiting
	default:
	}
	w.updates <- u
}

// deliver calls OnUpdate with what publish queued.
func (w *Workspace) deliver() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case u := <-w.updates:
			if !w.closed() {
				w.opts.OnUpdate(u)
			}
		}
	}
}

// logWarnings logs the library's workspace warnings that are not in seen.
func (w *Workspace) logWarnings(seen []discover.Warning) {
	for _, wa := range w.Snapshot().Library().Warnings() {
		if !slices.Contains(seen, wa) {
			w.log.Warn("workspace: "+wa.Message, "path", wa.Path)
		}
	}
}

// errClosed is returned by operations on a closed workspace.
var errClosed = errors.New("workspace is closed")

// checkDir fails unless dir is a directory whose entries can be read.
func checkDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("workspace folder %s does not exist", dir)
	case err != nil:
		return fmt.Errorf("workspace folder %s cannot be read: %w", dir, err)
	case !info.IsDir():
		return fmt.Errorf("workspace folder %s is not a directory", dir)
	}
	f, err := os.Open(dir)
	if err == nil {
		_, err = f.ReadDir(1)
		f.Close()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("workspace folder %s cannot be read: %w", dir, err)
	}
	return nil
}
