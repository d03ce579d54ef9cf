package ops

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/closest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/tokens"
)

// LoadContextRequest names what to load, in order, and the most tokens the
// loaded text may cost.
type LoadContextRequest struct {
	// Refs are "domain:topic", "domain:topic#Section", a root topic's
	// name, a skill's name or the path of a markdown file of the workspace
	// (relative to the workspace directory, or absolute inside it): a
	// file of the library, or a skill, command or rule.
	Refs []string `json:"refs"`
	// BudgetTokens bounds the tokens of the returned text, at most
	// 1,000,000; 0 means that most.
	BudgetTokens int `json:"budgetTokens,omitempty"`
	// Tokenizer, when set, is the encoding the budget and every figure
	// are counted in; else the workspace's.
	Tokenizer string `json:"tokenizer,omitempty"`
}

// LoadedRef is one piece of the loaded text.
type LoadedRef struct {
	// Ref is the canonical reference of the piece: "domain:topic",
	// "domain:topic#Section" or a workspace-relative path.
	Ref string `json:"ref"`
	// Tokens is the cost of the piece, its header line included, as its
	// parts were measured.
	Tokens int `json:"tokens"`
}

// OmittedRef is something asked for that was left out.
type OmittedRef struct {
	Ref string `json:"ref"`
	// Tokens is what the piece would have cost.
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
}

// LoadContextResult is the loaded text and its accounting.
type LoadContextResult struct {
	// Text is every loaded piece, in the order asked for, each after a
	// header line that names it.
	Text string `json:"text"`
	// Tokens is the measured cost of Text; it never exceeds the budget.
	Tokens int `json:"tokens"`
	// Tokenizer names the encoding of every figure.
	Tokenizer string       `json:"tokenizer"`
	Loaded    []LoadedRef  `json:"loaded"`
	Omitted   []OmittedRef `json:"omitted"`
}

// maxLoadRefs and maxLoadTokens bound a request, and so its memory: a
// million tokens is about 4 MB of text, more than any model's window.
const (
	maxLoadRefs   = 256
	maxLoadTokens = 1_000_000
)

// piece is one resolvable part of a topic or file.
type piece struct {
	ref     string
	content string
	tokens  int // of content, as the library measured it
}

// resolved is one ref, resolved: the whole of a file (with its sections,
// for a section-level cut) or one section.
type resolved struct {
	whole    piece
	sections []piece // level-two sections in order; empty for a section ref
	section  bool
}

