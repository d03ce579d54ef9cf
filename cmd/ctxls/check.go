package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/atomicfile"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/listing"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/ops"
)

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("check", stderr)
	format := fs.String("format", "text", "output format: text, json or sarif (SARIF 2.1.0, for code scanning)")
	dirFlag := fs.String("dir", "", "workspace directory, the same as DIR (default .)")
	fix := fs.Bool("fix", false, "apply the safe fixes, then report what is left")
	fixUnsafe := fs.Bool("fix-unsafe", false, "apply every fix, the unsafe ones (guesses) included")
	dryRun := fs.Bool("dry-run", false, "with --fix or --fix-unsafe, print the fixes as a unified diff instead of writing them; exit 1 when there is one")
	noCache := fs.Bool("no-cache", false, "index every file, neither reading nor writing the index cache")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the check to this file")
	failOnFlag := fs.String("fail-on", "error", "exit 1 when a diagnostic is at least this severe: error, warning, info, hint or never")
	showFlag := fs.String("show", "info", "print diagnostics at least this severe: error, warning, info or hint; the summary counts the others")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	failOn, ok := failOnLevels[*failOnFlag]
	if !ok {
		return usageError{msg: fmt.Sprintf("--fail-on must be error, warning, info, hint or never, not %q", *failOnFlag)}
	}
	show, ok := failOnLevels[*showFlag]
	if !ok || show == 0 {
		return usageError{msg: fmt.Sprintf("--show must be error, warning, info or hint, not %q", *showFlag)}
	}
	// What fails the check is printed, whatever --show says.
	show = max(show, failOn)
	out := emitOptions{format: *format, failOn: failOn, show: show}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *format != "text" && *format != "json" && *format != "sarif" {
		return usageError{msg: fmt.Sprintf("--format must be text, json or sarif, not %q", *format)}
	}
	if *dryRun && !*fix && !*fixUnsafe {
		*fix = true // --dry-run alone shows the safe fixes
	}
	dir, err := workspaceDir("check", *dirFlag, pos)
	if err != nil {
		return err
	}
	// The server's memory policy above a floor: a check indexes the
	// whole library once, making as much garbage as model, and with the
	// default GOGC its peak would be twice the model (10,000 topics:
	// 224–243 MB, against 173–175 MB).
	defer setCheckGC()()
	// A report kept for exactly this workspace is the report. A fix
	// needs the library, and the cache is only read when no flag asks
	// for something else.
	// One listing of the tree serves the fingerprint and both walks.
	lst := listing.New()
	var cache *reportCache
	if !*noCache && !*fix && !*fixUnsafe {
		cache = openReportCacheListed(ctx, dir, lst, stderr)
		if rep, ok := cache.lookup(); ok {
			return rep.emit(out, dir, stdout, stderr)
		}
	}
	// Problems in .ctxls.yaml are reported as records below, not warned
	// about on stderr, so that they count and fail the check.
	lib, err := openLibraryListed(ctx, dir, !*noCache, lst, stderr)
	if err != nil {
		return err
	}
	agents, err := agentfiles.LoadListed(ctx, lib.Dir(), lib.Config(), lst)
	if err != nil {
		return err
	}
	// The command's one snapshot, with the agent files read through the
	// library's listings.
	records, fixes, warnings, err := collect(ctx, ops.StaticWith(lib, agents)())
	if err != nil {
		return err
	}
	left := 0
	if *fix || *fixUnsafe {
		changes, err := settleFixes(ctx, lib, agents, records, fixes, *fixUnsafe, stderr)
		if err != nil {
			return err
		}
		if *dryRun {
			return printFixes(changes, stdout, stderr)
		}
		// A run killed while it wrote left its temporary files behind.
		cleanTemps(lib, agents)
		var written int
		written, left = writeFixes(changes, lib.Root().Real(), stderr)
		if written > 0 {
			fmt.Fprintf(stderr, "fixed %s\n", numfmt.Count(written, "file"))
			if lib, err = openLibrary(ctx, dir, !*noCache, stderr); err != nil {
				return err
			}
			// The files written make the next state: one snapshot of it.
			snap := ops.Static(lib)()
			if agents, err = snap.AgentFiles(ctx); err != nil {
				return err
			}
			if records, _, warnings, err = collect(ctx, snap); err != nil {
				return err
			}
		}
	}
	rep := newCheckReport(lib, agents, records, warnings)
	cache.store(ctx, rep)
	err = rep.emit(out, dir, stdout, stderr)
	if left > 0 && (err == nil || errors.Is(err, exitError(1))) {
		// A file the fixes could not be written to fails the command as a
		// fault, not as a finding.
		return exitError(2)
	}
	return err
}

