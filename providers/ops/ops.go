// Package ops is the typed operations of ctxls: one request type and one
// response type per operation, each a method taking a context and the
// request. The language server's custom methods, the command line's JSON
// output and the MCP tools are adapters over it, so the three front ends
// agree on names, shapes and errors.
//
// An Ops reads the snapshot its source returns, once per operation, so the
// same type serves a live workspace (the language server, MCP) and a
// directory loaded once (the command line).
package ops

//go:generate go run ./internal/protocolts -o ../../vscode-extension/src/protocol.gen.ts

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/agentload"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/memo"
	"github.com/ctxls/ctxls/providers/refcost"
	"github.com/ctxls/ctxls/providers/runs/chain"
	"github.com/ctxls/ctxls/providers/runs/trust"
)

// The kinds of failure an operation reports (see package errkind):
// errors returned by operations match one of them with errors.Is when the
// kind is known, and keep their own message. ErrorCode gives each its
// code in the front ends' protocols.
const (
	// ErrInvalid is a request that does not make sense: a missing or bad
	// field, a name that escapes the context root, a step out of order.
	ErrInvalid = errkind.Invalid
	// ErrNotFound is a request for something that does not exist: an
	// unknown execution, command or conversation.
	ErrNotFound = errkind.NotFound
	// ErrConflict is a request that collides with work in progress, such
	// as a chain already running in the execution.
	ErrConflict = errkind.Conflict
	// ErrUnavailable is a workspace that is closed or could not be opened.
	ErrUnavailable = errkind.Unavailable
	// ErrConsent is a chain that would run an exec executor of the
	// workspace's .ctxls.yaml the user has not agreed to (see GrantTrust).
	ErrConsent = errkind.Consent
)

// withKind marks err as of kind, keeping its message.
func withKind(kind errkind.Kind, err error) error { return errkind.Mark(kind, err) }

// invalidf returns an ErrInvalid error with a message of its own.
func invalidf(format string, args ...any) error {
	return withKind(ErrInvalid, fmt.Errorf("invalid params: "+format, args...))
}

// field is a string field of a request that must not be blank: its JSON
// name and its value.
type field struct{ name, value string }

// require returns an ErrInvalid error naming the first of fields that is
// blank.
func require(fields ...field) error {
	for _, f := range fields {
		if strings.TrimSpace(f.value) == "" {
			return invalidf("%s is required", f.name)
		}
	}
	return nil
}

// Warning is a problem attached to a response. Code is stable and
// machine-readable; Message is for people.
type Warning = contextapi.Warning

// List is the shape of every list response: items and warnings, neither
// ever null.
type List[T any] = contextapi.List[T]

// newList returns a list of items and warnings, with empty slices for nil.
func newList[T any](items []T, warnings []Warning) List[T] {
	if items == nil {
		items = []T{}
	}
	if warnings == nil {
		warnings = []Warning{}
	}
	return List[T]{Items: items, Warnings: warnings}
}

// Options configure an Ops.
type Options struct {
	// Snapshot returns what an operation reads; it is called once per
	// operation and must not return nil.
	Snapshot func() Snapshot
	// Executor, when set, runs chain steps instead of the executor the
	// configuration names.
	Executor chain.Executor
	// ExecutionsChanged, when set, is called after an operation of this
	// Ops changed the executions: created, recorded, ran, made current or
	// deleted one.
	ExecutionsChanged func()

	// Logger receives the log of the stores; nil discards.
	Logger *slog.Logger
	// Trust remembers the exec executors the user agreed to run; nil
	// means the store in the user's configuration directory
	// (trust.Default).
	Trust *trust.Store
}

// Snapshot is the workspace at one moment (a *workspace.Snapshot): the
// library with the diagnostics of its files, the editor's texts of the
// open documents, which win over the files on disk, and the agent files
// (skills, rules, agent commands, memory files) as they are then.
//
// An operation takes one snapshot when it starts and reads everything
// from it. What the operations derive from a snapshot (a session's cost)
// is kept for it, so the dynamic type of a Snapshot must be comparable
// (a pointer) and a snapshot must not change.
type Snapshot interface {
	Library() *library.Snapshot
	Overlay(path string) (text string, version int32, ok bool)
	// AgentFiles returns the agent files of the snapshot, read once for
	// it whoever asks first; nil with no error when it has none.
	AgentFiles(ctx context.Context) (*agentfiles.Set, error)
}

// Static returns the Options.Snapshot of a library that does not change
// and of which no document is open, as a command that answers and exits
// has: one snapshot, whose agent files are read from the library's
// directory the first time an operation asks.
func Static(lib *library.Snapshot) func() Snapshot {
	s := &static{lib: lib}
	return func() Snapshot { return s }
}

// StaticWith is Static with the agent files read already; agents may be
// nil for none.
func StaticWith(lib *library.Snapshot, agents *agentfiles.Set) func() Snapshot {
	s := &static{lib: lib, done: true, agents: agents}
	return func() Snapshot { return s }
}

type static struct {
	lib *library.Snapshot

	mu     sync.Mutex
	done   bool
	agents *agentfiles.Set
	err    error
}

func (s *static) Library() *library.Snapshot                         { return s.lib }
func (*static) Overlay(string) (text string, version int32, ok bool) { return "", 0, false }

// AgentFiles reads the agent files once; a reading stopped by its
// caller's ctx is not kept, so the next caller reads again.
func (s *static) AgentFiles(ctx context.Context) (*agentfiles.Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.agents, s.err
	}
	set, err := agentfiles.Load(ctx, s.lib.Dir(), s.lib.Config())
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		err = fmt.Errorf("load the agent files: %w", err)
	}
	s.agents, s.err, s.done = set, err, true
	return set, err
}

// Ops is the operations over one workspace. It is safe for concurrent
// use.
type Ops struct {
	opts Options
	log  *slog.Logger
	prov *contextapi.Provider
	runs runs
	// costs shares the pricing of documents among requests.
	costs *refcost.Cache
	// sessions keeps the session costs of the latest snapshot asked
	// about, each computed once however many requests ask at once.
	sessions *memo.Cache[Snapshot, sessionKey, *agentload.Cost]
	// heavySem holds a token per heavy request in progress.
	heavySem chan struct{}
	// trustErr is why there is no store of agreed executors; every exec
	// executor of the workspace is refused then.
	trustErr error
}

// heavyRequests is how many requests that price whole documents run at
// once.
const heavyRequests = 2

// New returns the operations over the snapshots that opts.Snapshot returns.
func New(opts Options) *Ops {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lib := func() *library.Snapshot { return opts.Snapshot().Library() }
	o := &Ops{opts: opts, log: log, prov: contextapi.New(lib),
		costs: refcost.NewCache(listLimit), sessions: memo.New[Snapshot, sessionKey, *agentload.Cost](sessionEntries, nil),
		heavySem: make(chan struct{}, heavyRequests)}
	if o.opts.Trust == nil {
		o.opts.Trust, o.trustErr = trust.Default()
	}
	return o
}

// Library returns the library in effect.
func (o *Ops) Library() *library.Snapshot { return o.opts.Snapshot().Library() }

// executionsChanged tells opts.ExecutionsChanged.
func (o *Ops) executionsChanged() {
	if o.opts.ExecutionsChanged != nil {
		o.opts.ExecutionsChanged()
	}
}