// LoadContext loads refs in order within req.BudgetTokens. A ref that does
// not fit whole is cut to the level-two sections that fit before it is
// dropped; what is left out is listed with the reason. Every ref is
// checked before anything is loaded: one that is malformed, unknown or
// outside the workspace fails the request with an ErrInvalid error that
// says why.
func (o *Ops) LoadContext(ctx context.Context, req LoadContextRequest) (LoadContextResult, error) {
	if len(req.Refs) == 0 {
		return LoadContextResult{}, badRef("refs is empty; name at least one topic, section or file")
	}
	if len(req.Refs) > maxLoadRefs {
		return LoadContextResult{}, badRef("%d refs; at most %d per request", len(req.Refs), maxLoadRefs)
	}
	if req.BudgetTokens < 0 || req.BudgetTokens > maxLoadTokens {
		return LoadContextResult{}, badRef("budgetTokens %d is out of range: 1 to %d, or 0 for %d", req.BudgetTokens, maxLoadTokens, maxLoadTokens)
	}
	var own tokens.Counter
	if req.Tokenizer != "" {
		c, err := tokens.New(req.Tokenizer)
		if err != nil {
			return LoadContextResult{}, invalidf("%v", err)
		}
		own = c
	}
	return withHeavy(o, ctx, func(ctx context.Context) (LoadContextResult, error) {
		// One state for the whole request: every ref resolves against the
		// same library and agent files, however the workspace changes.
		snap := o.opts.Snapshot()
		lib := snap.Library()
		agents := o.agentFiles(ctx, snap)
		all := make([]resolved, 0, len(req.Refs))
		for _, r := range req.Refs {
			if err := ctx.Err(); err != nil {
				return LoadContextResult{}, err
			}
			res, err := o.resolveRef(ctx, lib, agents, r)
			if err != nil {
				return LoadContextResult{}, err
			}
			all = append(all, res)
		}

		counter := lib.Counter()
		// The library measured its pieces in its own tokenizer; in
		// another, each piece is counted again.
		recount := own != nil && own.Name() != counter.Name()
		if recount {
			counter = own
		}
		out := LoadContextResult{Tokenizer: counter.Name(), Loaded: []LoadedRef{}, Omitted: []OmittedRef{}}
		var parts []string
		used := 0
		budget := cmp.Or(req.BudgetTokens, maxLoadTokens)
		loaded := map[string]bool{}
		add := func(pc piece) bool {
			// The content's tokens were measured when the library read it; only
			// the header is counted here. The joined text is counted once, at
			// the end.
			if recount {
				pc.tokens = counter.Count(pc.content)
			}
			h := header(pc.ref)
			n := counter.Count(h) + pc.tokens
			if used+n > budget {
				return false
			}
			parts = append(parts, h+strings.TrimRight(pc.content, "\n")+"\n")
			used += n
			loaded[pc.ref] = true
			out.Loaded = append(out.Loaded, LoadedRef{Ref: pc.ref, Tokens: n})
			return true
		}
		omit := func(pc piece, reason string) {
			if recount {
				pc.tokens = counter.Count(pc.content)
			}
			out.Omitted = append(out.Omitted, OmittedRef{Ref: pc.ref, Tokens: pc.tokens, Reason: reason})
		}
		for _, r := range all {
			w := r.whole
			switch {
			case loaded[w.ref] || r.section && loaded[parentRef(w.ref)]:
				omit(w, "already loaded")
				continue
			case add(w):
				continue
			case r.section || len(r.sections) == 0:
				omit(w, overBudget(budget, used))
				continue
			}
			// A section-level cut: the sections that fit, in order.
			var cut []piece
			for _, s := range r.sections {
				if loaded[s.ref] {
					continue
				}
				if !add(s) {
					cut = append(cut, s)
				}
			}
			for _, s := range cut {
				omit(s, overBudget(budget, used))
			}
		}
		out.Text = strings.Join(parts, "\n")
		out.Tokens = counter.Count(out.Text)
		// Pieces were counted part by part; joined, the text may tokenize a
		// little differently, and the budget is hard.
		for out.Tokens > budget && len(parts) > 0 {
			last := out.Loaded[len(out.Loaded)-1]
			out.Loaded = out.Loaded[:len(out.Loaded)-1]
			parts = parts[:len(parts)-1]
			out.Omitted = append(out.Omitted, OmittedRef{Ref: last.Ref, Tokens: last.Tokens, Reason: overBudget(budget, used-last.Tokens)})
			used -= last.Tokens
			out.Text = strings.Join(parts, "\n")
			out.Tokens = counter.Count(out.Text)
		}
		return out, nil
	})
}

// header is the line that opens a loaded piece.
func header(ref string) string { return "<!-- ctxls: " + ref + " -->\n" }

func overBudget(budget, used int) string {
	return fmt.Sprintf("over budget: %d of %d tokens left", max(budget-used, 0), budget)
}

// parentRef is the topic of a section ref.
func parentRef(ref string) string {
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		return ref[:i]
	}
	return ref
}

// resolveRef resolves one ref against the library and the agent files.
func (o *Ops) resolveRef(ctx context.Context, lib *library.Snapshot, agents []*agentfiles.File, raw string) (resolved, error) {
	ref := strings.TrimSpace(raw)
	if ref == "" {
		return resolved{}, badRef("an empty ref")
	}
	if strings.ContainsRune(ref, 0) {
		return resolved{}, badRef("%q holds a NUL byte", raw)
	}
	name, section, hasSection := strings.Cut(ref, "#")
	name, section = strings.TrimSpace(name), strings.TrimSpace(section)
	if hasSection && section == "" {
		return resolved{}, badRef("%q names no section after #", raw)
	}
	if name == "" {
		return resolved{}, badRef("%q names no topic before #", raw)
	}
	var t *library.Topic
	if isPath(name) {
		f, err := o.fileAt(ctx, lib, agents, name)
		if err != nil {
			return resolved{}, withKind(ErrInvalid, err)
		}
		if f.topic == nil {
			if hasSection {
				return resolved{}, badRef("%s is not a topic, so it has no sections to name", f.rel)
			}
			return resolved{whole: piece{ref: f.rel, content: f.body, tokens: lib.Counter().Count(f.body)}}, nil
		}
		t = f.topic
	} else {
		domain, file := "", name
		if i := strings.IndexAny(name, ":/"); i >= 0 {
			domain, file = name[:i], name[i+1:]
		}
		if file == "" {
			return resolved{}, badRef("%q names no topic; write domain:topic", raw)
		}
		topic, warns, err := o.prov.Lookup(lib, domain, file)
		if err != nil {
			return resolved{}, badRef("%s: %v", raw, err)
		}
		if topic == nil && domain == "" {
			if sk, ok := skillIn(agents, name); ok && sk.Doc != nil {
				if hasSection {
					return resolved{}, badRef("%s is a skill; load it whole, without #%s", name, section)
				}
				if _, err := o.fileAt(ctx, lib, agents, sk.Path); err != nil {
					return resolved{}, withKind(ErrInvalid, err)
				}
				doc, err := heldDoc(ctx, sk.Doc)
				if err != nil {
					return resolved{}, err
				}
				body := string(doc.Slice(doc.Body))
				return resolved{whole: piece{ref: name, content: body, tokens: lib.Counter().Count(body)}}, nil
			}
			return resolved{}, badRef("unknown ref %s: no topic or skill has that name", raw)
		}
		if topic == nil {
			return resolved{}, badRef("unknown topic %s: %s", raw, cmp.Or(joinWarnings(warns), "no such topic"))
		}
		t = topic
	}
	if hasSection {
		s, ok := t.Section(section)
		if !ok {
			hint := ""
			if sug := closest.Names(section, t.SectionNames(), 3); len(sug) > 0 {
				hint = "; did you mean " + strings.Join(sug, ", ") + "?"
			}
			return resolved{}, badRef("%s has no section %q%s", t.Key(), section, hint)
		}
		doc, err := heldDoc(ctx, t.Doc)
		if err != nil {
			return resolved{}, err
		}
		return resolved{section: true, whole: piece{ref: t.Key() + "#" + s.Name, content: string(doc.Slice(s.Content)), tokens: s.Tokens}}, nil
	}
	doc, err := heldDoc(ctx, t.Doc)
	if err != nil {
		return resolved{}, err
	}
	r := resolved{whole: piece{ref: t.Key(), content: string(doc.Slice(doc.Body)), tokens: t.Tokens}}
	for _, s := range t.Sections {
		if s.Level == 2 {
			r.sections = append(r.sections, piece{ref: t.Key() + "#" + s.Name, content: string(doc.Slice(s.Content)), tokens: s.Tokens})
		}
	}
	return r, nil
}

