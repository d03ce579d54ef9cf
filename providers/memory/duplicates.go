package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/tokens"
)

// minParagraph is the length, in characters once its spaces are
// collapsed, under which a paragraph said twice is not reported: a
// heading, a short rule or a list item may well repeat on purpose.
const minParagraph = 100

// loaded is a file that loads at the start of a session.
type loaded struct {
	path string
	text []byte
}

// startFiles returns the files a Claude Code session loads at its start,
// in the order it loads them: project memory, local memory, the rules
// without paths, each followed by what its imports bring in, each file
// once. trees holds the import trees already built, by memory file.
func startFiles(ctx context.Context, set *agentfiles.Set, cfg *config.Config, read Read, trees map[string]*imports.Tree) []loaded {
	var roots []*agentfiles.File
	for _, k := range []Kind{Project, Local, Rule} {
		for _, f := range set.Files {
			if f.Skipped != "" || f.Doc == nil || Classify(f.Rel) != k {
				continue
			}
			if k == Rule {
				if _, scoped := RulePaths(f.Doc); scoped || !strings.HasPrefix(f.Rel, ".claude/rules/") {
					continue
				}
			}
			roots = append(roots, f)
		}
	}
	seen := map[string]bool{}
	var out []loaded
	for _, f := range roots {
		rd := read
		if rd == nil {
			rd = func(p string) ([]byte, error) {
				if p == f.Path {
					return f.Text, nil
				}
				return imports.ReadFile(set.Guard(), p)
			}
		}
		t := trees[f.Path]
		if t == nil {
			opt := Options(cfg, set.Root, nil)
			opt.Guard = set.Guard()
			opt.Read = rd
			var err error
			if t, err = imports.Build(ctx, f.Path, opt); err != nil {
				continue
			}
		}
		for _, tf := range t.Files {
			if seen[tf.Path] {
				continue
			}
			seen[tf.Path] = true
			if text, err := rd(tf.Path); err == nil {
				out = append(out, loaded{tf.Path, text})
			}
		}
	}
	return out
}

// paragraph is a block of text between blank lines.
type paragraph struct {
	span document.Span
	key  string // the text with its spaces collapsed
}

// paragraphs returns the paragraphs of a markdown body of minParagraph
// characters or more.
func paragraphs(doc *document.Doc) []paragraph {
	var out []paragraph
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		key := strings.Join(strings.Fields(string(doc.Text[start:end])), " ")
		if len(key) >= minParagraph {
			out = append(out, paragraph{document.Span{Start: start, End: end}, key})
		}
		start = -1
	}
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		s := doc.Lines.Start(n)
		if s < doc.Body.Start {
			continue
		}
		line := doc.Lines.Line(n)
		if strings.TrimSpace(string(line)) == "" {
			flush(s)
			continue
		}
		if start < 0 {
			start = s
		}
	}
	flush(len(doc.Text))
	for i := range out {
		// End at the paragraph's last character, not the blank line.
		t := strings.TrimRight(string(doc.Text[out[i].span.Start:out[i].span.End]), " \t\r\n")
		out[i].span.End = out[i].span.Start + len(t)
	}
	return out
}

// duplicates reports each paragraph that a session loads a second time:
// in a memory file and a file it imports, or in a rule, with the tokens
// the second copy costs.
func duplicates(ctx context.Context, set *agentfiles.Set, cfg *config.Config, counter tokens.Counter, read Read, trees map[string]*imports.Tree) []diag.Diagnostic {
	type first struct {
		path string
		line int
	}
	seen := map[string]first{}
	var out []diag.Diagnostic
	for _, l := range startFiles(ctx, set, cfg, read, trees) {
		doc := document.Parse(l.path, l.text)
		for _, p := range paragraphs(doc) {
			line := doc.Lines.LineOf(p.span.Start) + 1
			f, dup := seen[p.key]
			if !dup {
				seen[p.key] = first{l.path, line}
				continue
			}
			if counter == nil {
				counter = Counter()
			}
			where := fmt.Sprintf("line %d", f.line)
			if f.path != l.path {
				where = fmt.Sprintf("%s:%d", fsguard.RelSlash(set.Root, f.path), f.line)
			}
			out = append(out, diag.Diagnostic{Path: l.path, Span: p.span, Severity: diag.Default(diag.MemoryDuplicate), Code: diag.MemoryDuplicate,
				Message: fmt.Sprintf("this paragraph is loaded a second time in every Claude Code session (first at %s): %d tokens (%s) spent twice", where,
					counter.Count(string(doc.Text[p.span.Start:p.span.End])), counter.Name()),
				Tokenizer: counter.Name()})
		}
	}
	return out
}
