package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/runs/chain"
)

// runTrust implements "ctxls trust [show|grant|revoke]".
func runTrust(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newWorkspaceFlags("trust", stderr, false)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	sub := "show"
	switch {
	case len(pos) > 1:
		return usageError{msg: "trust takes one of show, grant or revoke"}
	case len(pos) == 1:
		sub = pos[0]
	}
	if sub != "show" && sub != "grant" && sub != "revoke" {
		return usageError{msg: fmt.Sprintf("unknown trust command %q (want show, grant or revoke)", sub)}
	}
	dir, err := workspaceDir("trust", *fs.dir, nil)
	if err != nil {
		return err
	}
	o, err := openOps(ctx, dir, stderr)
	if err != nil {
		return err
	}
	defer o.Close()
	var res ops.TrustResponse
	switch sub {
	case "revoke":
		r, err := o.RevokeTrust(ctx, ops.Empty{})
		if err != nil {
			return err
		}
		if *fs.format == "json" {
			return printJSON(stdout, r)
		}
		if r.Revoked {
			fmt.Fprintf(stdout, "revoked: chains of %s no longer run its exec executor without asking\n", o.Library().Dir())
		} else {
			fmt.Fprintf(stdout, "nothing to revoke: nothing was agreed to for %s\n", o.Library().Dir())
		}
		return nil
	case "grant":
		cur, err := o.Trust(ctx, ops.Empty{})
		if err != nil {
			return err
		}
		if res, err = o.GrantTrust(ctx, ops.TrustGrantRequest{Command: cur.Executor.Command}); err != nil {
			return err
		}
	default:
		if res, err = o.Trust(ctx, ops.Empty{}); err != nil {
			return err
		}
	}
	if *fs.format == "json" {
		return printJSON(stdout, res)
	}
	printTrust(stdout, o.Library().Dir(), res, sub == "grant")
	return nil
}

// printTrust writes what the trust of a workspace is, as text.
func printTrust(w io.Writer, dir string, res ops.TrustResponse, granted bool) {
	e := res.Executor
	switch {
	case e.Kind != chain.KindExec:
		fmt.Fprintf(w, "executor: %s (runs nothing; nothing to agree to)\n", e.Kind)
	case e.Source == ops.SourceSettings:
		fmt.Fprintf(w, "executor: exec %s, from your settings (needs no agreement)\n", chain.FormatCommandLine(e.Command))
	case granted:
		fmt.Fprintf(w, "agreed: chains of %s run %s\n", dir, chain.FormatCommandLine(e.Command))
	case e.NeedsConsent && res.Changed != "":
		fmt.Fprintf(w, "executor: exec %s, from %s: %s changed since you agreed; chains do not run it\n", chain.FormatCommandLine(e.Command), dir, res.Changed)
		fmt.Fprintf(w, "to agree: ctxls trust grant --dir %s\n", shellQuote(dir))
	case e.NeedsConsent:
		fmt.Fprintf(w, "executor: exec %s, from %s: not agreed to; chains do not run it\n", chain.FormatCommandLine(e.Command), dir)
		fmt.Fprintf(w, "to agree: ctxls trust grant --dir %s\n", shellQuote(dir))
	default:
		fmt.Fprintf(w, "executor: exec %s, from %s: agreed to\n", chain.FormatCommandLine(e.Command), dir)
	}
	if res.Granted != nil && (e.NeedsConsent || e.Kind != chain.KindExec) {
		fmt.Fprintf(w, "agreed earlier (%s): %s\n", res.GrantedAt, chain.FormatCommandLine(res.Granted))
	}
	if res.Store != "" {
		fmt.Fprintf(w, "kept in %s\n", res.Store)
	}
}

// agreeToExecutor makes sure the exec executor of the workspace may run
// before a chain runs: it runs when it needs no agreement or was agreed to;
// with agree (--trust) the command line is agreed to now; at a terminal
// the user is asked; otherwise the chain is refused with the command that
// agrees.
func agreeToExecutor(ctx context.Context, o *ops.Ops, agree bool, stdin io.Reader, stderr io.Writer) error {
	cur, err := o.Trust(ctx, ops.Empty{})
	if err != nil && !errors.Is(err, ops.ErrUnavailable) {
		return err
	}
	if !cur.Executor.NeedsConsent {
		return nil
	}
	line := chain.FormatCommandLine(cur.Executor.Command)
	dir := o.Library().Dir()
	switch {
	case agree:
		fmt.Fprintf(stderr, "agreeing to run %s for the chains of %s (--trust)\n", line, dir)
	case isTerminal(stdin) && isTerminal(stderr):
		fmt.Fprintf(stderr, "This workspace's .ctxls.yaml runs each chain step with:\n\n  %s\n\nin %s, with the prompt on its standard input.\nRun it, now and until it changes? [y/N] ", line, dir)
		answer, err := bufio.NewReader(io.LimitReader(stdin, 1024)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the answer: %w", err)
		}
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return fmt.Errorf("not run: you did not agree to run %s", line)
		}
	default:
		return &consentRefusal{dir: dir, line: line, changed: cur.Changed}
	}
	_, err = o.GrantTrust(ctx, ops.TrustGrantRequest{Command: cur.Executor.Command})
	return err
}

// consentRefusal is a chain not run from the command line, where no one
// can be asked, because its executor was not agreed to.
type consentRefusal struct{ dir, line, changed string }

func (e *consentRefusal) Error() string {
	why := "which you have not agreed to run"
	if e.changed != "" {
		why = fmt.Sprintf("which you have not agreed to run: %s changed since you agreed", e.changed)
	}
	return fmt.Sprintf("not run: the exec executor of this workspace's .ctxls.yaml runs %s, %s; read it, then agree with: ctxls trust grant --dir %s (or run again with --trust)", e.line, why, shellQuote(e.dir))
}

func (e *consentRefusal) Unwrap() error { return ops.ErrConsent }

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// characters.
func shellQuote(s string) string {
	return chain.FormatCommandLine([]string{s})
}