// printFixes prints changes as one unified diff, after checking that
// --fix could write each: a file it would leave as it was is said on
// stderr and not in the diff. It returns exit status 1 when the diff is
// not empty, 2 when a file would be left.
func printFixes(changes []change, stdout, stderr io.Writer) error {
	left := 0
	shown := 0
	for _, c := range changes {
		if err := atomicfile.Writable(c.path); err != nil {
			fmt.Fprintf(stderr, "ctxls: %s would be left as it is: %v\n", c.rel, reason(err))
			left++
			continue
		}
		io.WriteString(stdout, fileDiff(c.rel, c.old, c.new))
		shown++
	}
	switch {
	case left > 0:
		return exitError(2)
	case shown > 0:
		return exitError(1)
	}
	return nil
}

// failOnLevels ranks the values of --fail-on as rules.Severity does:
// a diagnostic fails the check when its rank is at most the flag's.
var failOnLevels = map[string]int{"error": 1, "warning": 2, "info": 3, "hint": 4, "never": 0}

// checkReport is what check prints: the records, the warnings and the
// counts of the summary line. The report cache keeps it as JSON.
type checkReport struct {
	Records   []ops.Diagnostic `json:"records"`
	Warnings  []ops.Warning    `json:"warnings"`
	Topics    int              `json:"topics"`
	Domains   int              `json:"domains"`
	Commands  int              `json:"commands"`
	Tokens    int              `json:"tokens"`
	Tokenizer string           `json:"tokenizer"`
	// Roots are the context roots taken, relative, with what showed each;
	// Passed counts the folders that looked like one and showed nothing.
	Roots  []discover.ContextRoot `json:"roots"`
	Passed int                    `json:"passed"`
	// AgentFiles and Markdown count the agent files and the other
	// markdown files (their links) checked.
	AgentFiles int `json:"agentFiles"`
	Markdown   int `json:"markdown"`
	// IgnoredFiles and IgnoredDirs count the markdown and JSON files and
	// the folders skipped, unread, because git ignores them.
	IgnoredFiles int `json:"ignoredFiles"`
	IgnoredDirs  int `json:"ignoredDirs"`
	// Empty says that there was nothing to check.
	Empty bool `json:"empty"`
}

func newCheckReport(lib *library.Snapshot, agents *agentfiles.Set, records []ops.Diagnostic, warnings []ops.Warning) checkReport {
	rep := checkReport{Records: records, Warnings: warnings, Domains: len(lib.Domains()), Commands: len(lib.Commands()),
		Tokenizer: lib.Counter().Name()}
	for _, t := range lib.TopicsUnordered() {
		rep.Topics++
		rep.Tokens += t.Tokens
	}
	for _, r := range lib.ContextRootsTaken() {
		r.Dir, r.Evidence = fsguard.RelSlash(lib.Dir(), r.Dir), ""
		rep.Roots = append(rep.Roots, r)
	}
	rep.Passed = len(lib.PassedOver())
	agent := map[string]bool{}
	if agents != nil {
		rep.AgentFiles = len(agents.Files)
		rep.IgnoredFiles, rep.IgnoredDirs = agents.IgnoredFiles, agents.IgnoredDirs
		for _, f := range agents.Files {
			agent[f.Path] = true
		}
	}
	for _, f := range lib.Files() {
		if f.Kind == discover.OtherFile && !agent[f.Path] {
			rep.Markdown++
		}
	}
	rep.Empty = len(records) == 0 && rep.Topics == 0 && rep.Commands == 0 && rep.Domains == 0 && rep.AgentFiles == 0 && rep.Markdown == 0
	return rep
}

