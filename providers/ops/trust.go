package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/runs/chain"
)

// Where the command line of an exec executor comes from.
const (
	// SourceSettings is the editor's settings, the user's own.
	SourceSettings = "settings"
	// SourceWorkspace is the workspace's .ctxls.yaml, which a cloned
	// repository chooses.
	SourceWorkspace = "workspace"
)

// TrustResponse says whether the executor in effect may run.
type TrustResponse struct {
	// Executor is the executor in effect, with whether it needs consent.
	Executor ExecutorInfo `json:"executor"`
	// Granted is the command line the user agreed to for this workspace,
	// when there is a grant, whether or not it is the executor's.
	Granted []string `json:"granted,omitempty"`
	// GrantedAt is when the user agreed to it (RFC 3339).
	GrantedAt string `json:"grantedAt,omitempty"`
	// Changed says, when the user agreed to an executor of this
	// workspace that is no longer the one in effect, what changed: "the
	// command line", or the content of the program it runs.
	Changed string `json:"changed,omitempty"`
	// Store is the file the grants are kept in, outside every workspace.
	Store string `json:"store,omitempty"`
}

// TrustGrantRequest agrees to the exec executor of the workspace.
type TrustGrantRequest struct {
	// Command is the command line the user was shown and agreed to; the
	// grant is refused unless it is exactly the executor's in effect, so
	// that an edit of .ctxls.yaml meanwhile is not agreed to unseen.
	Command []string `json:"command"`
}

// TrustRevokeResponse says whether a grant was forgotten.
type TrustRevokeResponse struct {
	// Revoked is true when the workspace had a grant.
	Revoked bool `json:"revoked"`
}

// ConsentError is the refusal to run an exec executor of the workspace's
// .ctxls.yaml that the user has not agreed to. Its message says how to
// agree.
type ConsentError struct {
	// Dir is the workspace.
	Dir string
	// Command is the executor's command line.
	Command []string
	// Changed says what changed since an earlier grant, "" when there is
	// none.
	Changed string
	// Err is why the grants could not be read, if that is the cause.
	Err error
}

func (e *ConsentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the exec executor of this workspace's %s runs %s, which you have not agreed to run", config.FileName, chain.FormatCommandLine(e.Command))
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, " (the agreed commands cannot be read: %v)", e.Err)
	case e.Changed != "":
		fmt.Fprintf(&b, " (%s changed since you agreed)", e.Changed)
	}
	fmt.Fprintf(&b, "; read it, then agree with: ctxls trust grant --dir %s", shellQuote(e.Dir))
	return b.String()
}

func (e *ConsentError) Unwrap() []error { return []error{ErrConsent, e.Err} }

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// characters.
func shellQuote(s string) string { return chain.FormatCommandLine([]string{s}) }

// consent is the chain runner's check before it runs an exec executor: a
// command line from the editor's settings runs, one from the workspace's
// .ctxls.yaml only once the user agreed to it for this workspace.
func (o *Ops) consent(dir string, e config.Executor) error {
	if e.Kind != chain.KindExec || e.CommandFromSettings {
		return nil
	}
	if o.trustErr != nil {
		return &ConsentError{Dir: dir, Command: e.Command, Err: o.trustErr}
	}
	st, err := o.opts.Trust.Check(dir, e.Command)
	if err != nil {
		return &ConsentError{Dir: dir, Command: e.Command, Err: err}
	}
	if !st.Agreed {
		return &ConsentError{Dir: dir, Command: e.Command, Changed: st.Changed}
	}
	return nil
}

// executorInfo is the executor in effect, as the chain list and the trust
// operations report it, with whether it needs the user's consent.
func (o *Ops) executorInfo(dir string, e config.Executor) ExecutorInfo {
	info := executorOf(e)
	if info.Kind != chain.KindExec {
		return info
	}
	info.Source = SourceWorkspace
	if e.CommandFromSettings {
		info.Source = SourceSettings
	}
	info.NeedsConsent = o.consent(dir, e) != nil
	return info
}

// Trust says whether the exec executor in effect may run, and what the
// user agreed to for this workspace.
func (o *Ops) Trust(_ context.Context, _ Empty) (TrustResponse, error) {
	lib := o.Library()
	res := TrustResponse{Executor: o.executorInfo(lib.Dir(), lib.Config().Executor)}
	if o.trustErr != nil {
		return res, withKind(ErrUnavailable, o.trustErr)
	}
	res.Store = o.opts.Trust.Path()
	e := lib.Config().Executor
	st, err := o.opts.Trust.Check(lib.Dir(), e.Command)
	if err != nil {
		return res, err
	}
	if g := st.Grant; g != nil {
		res.Granted, res.GrantedAt = g.Command, g.Granted.Format(time.RFC3339)
		if e.Kind == chain.KindExec && !e.CommandFromSettings {
			res.Changed = st.Changed
		}
	}
	return res, nil
}

// GrantTrust records that the user agrees to run the exec executor of the
// workspace's .ctxls.yaml, whose command line req names, in this
// workspace: chains run with it until it changes.
func (o *Ops) GrantTrust(ctx context.Context, req TrustGrantRequest) (TrustResponse, error) {
	lib := o.Library()
	e := lib.Config().Executor
	switch {
	case e.Kind != chain.KindExec:
		return TrustResponse{}, invalidf("the executor is %s, which runs nothing: there is nothing to agree to", e.Kind)
	case len(req.Command) == 0:
		return TrustResponse{}, invalidf("command is required: the command line the user agreed to")
	case !slices.Equal(req.Command, e.Command):
		return TrustResponse{}, invalidf("the exec executor's command line is %s, not the %s given; show it to the user again", chain.FormatCommandLine(e.Command), chain.FormatCommandLine(req.Command))
	case o.trustErr != nil:
		return TrustResponse{}, withKind(ErrUnavailable, o.trustErr)
	}
	if _, err := o.opts.Trust.Grant(lib.Dir(), e.Command, time.Now()); err != nil {
		return TrustResponse{}, err
	}
	return o.Trust(ctx, Empty{})
}

// RevokeTrust forgets what the user agreed to for this workspace.
func (o *Ops) RevokeTrust(_ context.Context, _ Empty) (TrustRevokeResponse, error) {
	if o.trustErr != nil {
		return TrustRevokeResponse{}, withKind(ErrUnavailable, o.trustErr)
	}
	had, err := o.opts.Trust.Revoke(o.Library().Dir())
	if err != nil {
		return TrustRevokeResponse{}, err
	}
	return TrustRevokeResponse{Revoked: had}, nil
}

// IsConsent reports whether err is the refusal of an executor the user has
// not agreed to, and returns it.
func IsConsent(err error) (*ConsentError, bool) {
	var ce *ConsentError
	return ce, errors.As(err, &ce)
}
