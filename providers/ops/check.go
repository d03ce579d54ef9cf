package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/memory"
)

// CheckRequest asks for the diagnostics of the workspace, or of one file
// or directory of it when Path is set (absolute, or relative to the
// workspace directory).
type CheckRequest struct {
	Path string `json:"path,omitempty"`
}

// Diagnostic is one problem of a file. Lines and columns are 1-based;
// columns count characters (Unicode code points).
type Diagnostic struct {
	// File is relative to the workspace directory, with forward slashes.
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	// Tokenizer names the tokenizer of the token counts Message gives;
	// absent when it gives none.
	Tokenizer string `json:"tokenizer,omitempty"`
	// Related are other places the message speaks of.
	Related []RelatedPlace `json:"related,omitempty"`

	// Source is the checker's own diagnostic, for a presentation that
	// offers its fix. It is not part of the result sent.
	Source DiagnosticSource `json:"-"`
}

// RelatedPlace is another place a diagnostic's message speaks of.
type RelatedPlace struct {
	// File is relative to the workspace directory, with forward slashes.
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// DiagnosticSource is where a Diagnostic comes from.
type DiagnosticSource struct {
	// Path is the file's absolute path.
	Path string
	// Diagnostic is the checker's diagnostic: of a library file, of an
	// agent file (memory files and their imports included) or of the
	// configuration file, or the one that counts those left out.
	Diagnostic *diag.Diagnostic
	// AgentFile holds the text the spans of an agent file's Diagnostic
	// are in; nil for a library file's, whose text the library holds.
	AgentFile *agentfiles.File
}

// CheckResponse is every diagnostic, sorted by file and position, and
// every problem of the configuration file.
type CheckResponse struct {
	Items []Diagnostic `json:"items"`
	// Errors is the number of items of severity error.
	Errors int `json:"errors"`
	// Warnings are problems met while indexing that no diagnostic reports,
	// such as an unreadable file.
	Warnings []Warning `json:"warnings"`
}

// Check returns the diagnostics of the workspace or of Path: those of the
// library's files, of the agent files and the files their imports load,
// and the problems of the configuration file, as ctxls check reports them.
// A path outside the workspace is an ErrInvalid error.
func (o *Ops) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	return withHeavy(o, ctx, func(ctx context.Context) (CheckResponse, error) {
		snap := o.opts.Snapshot()
		lib := snap.Library()
		keep, err := pathFilter(lib.Dir(), req.Path)
		if err != nil {
			return CheckResponse{}, err
		}
		if p := strings.TrimSpace(req.Path); p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(lib.Dir(), p)
			}
			if _, err := lib.Root().Stat(p); errors.Is(err, fs.ErrNotExist) {
				return CheckResponse{}, withKind(ErrNotFound, fmt.Errorf("%s does not exist in the workspace", req.Path))
			}
		}
		agents, err := snap.AgentFiles(ctx)
		if err != nil {
			return CheckResponse{}, err
		}
		items, reported := diagnostics(ctx, lib, agents, keep, diagnoseAll(ctx, lib, req.Path))
		if err := ctx.Err(); err != nil {
			return CheckResponse{}, err
		}
		res := CheckResponse{Items: items, Warnings: []Warning{}}
		// A duplicate topic is both a library warning and a diagnostic of the
		// losing file; the diagnostic is enough.
		dup := map[string]bool{}
		for _, d := range items {
			if d.Code == library.CodeDuplicateTopic {
				dup[d.File] = true
			}
			if d.Severity == diag.Error.String() {
				res.Errors++
			}
		}
		for _, w := range lib.Warnings() {
			if p := fsguard.RelSlash(lib.Dir(), w.Path); keep(w.Path) && !dup[p] && !reported[w.Path] {
				res.Warnings = append(res.Warnings, Warning{Message: p + ": " + w.Message})
			}
		}
		return res, nil
	})
}

