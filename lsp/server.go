// Package lsp is the ctxls language server: it speaks the Language Server
// Protocol over a stream and converts between the protocol and the
// providers, which hold all the logic. Each editor feature lives in its own
// file; custom ctxls/* methods are the operations of package ops, dispatched
// by the table in methods.go.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/workspace"
)

// Options configure a Server.
type Options struct {
	// Logger receives the server's own log (stderr for ctxls serve); nil
	// discards. Warnings are also sent to the client as window/logMessage.
	Logger *slog.Logger
	// Dir is the workspace used when the client names no root folder;
	// "" means the current directory.
	Dir string
	// NoWatch turns off the server-side file watcher (tests that drive
	// changes themselves).
	NoWatch bool
	// DiagnosticsDelay is the least time between two publications of the
	// diagnostics of changing documents; 0 means the default of 30 ms. The
	// first change after a pause is published at once.
	DiagnosticsDelay time.Duration
	// Version is reported to the client in serverInfo.
	Version string
	// Reclaim, when set, runs after work that leaves much garbage behind:
	// each full index of the workspace and the first diagnostics of every
	// file. A long-running server returns that memory to the operating
	// system there instead of keeping it resident.
	Reclaim func()
	// Idle, when set, runs when the diagnostics of a change are out and no
	// other change has come for idleDelay: a moment nobody waits on, for
	// housekeeping such as a garbage collection that would otherwise fall
	// on the next keystroke.
	Idle func()
	// Started, when set, runs once the diagnostics of the documents open
	// at start are out (or the preview gave up on them), before the index
	// of the workspace begins: a server can keep a start-up policy until
	// then, such as collecting no garbage while the first answer is due.
	Started func()
	// CacheDir and CacheVersion configure the index cache of the
	// workspace (see library.Options); an empty CacheDir keeps none.
	CacheDir, CacheVersion string

	// indexGate, when set, holds the initial index back until it is
	// closed, after the preview is built: tests see the server between.
	indexGate <-chan struct{}
	// previewGate, when set, holds the library's preview back until it
	// is closed: tests see what is published before it.
	previewGate <-chan struct{}
	// methods are answered beside customMethods: tests add handlers
	// that misbehave.
	methods map[string]method
}

// idleDelay is how long after publishing the diagnostics of a change the
// server waits for the next one before it runs Options.Idle.
const idleDelay = 10 * time.Millisecond

// state is where the server is in the LSP lifecycle.
type state int

const (
	stateNew         state = iota // before initialize
	stateInitialized              // initialize answered
	stateShutdown                 // shutdown answered; only exit is accepted
)

// Server is one language server connection. Create it with New and run it
// with Serve.
type Server struct {
	protocol.UnimplementedServer

	opts   Options
	stderr *slog.Logger                    // the server's own log
	log    *slog.Logger                    // stderr and window/logMessage for warnings
	logq   chan *protocol.LogMessageParams // window/logMessage waiting to be sent

	ctx         context.Context // lives as long as Serve
	conn        jsonrpc2.Conn
	client      protocol.Client
	exited      chan struct{}
	initialized chan struct{} // closed by the initialized notification
	initOnce    sync.Once

	mu       sync.Mutex
	state    state
	exitOnce sync.Once
	shutdown bool // shutdown was requested before exit
	root     string
	enc      document.Encoding
	caps     clientCaps
	settings []byte // ctxls settings from initializationOptions

	// The workspace is opened after initialize; ready closes when it is
	// (wsErr says why it could not be).
	ready chan struct{}
	// Until docsLive, document notifications are kept in early (by path,
	// in earlyOrder) instead of waiting for the index on the read loop.
	docsLive   bool
	early      map[string]*earlyDoc
	earlyOrder []string
	// earlyWake is signalled when an early document changes.
	earlyWake chan struct{}
	// Settings and watched-file events that arrive before docsLive.
	earlySettings []byte
	earlyWatched  []string
	ws            *workspace.Workspace
	ops           *ops.Ops // the operations over ws, which own its run stores
	// live is ws for the workspace's own goroutines, which must not wait
	// for mu: it is held while the workspace is closed.
	live  atomic.Pointer[workspace.Workspace]
	wsErr error

	// stale queues the notifications that tell the client its views are
	// stale (notify.go).
	stale staleViews

	// chains maps the work-done token of each running chain request to the
	// cancel function of that request, for window/workDoneProgress/cancel.
	chains sync.Map
	// memory holds the problems of the memory files' imports (memory.go).
	memory memoryState
	// inlays keeps the priced references of open documents (inlayhints.go).
	inlays *inlayCache

	diags *diagnostics
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	workDoneProgress bool
	resourceRename   bool
	documentChanges  bool
	configuration    bool
	markdown         bool // hover may be markdown (else plain text)
	watchedFiles     bool // the client registers file watchers for the server
	editRange        bool // completion lists may give one edit range for all items
}

