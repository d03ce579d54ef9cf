package imports

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// Problems returns the problems of the tree's files: what the agent does
// not load, or loads at a cost worth a warning, in tree order and then
// document order, each with its code's default severity. Paths in
// messages are shown relative to root.
func (t *Tree) Problems(root string) []diag.Diagnostic {
	var out []diag.Diagnostic
	r := t.Root()
	if r.Chars > t.MaxChars {
		out = append(out, diag.New(r.Path, r.firstLine, diag.MemoryTooLarge,
			"%s has %s characters, over the %s at which Claude Code warns that memory is large; move parts into imports loaded on demand, rules with paths, or skills",
			filepath.Base(r.Path), numfmt.Thousands(r.Chars), numfmt.Thousands(t.MaxChars)))
	}
	for _, f := range t.Files {
		for _, e := range f.Imports {
			if p, ok := t.problem(root, e); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

func (t *Tree) problem(root string, e Edge) (diag.Diagnostic, bool) {
	p := diag.Diagnostic{Path: e.From, Span: e.Span}
	written := "@" + e.Path
	switch e.Status {
	case Loaded:
		f := t.File(e.Target)
		if f == nil || f.Chars <= t.MaxChars {
			return p, false
		}
		p.Code = diag.MemoryTooLarge
		p.Message = fmt.Sprintf("%s loads %s characters, over the %s at which Claude Code warns that memory is large",
			written, numfmt.Thousands(f.Chars), numfmt.Thousands(t.MaxChars))
	case Again:
		return p, false
	case Missing:
		p.Code = diag.ImportMissing
		p.Message = fmt.Sprintf("%s is not loaded: there is no file %s", written, show(root, e.Target))
		trimmed := strings.TrimRight(e.Path, ".")
		switch {
		case e.Kind() != Relative:
		case trimmed != e.Path && trimmed != "":
			// "see @README." : the agent looks for "README.". A link out of
			// the workspace is a file there too, though ctxls does not
			// look at it.
			final := e.Path[len(trimmed):]
			at := filepath.Join(filepath.Dir(e.From), filepath.FromSlash(trimmed))
			if fi, err := t.guard.Check(at); (err == nil && !fi.IsDir()) || errors.Is(err, fsguard.ErrOutsideWorkspace) {
				p.Message += fmt.Sprintf(" (the agent reads the final %q as part of the name; put a space before it)", final)
			} else if sib := t.names.siblings(t.guard, at); len(sib) > 0 {
				p.Message += fmt.Sprintf(" (the agent reads the final %q as part of the name; did you mean @%s?)", final, path.Join(path.Dir(trimmed), sib[0]))
			} else {
				p.Message += fmt.Sprintf(" (the agent reads the final %q as part of the name)", final)
			}
		default:
			if sib := t.names.siblings(t.guard, e.Target); len(sib) > 0 {
				p.Message += fmt.Sprintf(" (did you mean %s?)", filepath.ToSlash(filepath.Join(filepath.Dir(e.Path), sib[0])))
			}
		}
	case Punctuation:
		p.Code = diag.ImportTrailingPunctuation
		p.Message = fmt.Sprintf("%s is not loaded: the agent reads the trailing %q as part of the file name; put a space before it",
			written, e.Trailing)
		end := e.PathSpan().End
		p.Fixes = []diag.Fix{{Title: "Put a space between the import and the punctuation", Preferred: true,
			Edits: []diag.Edit{{Span: document.Span{Start: end, End: end}, NewText: " "}}}}
	case Cycle:
		chain := make([]string, 0, len(e.Chain)+1)
		for _, c := range e.Chain {
			chain = append(chain, show(root, c))
		}
		chain = append(chain, show(root, e.Target))
		p.Code = diag.ImportCycle
		p.Message = fmt.Sprintf("%s closes an import cycle (%s); the file is not loaded again", written, strings.Join(chain, " → "))
	case TooDeep:
		p.Code = diag.ImportTooDeep
		p.Message = fmt.Sprintf("%s is not loaded: it is %d hops from %s, past the limit of %d",
			written, e.Hop, show(root, t.Root().Path), t.MaxHops)
	case Outside:
		p.Code = diag.ImportOutsideProject
		where := "outside the project"
		if e.Target != "" {
			where = e.Target + ", " + where
		}
		p.Message = fmt.Sprintf("%s leads to %s: its cost is not counted, and Claude Code asks before loading files outside the project", written, where)
	case Escapes:
		// Where the link leads is left out: the file it reaches is none of
		// the project's, and a message may end up anywhere.
		p.Code = diag.ImportOutsideProject
		p.Message = fmt.Sprintf("%s leads out of the project through a symbolic link: ctxls does not read it and its cost is not counted, but an agent that follows the link loads a file from outside the project", written)
	case Special:
		p.Code = diag.FileSkipped
		p.Message = fmt.Sprintf("%s is not read: %s is %s", written, show(root, e.Target), e.Why)
	case TooLarge:
		p.Code = diag.MemoryTooLarge
		p.Message = fmt.Sprintf("%s is not loaded: the file is larger than 4 MiB", written)
	default:
		return p, false
	}
	p.Severity = diag.Default(p.Code)
	return p, true
}

// show returns p relative to root with forward slashes when it is inside.
func show(root, p string) string {
	if rel, ok := fsguard.Rel(root, p); ok {
		return rel
	}
	return p
}
