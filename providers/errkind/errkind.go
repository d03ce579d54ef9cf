// Package errkind names the kinds of failure a request can meet: a
// request that does not make sense, a thing that does not exist, work in
// progress in the way, a workspace that is closed, an action the user has
// not agreed to. The packages that fail mark their errors with a kind,
// and the operations layer reports each kind with the code of the
// client's protocol, so that no one keeps a list of every package's
// errors.
package errkind

import "errors"

// Kind is a kind of failure. A Kind is an error, so that errors.Is(err,
// kind) reports whether err is of that kind.
type Kind int

// The kinds of failure.
const (
	// Invalid is a request that does not make sense: a missing or bad
	// field, a name that escapes its root, a step out of order.
	Invalid Kind = iota + 1
	// NotFound is a request for something that does not exist: an
	// unknown execution, command or conversation.
	NotFound
	// Conflict is a request that collides with work in progress, such as
	// a chain already running.
	Conflict
	// Unavailable is a workspace, or a store of it, that is closed or
	// could not be opened.
	Unavailable
	// Consent is an action the user has not agreed to, such as running a
	// program a workspace names.
	Consent
)

var names = [...]string{Invalid: "invalid", NotFound: "not found", Conflict: "conflict", Unavailable: "unavailable", Consent: "consent required"}

func (k Kind) Error() string {
	if k > 0 && int(k) < len(names) {
		return names[k]
	}
	return "unknown kind"
}

// New returns an error of kind k with the message msg, for a package's
// sentinel errors: errors.Is matches it to itself and to k.
func New(k Kind, msg string) error { return &kindError{kind: k, err: errors.New(msg)} }

// Mark returns err marked as of kind k, with err's message and chain. It
// returns nil for nil and err itself when err is of kind k already.
func Mark(k Kind, err error) error {
	if err == nil || errors.Is(err, k) {
		return err
	}
	return &kindError{kind: k, err: err}
}

// Of returns the kind of err: the first kind found in its chain, marked
// or wrapped itself, or 0 when err is of no kind.
func Of(err error) Kind {
	var k Kind
	errors.As(err, &k)
	return k
}

// kindError is an error of a known kind with the message of its cause.
type kindError struct {
	kind Kind
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }
func (e *kindError) Unwrap() error { return e.err }

// As makes errors.As(e, &kind) find the kind of e.
func (e *kindError) As(target any) bool {
	k, ok := target.(*Kind)
	if ok {
		*k = e.kind
	}
	return ok
}

// Is makes errors.Is(e, kind) true for the kind of e.
func (e *kindError) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.kind
}
