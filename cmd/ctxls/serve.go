package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sync"

	"github.com/ctxls/ctxls/lsp"
	"github.com/ctxls/ctxls/providers/indexcache"
)

// runServe runs the language server over stdin and stdout.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	fs.Bool("stdio", true, "speak LSP over stdin and stdout (the only transport; accepted for editors that pass it)")
	verbose := fs.Bool("v", false, "log debug messages to stderr")
	dir := fs.String("dir", "", "workspace directory when the client names none (default: the current directory)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the session to this file when the server exits")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{msg: "serve takes no arguments"}
	}
	// The start allocates a few tens of megabytes, the preview of the
	// workspace, before the first diagnostics: under the server's policy
	// from Go's 4 MB heap that is a dozen collections on the way. The
	// floor of a check holds until those diagnostics are out.
	lift := setCheckGC()
	log := newServerLogger(stderr, slog.LevelInfo, *verbose)
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	cacheDir, cacheVersion := indexCache(log)
	srv := lsp.New(lsp.Options{Logger: log, Dir: *dir, Version: buildVersion(), Reclaim: debug.FreeOSMemory, Idle: collectIfDue, Started: lift, CacheDir: cacheDir, CacheVersion: cacheVersion})
	err = srv.Serve(ctx, stdin, stdout)
	if errors.Is(err, lsp.ErrExitWithoutShutdown) {
		return exitError(1)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// startServer sets the memory policy of a long-running server and returns
// its logger, which writes messages of level and above to w, or with
// verbose the debug messages too.
func startServer(w io.Writer, level slog.Level, verbose bool) *slog.Logger {
	setServerGC()
	return newServerLogger(w, level, verbose)
}

// newServerLogger returns the logger of a server, which writes messages
// of level and above to w, or with verbose the debug messages too.
func newServerLogger(w io.Writer, level slog.Level, verbose bool) *slog.Logger {
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// serverGCPercent is the GOGC of the language server, unless the GOGC
// environment variable sets one.
const serverGCPercent = 50

// serverMemoryLimit is the soft memory limit of the language server,
// unless the GOMEMLIMIT environment variable sets one.
const serverMemoryLimit = 384 << 20

// setServerGC sets the memory policy of a long-running server; ctxls bench
// uses it too, so that it measures what the server does.
//
// It lowers GOGC: the heap is mostly the library model, which lives as
// long as the process; the default of 100 lets the heap grow to twice the
// model before a collection, so the server would keep as much memory in
// garbage as in the model. Past the cold index it allocates little per
// request, so collecting twice as often costs little CPU.
//
// The server and the bench also return the memory a full index used
// (parsed trees, scanner buffers, the replaced model) to the operating
// system once it is done, through debug.FreeOSMemory as their Reclaim and
// AfterIndex options: the runtime would otherwise keep it resident until
// its background scavenger caught up, minutes later.
//
// It sets a soft memory limit: parsing a document of hundreds of
// thousands of references makes several times its model in short-lived
// garbage, and requests that arrive together each add theirs, so the heap
// can reach twice the limit GOGC alone implies before a cycle runs. Near
// the limit the runtime collects sooner (spending at most half the CPU on
// it), which keeps the resident size near the live model. The limit is
// soft: a larger live model still gets the memory it needs.
func setServerGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serverMemoryLimit)
	}
}

// checkHeapFloor is the memory below which a check collects no garbage.
// A check of a repository of mostly source files (a hundred thousand
// files, two thousand READMEs) holds some 16 MB live; from Go's 4 MB
// start, the server's GOGC of 50 runs fifteen cycles on the way there,
// a quarter of the command's CPU time. Below the floor a check ends
// before its first cycle or after one; a library of 10,000 topics passes
// it early and then runs under the server's policy.
const checkHeapFloor = 64 << 20

// setCheckGC sets the memory policy of a check: none of the runtime's
// collections until the process uses checkHeapFloor, then the server's
// (setServerGC). lift sets the server's policy at once, when the floor
// is still in force: a caller calls it when the check is done, so that
// the floor holds for no other work of the process. A GOGC or GOMEMLIMIT
// environment variable is obeyed instead of the floor.
func setCheckGC() (lift func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		setServerGC()
		return func() {}
	}
	var once sync.Once
	lift = func() { once.Do(setServerGC) }
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(checkHeapFloor)
	// The first cycle, at the floor, frees the sentinel, and its cleanup
	// lifts the floor: otherwise every allocation past the floor would
	// run the collector again. The sentinel holds a pointer, so that it
	// is not one of the tiny objects the runtime packs together, which
	// may stay reachable through their neighbours.
	sentinel := new(*int)
	runtime.AddCleanup(sentinel, func(lift func()) { lift() }, lift)
	return lift
}

// collectIfDue collects garbage now when more than half of the room the
// GC allows before its next cycle is used. The server calls it when it has
// published the diagnostics of an edit and nothing else came in: the
// cycle then runs while the user pauses, instead of on the next edit,
// which it would slow by a third to a half.
func collectIfDue() {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			return // a runtime without these metrics: leave the GC alone
		}
	}
	live, goal, used := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	if goal > live && used > live && used-live > (goal-live)/2 {
		runtime.GC()
	}
}

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// indexCache returns the directory and build identity of the index cache,
// or "" when there is no cache directory.
func indexCache(log *slog.Logger) (dir, build string) {
	dir, err := indexcache.Dir()
	if err != nil {
		log.Warn("no index cache", "err", err)
		return "", ""
	}
	return dir, version + " " + indexcache.BuildID()
}
