package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/listing"
)

// parseArgs parses flags wherever they stand among the positional
// arguments, so that "ctxls check DIR --format json" works.
//
// --help is returned as a helpRequest, which run answers with the
// subcommand's help on standard output; a flag error is a usage error,
// which ends with the subcommand's usage line.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package would print the whole help on any error, and on
	// --help to the flag set's writer; run prints it instead.
	help := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = help }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{name: strings.TrimPrefix(fs.Name(), "ctxls "), fs: fs}
			}
			return nil, usageError{msg: flagErrorMessage(fs, err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// helpRequest is --help (or -h) on the command line of subcommand name.
type helpRequest struct {
	name string
	fs   *flag.FlagSet
}

func (h helpRequest) Error() string { return "help requested for " + h.name }

// flagErrorMessage rewrites the flag package's error for an unknown flag
// as one that names the flag the way the help does and suggests the
// nearest flag the subcommand has.
func flagErrorMessage(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return err.Error()
	}
	name = strings.TrimLeft(name, "-")
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	msg := fmt.Sprintf("unknown flag %s", flagName(name))
	if s, ok := suggest(name, known); ok {
		msg += fmt.Sprintf("; did you mean %s?", flagName(s))
	}
	return msg
}

// flagName writes a flag as the help does: -v, --format.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// newFlagSet makes the flag set of subcommand name (as commands names
// it). Errors are returned, not printed, and so is --help (a
// helpRequest); w is where the flag package's own Usage would write.
func newFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ctxls "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { printHelp(w, name, fs) }
	return fs
}

// formatFlag adds --format text|json.
func formatFlag(fs *flag.FlagSet) *string {
	return fs.String("format", "text", "output format: text or json")
}

// workspaceFlags is the flag set of a command that reads a workspace and
// prints text or JSON, with the two flags such commands share: --format
// and --dir.
type workspaceFlags struct {
	*flag.FlagSet
	format *string
	dir    *string
}

// newWorkspaceFlags makes the flag set of subcommand name as newFlagSet
// does, with --format and --dir; takesDIR says that the command also
// takes the workspace as a positional DIR.
func newWorkspaceFlags(name string, w io.Writer, takesDIR bool) workspaceFlags {
	fs := newFlagSet(name, w)
	dirDoc := "workspace directory (default .)"
	if takesDIR {
		dirDoc = "workspace directory, the same as DIR (default .)"
	}
	return workspaceFlags{FlagSet: fs, format: formatFlag(fs), dir: fs.String("dir", "", dirDoc)}
}

// parse parses args as parseFormatted does.
func (f workspaceFlags) parse(args []string) ([]string, error) {
	return parseFormatted(f.FlagSet, args, f.format)
}

// parseFormatted parses args as parseArgs does and then checks format, the
// value of the command's --format, which parsing has set.
func parseFormatted(fs *flag.FlagSet, args []string, format *string) ([]string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	return pos, checkFormat(*format)
}

func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return usageError{msg: fmt.Sprintf("--format must be text or json, not %q", f)}
	}
	return nil
}

// loadLibrary indexes the workspace at dir, logging warnings to stderr.
// Problems in .ctxls.yaml only go to stderr: the library has already fallen
// back to defaults for the bad values, so the command can go on.
func loadLibrary(ctx context.Context, dir string, stderr io.Writer) (*library.Snapshot, error) {
	lib, err := openLibrary(ctx, dir, true, stderr)
	if err != nil {
		return nil, err
	}
	printProblems(stderr, lib.ConfigProblems())
	return lib, nil
}

// loadConfig reads the configuration of the workspace at dir, logging its
// problems to stderr as loadLibrary does.
func loadConfig(dir string, stderr io.Writer) (*config.Config, error) {
	cfg, problems, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	printProblems(stderr, problems)
	return cfg, nil
}

// printProblems writes the problems of .ctxls.yaml to stderr.
func printProblems(stderr io.Writer, problems []config.Problem) {
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s: %s\n", p.Severity, p)
	}
}

// warnLogger returns the logger of a command that is no server: warnings
// and errors, to w.
func warnLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// openLibrary is loadLibrary for callers that report the problems of
// .ctxls.yaml themselves; cache says whether to use the index cache.
func openLibrary(ctx context.Context, dir string, cache bool, stderr io.Writer) (*library.Snapshot, error) {
	return openLibraryListed(ctx, dir, cache, nil, stderr)
}

// openLibraryListed is openLibrary with the scan's folder listings kept
// in lst, for the agent files' walk that follows.
func openLibraryListed(ctx context.Context, dir string, cache bool, lst *listing.Listings, stderr io.Writer) (*library.Snapshot, error) {
	log := warnLogger(stderr)
	opts := library.Options{Logger: log, Listings: lst}
	if cache {
		opts.CacheDir, opts.Version = indexCache(log)
	}
	lib, err := library.Load(ctx, dir, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", dir, err)
	}
	return lib.Snapshot(), nil
}