// isPath reports whether a ref names a file rather than a topic.
func isPath(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".md") || filepath.IsAbs(name) ||
		strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../") || strings.ContainsRune(name, '\\')
}

// workspaceFile is a markdown file of the workspace: a file of the
// library (a topic when topic is set) or an agent file.
type workspaceFile struct {
	rel   string
	body  string
	topic *library.Topic
}

// fileAt returns the markdown file of the workspace at name, a file of lib
// or one of agents, refusing anything outside the workspace directory,
// links followed.
func (o *Ops) fileAt(ctx context.Context, lib *library.Snapshot, agents []*agentfiles.File, name string) (workspaceFile, error) {
	dir := lib.Dir()
	abs := filepath.Clean(filepath.FromSlash(name))
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	if !fsguard.Within(dir, abs) {
		return workspaceFile{}, fmt.Errorf("%s is outside the workspace %s", name, dir)
	}
	// Discovery skips what the root check refuses, so check first: the
	// error then says why rather than that the file is unknown.
	switch _, err := lib.Root().Check(abs); {
	case errors.Is(err, fsguard.ErrOutsideWorkspace):
		return workspaceFile{}, fmt.Errorf("%s links outside the workspace", name)
	case errors.Is(err, fsguard.ErrNotRegular):
		return workspaceFile{}, fmt.Errorf("%s is not a regular file", name)
	}
	var wf workspaceFile
	if f, ok := lib.File(abs); ok {
		if f.Doc == nil {
			return workspaceFile{}, fmt.Errorf("%s was not read: %s", f.Rel, f.Skipped)
		}
		doc, err := heldDoc(ctx, f.Doc)
		if err != nil {
			return workspaceFile{}, err
		}
		wf = workspaceFile{rel: f.Rel, body: string(doc.Slice(doc.Body)), topic: f.Topic}
	} else if af, ok := agentFileIn(agents, abs); ok {
		if af.Doc == nil {
			return workspaceFile{}, fmt.Errorf("%s was not read: %s", af.Rel, af.Skipped)
		}
		wf = workspaceFile{rel: af.Rel, body: string(af.Doc.Slice(af.Doc.Body))}
	} else {
		return workspaceFile{}, fmt.Errorf("%s is not a markdown file of the workspace's library, nor a skill, command or rule", name)
	}
	return wf, nil
}

// heldDoc returns doc with its text, which the library reads back for a
// file no editor has open. A file changed or gone since it was indexed is
// a conflict: the library indexes it again, and the request may be made
// again.
func heldDoc(ctx context.Context, doc *document.Doc) (*document.Doc, error) {
	held, err := doc.Held(ctx)
	if err != nil {
		return nil, withKind(ErrConflict, fmt.Errorf("%w; it is being indexed again", err))
	}
	return held, nil
}

// badRef is the error of a ref that is malformed, unknown or outside the
// workspace.
func badRef(format string, args ...any) error {
	return withKind(ErrInvalid, fmt.Errorf(format, args...))
}