// pathFilter returns the test of the files a check covers.
func pathFilter(dir, path string) (func(string) bool, error) {
	if path == "" {
		return func(string) bool { return true }, nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	path = filepath.Clean(path)
	if !fsguard.Within(dir, path) {
		return nil, invalidf("path %s is outside the workspace %s", path, dir)
	}
	if path == dir {
		return func(string) bool { return true }, nil
	}
	return func(p string) bool { return fsguard.Within(path, p) }, nil
}

// diagnostics gathers the diagnostics of the files keep accepts: of the
// library's files from all, of the agent files and the files their
// imports load, and the problems of the configuration file, sorted by file
// and position, without the codes the configuration disables. It also
// returns the files (absolute) that are not read and that one of them
// reports so: an agent file skipped, a link out of the workspace that an
// import names. The library's warning of such a file would say it again.
func diagnostics(ctx context.Context, lib *library.Snapshot, agents *agentfiles.Set, keep func(string) bool, all map[string][]diag.Diagnostic) ([]Diagnostic, map[string]bool) {
	out := []Diagnostic{}
	linesOf := FileLines(lib, agents)
	reported := map[string]bool{}
	cfg := lib.Config()
	if path := filepath.Join(lib.Dir(), config.FileName); keep(path) {
		lines, ds := ConfigDiagnostics(lib)
		for i := range ds {
			out = append(out, record(lib.Dir(), path, lines, &ds[i], linesOf))
		}
	}
	agentDiags := agents.Check(ctx)
	for p, ds := range all {
		if !keep(p) {
			continue
		}
		f, _ := lib.File(p)
		for i := range ds {
			// An agent file's YAML is judged by its own check, as the
			// agent reads it, with the cause and a fix.
			if _, ok := agents.File(p); ok && ds[i].Code == library.CodeParseError {
				continue
			}
			var lines *document.Lines // a skipped file has no text: its start
			if f != nil && f.Doc != nil {
				lines = f.Doc.Lines
			}
			out = append(out, record(lib.Dir(), p, lines, &ds[i], linesOf))
		}
	}
	add := func(p string, f *agentfiles.File, ds []diag.Diagnostic) {
		for i := range ds {
			d := record(lib.Dir(), p, f.Lines, &ds[i], linesOf)
			d.Source.AgentFile = f
			out = append(out, d)
		}
	}
	for p, ds := range agentDiags {
		if f, ok := agents.File(p); ok && keep(p) {
			add(p, f, ds)
			if f.Skipped != "" && hasCode(ds, diag.FileSkipped) {
				reported[p] = true
			}
		}
	}
	mem := memory.Check(ctx, agents, cfg, nil, nil)
	for target, from := range mem.Refused {
		if keep(from) {
			reported[target] = true
		}
	}
	for p, ds := range mem.Diagnostics {
		if !keep(p) {
			continue
		}
		if f, ok := memory.FileOf(agents, p, nil); ok {
			add(p, f, ds)
		}
	}
	// Stable, so that configuration problems without a line keep their
	// order.
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return capFiles(lib.Dir(), out, cfg.Limits.FileDiagnostics), reported
}

// capFiles bounds the diagnostics of each file of out (sorted by file),
// the records of the workspace dir, to limit, in place, as diag.Cap does.
func capFiles(dir string, out []Diagnostic, limit int) []Diagnostic {
	if limit <= 0 {
		return out
	}
	capped := out[:0]
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].File == out[i].File {
			j++
		}
		// The group ends at its last element: what Cap appends cannot
		// reach the next file's.
		group := out[i:j:j]
		i = j
		path := group[0].Source.Path
		kept := diag.Cap(group, limit, func(d *Diagnostic) *diag.Diagnostic { return d.Source.Diagnostic }, func(n int) Diagnostic {
			d := diag.LeftOut(path, n, limit)
			return record(dir, path, nil, &d, nil)
		})
		// kept lies at or after capped's end: the copy moves it down.
		capped = append(capped, kept...)
	}
	return capped
}

// hasCode reports whether one of ds has the code.
func hasCode(ds []diag.Diagnostic, code string) bool {
	return slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return d.Code == code })
}

// FileLines returns the lookup of the lines of the text of a file of lib
// or of agents (which may be nil), nil for a file of neither or one
// without text: where the related places of diagnostics are.
func FileLines(lib *library.Snapshot, agents *agentfiles.Set) func(string) *document.Lines {
	return func(p string) *document.Lines {
		if f, ok := lib.File(p); ok && f.Doc != nil {
			return f.Doc.Lines
		}
		if agents != nil {
			if f, ok := agents.File(p); ok {
				return f.Lines
			}
		}
		return nil
	}
}

// record converts d, a diagnostic of the file at p whose text has lines
// (nil for a file without text), into the JSON of the CLI and MCP, paths
// relative to dir. linesOf returns the lines of the file a related place
// is in, or nil.
func record(dir, p string, lines *document.Lines, d *diag.Diagnostic, linesOf func(string) *document.Lines) Diagnostic {
	out := Diagnostic{File: fsguard.RelSlash(dir, p), Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
		Severity: d.Severity.String(), Code: d.Code, Message: d.Message, Tokenizer: d.Tokenizer,
		Source: DiagnosticSource{Path: p, Diagnostic: d}}
	if lines != nil {
		rg := lines.Range(d.Span, document.UTF32)
		out.Line, out.Column = rg.Start.Line+1, rg.Start.Character+1
		out.EndLine, out.EndColumn = rg.End.Line+1, rg.End.Character+1
	}
	for _, r := range d.Related {
		place := RelatedPlace{File: fsguard.RelSlash(dir, r.Path), Line: 1, Column: 1, Message: r.Message}
		if l := linesOf(r.Path); l != nil {
			pos := l.Position(r.Span.Start, document.UTF32)
			place.Line, place.Column = pos.Line+1, pos.Character+1
		}
		out.Related = append(out.Related, place)
	}
	return out
}

// ConfigDiagnostics returns the problems of lib's configuration file,
// .ctxls.yaml, as diagnostics of that file, the same for every front end:
// those of the file itself, then the chains that name no command of lib.
// Each covers its line, or the file's start when it has none. The lines
// of the file's text, which their spans are in, come with them; nil when
// no file was read. There are none when the configuration disables their
// code.
func ConfigDiagnostics(lib *library.Snapshot) (*document.Lines, []diag.Diagnostic) {
	cfg := lib.Config()
	if cfg.Disabled(config.ProblemCode) {
		return cfg.Lines(), nil
	}
	problems := append(lib.ConfigProblems(), cfg.UnknownChainCommands(func(name string) bool {
		_, ok := lib.Command(name)
		return ok
	})...)
	path := filepath.Join(lib.Dir(), config.FileName)
	lines := cfg.Lines()
	var out []diag.Diagnostic
	for _, p := range problems {
		d := diag.Diagnostic{Path: path, Severity: diag.Warning, Code: config.ProblemCode, Message: p.Message}
		if p.Severity == "error" {
			d.Severity = diag.Error
		}
		if p.Line >= 0 && lines != nil {
			d.Span = document.Span{Start: lines.Start(p.Line), End: lines.Start(p.Line + 1)}
		}
		out = append(out, d)
	}
	return lines, out
}