// New returns a server.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.DiagnosticsDelay <= 0 {
		opts.DiagnosticsDelay = 30 * time.Millisecond
	}
	s := &Server{
		opts:        opts,
		exited:      make(chan struct{}),
		initialized: make(chan struct{}),
		ready:       make(chan struct{}),
		earlyWake:   make(chan struct{}, 1),
		enc:         document.UTF16,
		stderr:      log,
		logq:        make(chan *protocol.LogMessageParams, logQueue),
		stale:       newStaleViews(),
		inlays:      newInlayCache(),
	}
	s.log = slog.New(&clientLogHandler{next: log.Handler(), s: s})
	s.diags = newDiagnostics(s)
	return s
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without a shutdown request first; LSP asks for exit status 1 then.
var ErrExitWithoutShutdown = errors.New("exit without shutdown")

// Serve answers LSP messages read from in, writing to out, until the client
// sends exit, the input ends or ctx is cancelled.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	st := newStream(pipe{in, out}, s.stderr)
	s.conn = jsonrpc2.NewConn(st, jsonrpc2.WithCodec(codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	go s.sendLogs(ctx)
	s.conn.Go(ctx, s.handler())
	go s.sendStale(ctx)
	select {
	case <-s.exited:
	case <-s.conn.Done():
	case <-st.ended:
		// The client has gone away: the requests in flight are cancelled
		// rather than waited for (the connection ends only once they do).
	case <-ctx.Done():
	}
	cancel()
	s.diags.stop()
	s.closeResources()
	go s.conn.Close() // drains in-flight handlers, which see ctx cancelled
	select {
	case <-s.conn.Done():
	case <-st.closed:
		// Every handler has returned and the stream is closed; only a read
		// that closing cannot interrupt may be left (a blocking stdin), and
		// it reads nothing more that matters.
	case <-time.After(2 * time.Second):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
		if !s.shutdown {
			return ErrExitWithoutShutdown
		}
	default:
	}
	return nil
}

// closeResources closes the workspace and its operations, whose running
// chains record their interruption before the database closes.
func (s *Server) closeResources() {
	s.mu.Lock()
	ws, o := s.ws, s.ops
	s.ws = nil
	s.mu.Unlock()
	if ws != nil {
		if err := ws.Close(); err != nil {
			s.log.Warn("close the workspace", "err", err)
		}
	}
	if o != nil {
		if err := o.Close(); err != nil {
			s.log.Warn("close the run stores", "err", err)
		}
	}
}

// handler is the middleware in front of every request: lifecycle checks,
// cancellation, concurrency and panic recovery.
//
// Handlers never see the connection's per-request context: jsonrpc2 pools
// it and recycles it when the handler returns, which breaks contexts
// derived from it. Each request gets its own context instead, derived from
// the connection's and cancelled by $/cancelRequest.
func (s *Server) handler() jsonrpc2.Handler {
	std := protocol.ServerHandler(s, nil)
	var (
		mu       sync.Mutex
		inflight = map[jsonrpc2.ID]context.CancelFunc{}
	)
	return func(reqCtx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method := strings.Clone(req.Method()) // the frame buffer is reused once the request is released
		call := req.IsCall()
		if method == protocol.MethodCancelRequest {
			if id, ok := cancelID(req.Params()); ok {
				mu.Lock()
				cancel := inflight[id]
				mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
			return nil, nil
		}
		defer func() {
			if r := recover(); r != nil {
				s.stderr.Error("panic in handler", "method", method, "panic", r, "stack", string(debug.Stack()))
				result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
			}
			if !call {
				if err != nil {
					// Through s.log the user sees it too: a didChange that
					// could not be applied leaves the document out of step.
					s.log.Warn("notification failed", "method", method, "err", err)
				}
				result, err = nil, nil // a notification error must not end the connection
			}
		}()
		if err := s.admit(method); err != nil {
			if !call {
				return nil, nil
			}
			return nil, err
		}
		ctx, cancel := context.WithCancel(jsonrpc2.DetachContext(reqCtx))
		defer cancel()
		if call {
			id := req.ID()
			mu.Lock()
			inflight[id] = cancel
			mu.Unlock()
			defer func() {
				mu.Lock()
				delete(inflight, id)
				mu.Unlock()
			}()
			// Requests run concurrently; notifications (document changes)
			// stay in order on the read loop, so a request sees every change
			// sent before it. initialize and shutdown change the state and
			// stay in order too.
			if method != protocol.MethodInitialize && method != protocol.MethodShutdown {
				jsonrpc2.Async(reqCtx)
			}
		}
		ctx, release, err := s.holdHeavy(ctx, method)
		if err != nil {
			return nil, requestError(ctx, err)
		}
		defer release()
		m, ok := customMethods[method]
		if !ok {
			m, ok = s.opts.methods[method]
		}
		if ok {
			params := append([]byte(nil), req.Params()...)
			res, err := m(ctx, s, params)
			if err != nil {
				return nil, requestError(ctx, err)
			}
			return encodeResult(res)
		}
		if strings.HasPrefix(method, "$/") && !call {
			return nil, nil
		}
		res, err := std(ctx, req)
		if err != nil && call && errors.Is(err, jsonrpc2.ErrParse) {
			// The standard dispatcher reports undecodable params as a parse
			// error; they are invalid params of a well-formed message.
			err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", method, err)
		}
		if err != nil {
			return nil, requestError(ctx, err)
		}
		return res, nil
	}
}

// requestError maps a cancelled request's error to RequestCancelled, and
// an error that carries no JSON-RPC code to RequestFailed (the request was
// valid but could not be carried out): left alone it would go out with
// code 0, which is no JSON-RPC code.
func requestError(ctx context.Context, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, protocol.ErrRequestCancelled)) {
		return protocol.ErrRequestCancelled
	}
	var rpc *jsonrpc2.Error
	if !errors.As(err, &rpc) {
		return jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return err
}

// admit checks a message against the lifecycle state.
func (s *Server) admit(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case stateNew:
		if method == protocol.MethodInitialize || method == protocol.MethodExit {
			return nil
		}
		return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized: send initialize first")
	case stateInitialized:
		if method == protocol.MethodInitialize {
			return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
		}
	case stateShutdown:
		if method != protocol.MethodExit {
			return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down")
		}
	}
	return nil
}

// workspaceCtx is workspace that gives up when ctx is done.
func (s *Server) workspaceCtx(ctx context.Context) (*workspace.Workspace, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, protocol.ErrRequestCancelled
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ws == nil {
		if s.wsErr != nil {
			return nil, fmt.Errorf("the workspace could not be opened: %w", s.wsErr)
		}
		return nil, errors.New("the workspace is closed")
	}
	return s.ws, nil
}

// operations returns the operations over the live workspace, waiting for
// the initial index like workspaceCtx.
func (s *Server) operations(ctx context.Context) (*ops.Ops, error) {
	if _, err := s.workspaceCtx(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops, nil
}

// encoding returns the negotiated position encoding.
func (s *Server) encoding() document.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// encodingLocked is encoding for callers holding s.mu.
func (s *Server) encodingLocked() document.Encoding { return s.enc }

// rootDir returns the workspace directory.
func (s *Server) rootDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.root
}

// defaultDir is the workspace used when the client names none.
func (s *Server) defaultDir() string {
	if s.opts.Dir != "" {
		if abs, err := filepath.Abs(s.opts.Dir); err == nil {
			return abs
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
