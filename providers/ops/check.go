package ops

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/library"
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

// Check returns the diagnostics of the workspace or of Path. A path
// outside the workspace is an ErrInvalid error.
func (o *Ops) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	lib := o.Library()
	keep, err := pathFilter(lib.Dir(), req.Path)
	if err != nil {
		return CheckResponse{}, err
	}
	items := diagnostics(lib, keep, o.diagnoseAll(ctx, lib, req.Path))
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
		if d.Severity == library.SeverityError.String() {
			res.Errors++
		}
	}
	for _, w := range lib.Warnings() {
		if p := relSlash(lib.Dir(), w.Path); keep(w.Path) && !dup[p] {
			res.Warnings = append(res.Warnings, Warning{Message: p + ": " + w.Message})
		}
	}
	return res, nil
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
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, invalidf("path %s is outside the workspace %s", path, dir)
	}
	if rel == "." {
		return func(string) bool { return true }, nil
	}
	return func(p string) bool {
		return p == path || strings.HasPrefix(p, path+string(filepath.Separator))
	}, nil
}

// diagnostics gathers the diagnostics of the files keep accepts from all
// and the problems of the configuration file, sorted by file and position.
func diagnostics(lib *library.Library, keep func(string) bool, all map[string][]library.Diagnostic) []Diagnostic {
	out := []Diagnostic{}
	if keep(filepath.Join(lib.Dir(), config.FileName)) {
		for _, p := range lib.ConfigProblems() {
			// Like the language server, a problem covers its whole line; one
			// without a line points at the start of the file.
			d := Diagnostic{File: config.FileName, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
				Severity: p.Severity, Code: config.ProblemCode, Message: p.Message}
			if p.Line >= 0 {
				d.Line, d.EndLine = p.Line+1, p.Line+2
			}
			out = append(out, d)
		}
	}
	for p, ds := range all {
		if !keep(p) {
			continue
		}
		f, _ := lib.File(p)
		for _, ld := range ds {
			d := Diagnostic{File: relSlash(lib.Dir(), p), Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
				Severity: ld.Severity.String(), Code: ld.Code, Message: ld.Message}
			if f != nil && f.Doc != nil {
				rg := f.Doc.Lines.Range(ld.Span, document.UTF32)
				d.Line, d.Column = rg.Start.Line+1, rg.Start.Character+1
				d.EndLine, d.EndColumn = rg.End.Line+1, rg.End.Character+1
			}
			out = append(out, d)
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
	return out
}

// relSlash returns p relative to dir with forward slashes, or p when it
// is not under dir.
func relSlash(dir, p string) string {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}