// emitOptions says how check prints its report: the format, and the
// ranks (of failOnLevels) that fail the check and that are printed.
type emitOptions struct {
	format       string
	failOn, show int
}

// emit prints the report of the workspace dir and returns exit status 1
// when it holds a diagnostic at least as severe as o.failOn. Only the
// diagnostics at least as severe as o.show are printed; the text summary
// counts the others.
func (rep checkReport) emit(o emitOptions, dir string, stdout, stderr io.Writer) error {
	printWarnings(stderr, rep.Warnings)
	format := o.format
	failing := 0
	var records, hidden []ops.Diagnostic
	for _, r := range rep.Records {
		rank := failOnLevels[r.Severity]
		if rank > 0 && rank <= o.failOn {
			failing++
		}
		if rank > o.show {
			hidden = append(hidden, r)
			continue
		}
		records = append(records, r)
	}
	if rep.Empty {
		// "0 problems" would pass a directory ctxls cannot see into as clean.
		w := stdout
		if format != "text" {
			w = stderr
		}
		fmt.Fprintf(w, "nothing to check in %s: %s\n", dir, lookedFor)
		return nil
	}
	switch format {
	case "json":
		// One line per record, buffered: not one write per record.
		bw := bufio.NewWriter(stdout)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, r := range records {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	case "sarif":
		if err := writeSARIF(stdout, records, dir); err != nil {
			return err
		}
	default:
		printCheck(stdout, rep, records, hidden)
	}
	if failing > 0 {
		return exitError(1)
	}
	return nil
}

// lookedFor says what check looks for in a workspace.
const lookedFor = `ctxls looks for markdown files (their links are checked), agent
files (CLAUDE.md, AGENTS.md, skills, rules, …), markdown commands under
directories named commands, and context libraries: the folders that
contextRoots in .ctxls.yaml names, and those whose files show one (a
loading_protocol.md, topic frontmatter, a command naming one of its topics)`

// collect gathers the diagnostics ops.Check reports, the fix each offers
// (nil where it offers none), and the warnings of problems no diagnostic
// reports. check's JSON output is the diagnostics as ops encodes them.
func collect(ctx context.Context, snap ops.Snapshot) ([]ops.Diagnostic, []*fileFix, []ops.Warning, error) {
	lib := snap.Library()
	o := ops.New(ops.Options{Snapshot: func() ops.Snapshot { return snap }})
	defer o.Close()
	res, err := o.Check(ctx, ops.CheckRequest{})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err // interrupted: the records are not all there
	}
	fixes := make([]*fileFix, len(res.Items))
	for i, d := range res.Items {
		switch src := d.Source; {
		case src.Diagnostic == nil:
		case src.AgentFile != nil:
			fixes[i] = agentFix(src.AgentFile, src.Diagnostic)
		default:
			if f, ok := lib.File(src.Path); ok && f.Doc != nil {
				fixes[i] = libraryFix(f.Doc, src.Diagnostic)
			}
		}
	}
	return res.Items, fixes, res.Warnings, nil
}

