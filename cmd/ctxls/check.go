package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/ops"
)

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", stderr)
	format := formatFlag(fs)
	dirFlag := fs.String("dir", "", "workspace directory, the same as DIR (default .)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: ctxls check [DIR] [--format text|json] [--dir DIR]\n\nReports every diagnostic of the workspace DIR (default .); exits 1 when any is an error.")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	dir, err := workspaceDir("check", *dirFlag, pos)
	if err != nil {
		return err
	}
	// Problems in .ctxls.yaml are reported as records below, not warned
	// about on stderr, so that they count and fail the check.
	lib, err := openLibrary(ctx, dir, stderr)
	if err != nil {
		return err
	}
	o := ops.New(ops.Options{Library: func() *library.Library { return lib }})
	res, err := o.Check(ctx, ops.CheckRequest{})
	if err != nil {
		return err
	}
	printWarnings(stderr, res.Warnings)
	records, errors := res.Items, res.Errors
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, r := range records {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else {
		printCheck(stdout, lib, records, errors)
	}
	if errors > 0 {
		return exitError(1)
	}
	return nil
}

func printCheck(w io.Writer, lib *library.Library, records []ops.Diagnostic, errors int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range records {
		fmt.Fprintf(tw, "%s:%d:%d\t%s\t%s\t%s\n", r.File, r.Line, r.Column, r.Severity, r.Code, r.Message)
	}
	tw.Flush()
	files := map[string]bool{}
	for _, r := range records {
		files[r.File] = true
	}
	total := 0
	topics := lib.Topics()
	for _, t := range topics {
		total += t.Tokens
	}
	if len(records) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s (%s, %s) in %s · %s in %s · %s · %s tokens (%s)\n",
		count(len(records), "problem"), count(errors, "error"), count(len(records)-errors, "warning"), count(len(files), "file"),
		count(len(topics), "topic"), count(len(lib.Domains()), "domain"), count(len(lib.Commands()), "command"),
		thousands(total), lib.Counter().Name())
}

func rel(dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%s %ss", thousands(n), noun)
}

// thousands formats n with thin separators: 12,480.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
