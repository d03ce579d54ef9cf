// Command ctxls is a language server and command-line tool for context
// libraries: folders of markdown topics that AI coding agents load by
// reference.
//
// Usage:
//
//	ctxls serve [--stdio]              language server over stdio
//	ctxls check [DIR]                  all diagnostics; exit 1 on any error
//	ctxls catalog [DIR] [--domain D]   topics with their token costs
//	ctxls search QUERY [DIR]           topics matching a query
//	ctxls show domain:topic[#Section]  print a topic or one section
//	ctxls chain run|list|show|resume   chained command execution
//	ctxls history [CONVERSATION]       conversation history
//	ctxls bench                        measure indexing speed
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitError carries a process exit status without a message of its own.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// failure is an error that exits with a status other than 1, for commands
// where 1 means something else.
type failure struct {
	status int
	err    error
}

func (f failure) Error() string { return f.err.Error() }
func (f failure) Unwrap() error { return f.err }

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `ctxls — language server and tools for context libraries

Usage:
  ctxls serve [--stdio]                 run the language server over stdio
  ctxls check [DIR] [--format text|json] report every diagnostic; exit 1 on errors
  ctxls catalog [DIR] [--domain D] [--format text|json]
  ctxls search QUERY [DIR] [--domain D] [--format text|json]
  ctxls show domain:topic[#Section] [--format text|json]
  ctxls chain run COMMAND... [--input TEXT] | list | show [ID] | resume ID
  ctxls history [CONVERSATION] [--run ID] [--context]
  ctxls bench [--topics N] [--dir DIR]   measure index, re-index and search speed

Every command takes --dir DIR for the workspace (default .); check, catalog
and search also take it as their last argument. Quote a search QUERY of
several words. Run 'ctxls COMMAND --help' for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitStatus(err, os.Stderr))
}

// exitStatus reports err on stderr and returns the process exit status:
// 0 for none, 2 for a usage error, a failure's own status, else 1.
func exitStatus(err error, stderr io.Writer) int {
	var code exitError
	var ue usageError
	var f failure
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.Is(err, context.Canceled):
		// SIGINT or SIGTERM: the shell's status for an interrupted command.
		fmt.Fprintln(stderr, "ctxls: interrupted")
		return 130
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "ctxls: %s\n\n%s", ue.msg, usage)
		return 2
	case errors.As(err, &f):
		fmt.Fprintf(stderr, "ctxls: %v\n", err)
		return f.status
	default:
		fmt.Fprintf(stderr, "ctxls: %v\n", err)
		return 1
	}
}

// run executes one command line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitError(2)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "check":
		return runCheck(ctx, rest, stdout, stderr)
	case "catalog":
		return runCatalog(ctx, rest, stdout, stderr)
	case "search":
		return runSearch(ctx, rest, stdout, stderr)
	case "show":
		return runShow(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdin, stdout, stderr)
	case "chain":
		return runChain(ctx, rest, stdout, stderr)
	case "history":
		return runHistory(ctx, rest, stdout, stderr)
	case "bench":
		return runBench(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version":
		fmt.Fprintln(stdout, "ctxls", version)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"
