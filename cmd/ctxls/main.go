// Command ctxls is a language server and command-line tool for context
// libraries: folders of markdown topics that AI coding agents load by
// reference.
//
// Usage:
//
//	ctxls serve [--stdio]              language server over stdio
//	ctxls mcp [--dir DIR]              MCP server for coding agents over stdio
//	ctxls check [DIR]                  all diagnostics; exit 1 on any error
//	ctxls catalog [DIR] [--domain D]   topics with their token costs
//	ctxls cost [DIR] [--agent A]       what a session of an agent loads
//	ctxls search QUERY [DIR]           topics matching a query
//	ctxls show domain:topic[#Section]  print a topic or one section
//	ctxls chain run|preview|list|show|resume|use|delete
//	                                   chained command execution
//	ctxls history [CONVERSATION]       conversation history
//	ctxls tokens [FILE...]             count the tokens of files
//	ctxls bench                        measure indexing speed
//
// Run "ctxls help" for every command and "ctxls help COMMAND" for one.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
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

// usageError is a mistake in the command line of subcommand cmd (as
// commands names it; "" for ctxls itself).
type usageError struct {
	msg string
	cmd string
	// brief ends a usage error of ctxls itself with where the help is
	// rather than with the whole help.
	brief bool
}

func (e usageError) Error() string { return e.msg }

// usage is the help of ctxls itself.
var usage = globalUsage()

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitStatus(err, os.Stderr))
}

// exitStatus reports err on stderr and returns the process exit status:
// 0 for none, an exitError's own status (1 when the command found
// problems), 2 for a usage error, a failure's own status, and 2 for any
// other error: the command could not do what was asked.
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
		if ue.cmd == "" && ue.brief {
			fmt.Fprintf(stderr, "ctxls: %s\nRun 'ctxls help' for every command.\n", ue.msg)
		} else if ue.cmd == "" {
			fmt.Fprintf(stderr, "ctxls: %s\n\n%s", ue.msg, usage)
		} else {
			fmt.Fprintf(stderr, "ctxls %s: %s\n\n", ue.cmd, ue.msg)
			printUsageLine(stderr, ue.cmd)
		}
		return 2
	case errors.As(err, &f):
		fmt.Fprintf(stderr, "ctxls: %v\n", err)
		return f.status
	default:
		fmt.Fprintf(stderr, "ctxls: %v\n", err)
		return 2
	}
}

// run executes one command line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitError(2)
	}
	err := dispatch(ctx, args, stdin, stdout, stderr)
	var help helpRequest
	if errors.As(err, &help) {
		printHelp(stdout, help.name, help.fs)
		return nil
	}
	// A usage error names its subcommand, so that it ends with that
	// subcommand's usage.
	var ue usageError
	if errors.As(err, &ue) && ue.cmd == "" {
		if _, ok := helpFor(args[0]); ok {
			ue.cmd = args[0]
			return ue
		}
	}
	return err
}

// dispatch runs the subcommand args[0].
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "check":
		return runCheck(ctx, rest, stdout, stderr)
	case "catalog":
		return runCatalog(ctx, rest, stdout, stderr)
	case "cost":
		return runCost(ctx, rest, stdout, stderr)
	case "search":
		return runSearch(ctx, rest, stdout, stderr)
	case "show":
		return runShow(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdin, stdout, stderr)
	case "mcp":
		return runMCP(ctx, rest, stdin, stdout, stderr)
	case "chain":
		return runChain(ctx, rest, stdin, stdout, stderr)
	case "trust":
		return runTrust(ctx, rest, stdout, stderr)
	case "history":
		return runHistory(ctx, rest, stdout, stderr)
	case "bench":
		return runBench(ctx, rest, stdout, stderr)
	case "tokens":
		return runTokens(ctx, rest, stdin, stdout, stderr)
	case "help", "-h", "--help":
		if len(rest) > 0 && rest[0] != "help" {
			// ctxls help CMD is ctxls CMD --help.
			return dispatch(ctx, append(slices.Clone(rest), "--help"), stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version":
		pos, err := parseArgs(newFlagSet("version", stderr), rest)
		if err != nil {
			return err
		}
		if len(pos) > 0 {
			return usageError{msg: "version takes no arguments", cmd: "version"}
		}
		fmt.Fprintln(stdout, thisBuild())
		return nil
	}
	return unknownCommand(cmd, topCommands(), "")
}
