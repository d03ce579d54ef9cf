package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/library"
)

// checkRecord is one diagnostic in check's JSON output. Lines and columns
// are 1-based; columns count characters (Unicode code points).
type checkRecord struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
}

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
	records := collect(ctx, lib)
	if err := ctx.Err(); err != nil {
		return err // interrupted: the records are not all there
	}
	// A duplicate topic is both a library warning and a diagnostic of the
	// losing file; the record is enough.
	dup := map[string]bool{}
	for _, r := range records {
		if r.Code == library.CodeDuplicateTopic {
			dup[r.File] = true
		}
	}
	for _, w := range lib.Warnings() {
		if p := rel(lib.Dir(), w.Path); !dup[p] {
			fmt.Fprintf(stderr, "warning: %s: %s\n", p, w.Message)
		}
	}
	errors := 0
	for _, r := range records {
		if r.Severity == "error" {
			errors++
		}
	}
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

// collect gathers every diagnostic and every problem of .ctxls.yaml,
// sorted by file and position.
func collect(ctx context.Context, lib *library.Library) []checkRecord {
	all := lib.DiagnoseAll(ctx)
	var out []checkRecord
	for _, p := range lib.ConfigProblems() {
		// Like the language server, a problem covers its whole line; one
		// without a line points at the start of the file.
		r := checkRecord{File: config.FileName, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
			Severity: p.Severity, Code: config.ProblemCode, Message: p.Message}
		if p.Line >= 0 {
			r.Line, r.EndLine = p.Line+1, p.Line+2
		}
		out = append(out, r)
	}
	for p, ds := range all {
		f, _ := lib.File(p)
		for _, d := range ds {
			r := checkRecord{File: rel(lib.Dir(), p), Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
				Severity: d.Severity.String(), Code: d.Code, Message: d.Message}
			if f != nil && f.Doc != nil {
				rg := f.Doc.Lines.Range(d.Span, document.UTF32)
				r.Line, r.Column = rg.Start.Line+1, rg.Start.Character+1
				r.EndLine, r.EndColumn = rg.End.Line+1, rg.End.Character+1
			}
			out = append(out, r)
		}
	}
	// Stable, so that .ctxls.yaml problems without a line keep their order.
	slices.SortStableFunc(out, func(a, b checkRecord) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return out
}

func printCheck(w io.Writer, lib *library.Library, records []checkRecord, errors int) {
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