// printCheck prints the records, then the summary, which names how many
// of each severity were left hidden and the flag that shows them.
func printCheck(w io.Writer, rep checkReport, records, hidden []ops.Diagnostic) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range records {
		fmt.Fprintf(tw, "%s:%d:%d\t%s\t%s\t%s\n", oneLine(r.File), r.Line, r.Column, r.Severity, r.Code, oneLine(r.Message))
	}
	tw.Flush()
	files := map[string]bool{}
	for _, r := range records {
		files[r.File] = true
	}
	if len(records) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, rootsLine(rep))
	problems := fmt.Sprintf("%s (%s) in %s", numfmt.Count(len(records), "problem"), severityCounts(records), numfmt.Count(len(files), "file"))
	if len(hidden) > 0 {
		least := "info"
		for _, r := range hidden {
			if failOnLevels[r.Severity] > failOnLevels[least] {
				least = r.Severity
			}
		}
		problems += fmt.Sprintf(" · %s not shown (--show %s lists them)", hiddenCounts(hidden), least)
	}
	if len(rep.Roots) == 0 && rep.Topics == 0 {
		// No library: say what was checked instead.
		line := fmt.Sprintf("%s · %s and %s checked", problems, numfmt.Count(rep.AgentFiles, "agent file"), numfmt.Count(rep.Markdown, "other markdown file"))
		if rep.Commands > 0 {
			line += " · " + numfmt.Count(rep.Commands, "command")
		}
		fmt.Fprintln(w, line+ignoredText(rep))
		return
	}
	fmt.Fprintf(w, "%s · %s in %s · %s · %s tokens (%s)%s\n", problems,
		numfmt.Count(rep.Topics, "topic"), numfmt.Count(rep.Domains, "domain"), numfmt.Count(rep.Commands, "command"),
		numfmt.Thousands(rep.Tokens), rep.Tokenizer, ignoredText(rep))
}

// ignoredText says how much the check skipped because git ignores it, or
// nothing when it skipped nothing.
func ignoredText(rep checkReport) string {
	var parts []string
	if rep.IgnoredDirs > 0 {
		parts = append(parts, numfmt.Count(rep.IgnoredDirs, "folder"))
	}
	if rep.IgnoredFiles > 0 {
		parts = append(parts, numfmt.Count(rep.IgnoredFiles, "markdown or JSON file"))
	}
	if len(parts) == 0 {
		return ""
	}
	return " · skipped as git ignores them: " + strings.Join(parts, " and ")
}

// rootsLine says in one line which context roots were taken and why, and
// how to add one.
func rootsLine(rep checkReport) string {
	const add = "contextRoots in " + config.FileName
	if len(rep.Roots) == 0 {
		line := "no context library: a folder is one when " + add + " names it, or it holds loading_protocol.md or topic frontmatter"
		if rep.Passed > 0 {
			line += fmt.Sprintf(" (%s that looked like one showed neither)", numfmt.Count(rep.Passed, "folder"))
		}
		return line
	}
	parts := make([]string, len(rep.Roots))
	for i, r := range rep.Roots {
		parts[i] = r.Dir + "/ (" + r.Why + ")"
	}
	noun := "context library"
	if len(parts) > 1 {
		noun = "context libraries"
	}
	line := noun + ": " + strings.Join(parts, ", ")
	if rep.Passed > 0 {
		line += fmt.Sprintf("; %s that looked like one showed nothing", numfmt.Count(rep.Passed, "folder"))
	}
	return line + "; add one with " + add
}

// severityCounts says how many of the records are errors and warnings,
// and, when there are any, information and hints, which are no warnings.
func severityCounts(records []ops.Diagnostic) string {
	n := bySeverity(records)
	out := numfmt.Count(n["error"], "error") + ", " + numfmt.Count(n["warning"], "warning")
	if n["info"] > 0 {
		out += fmt.Sprintf(", %d info", n["info"])
	}
	if n["hint"] > 0 {
		out += ", " + numfmt.Count(n["hint"], "hint")
	}
	return out
}

// hiddenCounts says how many information and hint records were not
// printed, as "91 hints" or "2 info and 91 hints".
func hiddenCounts(records []ops.Diagnostic) string {
	n := bySeverity(records)
	var parts []string
	for _, s := range []string{"error", "warning", "info", "hint"} {
		switch {
		case n[s] == 0:
		case s == "info":
			parts = append(parts, fmt.Sprintf("%d info", n[s]))
		default:
			parts = append(parts, numfmt.Count(n[s], s))
		}
	}
	return strings.Join(parts, " and ")
}

// bySeverity counts the records of each severity.
func bySeverity(records []ops.Diagnostic) map[string]int {
	n := map[string]int{}
	for _, r := range records {
		n[r.Severity]++
	}
	return n
}

// oneLine escapes the control characters of s as Go does in a string
// literal: a file name may hold a newline or a tab, and the text output
// must keep one record per line, so that no name can pass for another
// record or the summary.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
