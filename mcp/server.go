// Package mcp serves a live workspace's context library to coding agents
// over the Model Context Protocol: tools to list, search, load and check
// context within a token budget, and every topic as a resource.
//
// It is the protocol edge beside lsp/: the tools are thin adapters over
// providers/ops and the workspace is the same live, watched workspace the
// language server uses, so the resource list follows the disk and clients
// are told when it changes (notifications/resources/list_changed).
package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/memo"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
)

// Options configure a Server.
type Options struct {
	// Dir is the workspace directory.
	Dir string
	// Version is reported to clients as the server's version.
	Version string
	// Logger receives warnings and debug messages; nil discards.
	Logger *slog.Logger
	// NoWatch leaves the file watcher off: the library is what Dir held
	// when the server started.
	NoWatch bool
	// Debounce is the watcher's quiet time; zero means its default.
	Debounce time.Duration
}

// Server is an MCP server over one workspace. Its methods are safe for
// concurrent use.
type Server struct {
	ws  *workspace.Workspace
	ops *ops.Ops
	srv *sdk.Server
	log *slog.Logger
	// ready is set once the fields above are; updates of the workspace
	// wait for it.
	ready atomic.Bool
	// refreshMu serialises refresh, called by both watchers.
	refreshMu sync.Mutex
	// gen counts the changes of what the tools answer from: the library,
	// the agent files and the served topics. It is raised after each
	// change is applied, so an answer computed at gen reflects at least
	// that change, and answers kept for an older gen are stale.
	gen atomic.Uint64
	// catalogs and checks keep the answers computed at gen.
	catalogs *memo.Cache[uint64, string, *catalogAnswer]
	checks   *memo.Cache[uint64, string, *checkAnswer]
	// warmc asks the warm goroutine to compute the answers of the current
	// gen; stopWarm stops it and warmed is done once it has.
	warmc    chan struct{}
	stopWarm context.CancelFunc
	warmed   chan struct{}

	// rmu guards resources, what is registered with srv by URI, and
	// served, whether each topic id the resources know is inside its root
	// (replaced, never changed, so readers may keep it).
	rmu       sync.Mutex
	resources map[string]registered
	served    map[string]bool
}

// New indexes the workspace at opts.Dir, starts watching it unless
// opts.NoWatch, and registers the tools and resources.
func New(ctx context.Context, opts Options) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{log: log, resources: make(map[string]registered), served: map[string]bool{},
		catalogs: newAnswerCache[*catalogAnswer](), checks: newAnswerCache[*checkAnswer](),
		warmc: make(chan struct{}, 1), warmed: make(chan struct{})}
	ws, err := workspace.Open(ctx, opts.Dir, workspace.Options{
		Watch:    !opts.NoWatch,
		Logger:   log,
		Debounce: opts.Debounce,
		OnUpdate: func(u workspace.Update) {
			// New syncs once it is ready; what changed before then is in
			// the library it reads. refresh raises gen.
			if s.ready.Load() {
				s.refresh()
			} else {
				s.gen.Add(1)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("mcp server: %w", err)
	}
	s.ws = ws
	s.ops = ops.New(ops.Options{Snapshot: func() ops.Snapshot { return ws.Snapshot() }, Logger: log})
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "ctxls", Title: "ctxls context library", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		// Topics come and go with the disk; say so from the start, so that
		// clients listen for list changes even in an empty workspace.
		HasResources: true,
		HasTools:     true,
	})
	s.addTools()
	s.addResourceTemplates()
	s.ready.Store(true)
	s.syncResources()
	warmCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stopWarm = stop
	go s.warmLoop(warmCtx)
	s.warm()
	return s, nil
}

// instructions tell the agent how the tools fit together.
const instructions = `ctxls serves this project's context library: markdown topics grouped in domains ("domain:topic"), commands and skills.
Use catalog or search to find what exists and what it costs in tokens, then load_context with the refs you need and a budgetTokens bound: it returns the text, what was loaded and what was left out. check reports the library's problems.`

// refresh resyncs the resources with the workspace's snapshot, one
// caller at a time, so that an older sync never replaces a newer one.
func (s *Server) refresh() {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.syncResources()
	s.gen.Add(1)
	s.warm()
}

// warm asks for the answers of the current version to be computed in the
// background; asks that pile up while it works are one.
func (s *Server) warm() {
	select {
	case s.warmc <- struct{}{}:
	default:
	}
}

// warmLoop computes what agents ask for first, the check of the whole
// workspace and the first page of the catalog, after the index and after
// each change, so that a call finds its answer kept rather than paying a
// pass over every file of a large library.
func (s *Server) warmLoop(ctx context.Context) {
	defer close(s.warmed)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.warmc:
		}
		if _, _, err := s.check(ctx, CheckInput{}); err != nil && ctx.Err() == nil {
			s.log.Debug("mcp: check in advance", "err", err)
		}
		if _, _, err := s.catalog(ctx, CatalogInput{}); err != nil && ctx.Err() == nil {
			s.log.Debug("mcp: catalog in advance", "err", err)
		}
	}
}

// Run serves one session over t until the client disconnects or ctx is
// cancelled.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// Close stops watching the workspace.
func (s *Server) Close() error {
	s.stopWarm()
	<-s.warmed
	return s.ws.Close()
}
