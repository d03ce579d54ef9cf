package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/library"
)

// parseArgs parses flags wherever they stand among the positional
// arguments, so that "ctxls check DIR --format json" works.
//
// --help prints the subcommand's help and ends it with status 0; a flag
// error is a usage error, which ends with the subcommand's usage line.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package would print the whole help on any error; a usage
	// error prints the short form instead (see exitStatus).
	help := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = help }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				help()
				return nil, exitError(0)
			}
			return nil, usageError{msg: err.Error()}
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

// newFlagSet makes the flag set of subcommand name (as commands names
// it), whose --help prints the subcommand's help to w. Errors are returned,
// not printed.
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
	log := warnLogger(stderr)
	opts := library.Options{Logger: log}
	if cache {
		opts.CacheDir, opts.Version = indexCache(log)
	}
	lib, err := library.Load(ctx, dir, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("load workspace %s: %w", dir, err)
	}
	return lib.Snapshot(), nil
}
