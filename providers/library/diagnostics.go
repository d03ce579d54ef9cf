package library

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/closest"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/library/internal/cowmap"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/refs"
)

// Diagnostic codes, from the rules table. They are stable: editors and
// scripts match on them.
const (
	CodeUnresolved      = diag.UnresolvedReference
	codeUnknownSection  = diag.UnknownSection
	CodeMissingField    = diag.MissingField
	codeInvalidValue    = diag.InvalidValue
	codeIDMismatch      = diag.IDMismatch
	CodeParseError      = diag.FrontmatterParse
	codeUnknownField    = diag.UnknownField
	codeSectionMissing  = diag.SectionMissing
	CodeTokenDrift      = diag.TokenDrift
	codeIndexMissing    = diag.IndexMissingTopic
	codeIndexUnlisted   = diag.IndexUnlistedTopic
	codeFileSkipped     = diag.FileSkipped
	CodeDuplicateTopic  = diag.DuplicateTopic
	driftMinimumTokens  = 10
	maxUnlistedPerIndex = 50
)

// Diagnose returns the diagnostics of the file at path, in order. The
// slice is shared with other callers: it must not be changed.
func (l *Snapshot) Diagnose(p string) []diag.Diagnostic {
	f := l.files.Get(filepath.Clean(p))
	if f == nil {
		return nil
	}
	return l.diagnosed(f)
}

// DiagnoseAll returns the diagnostics of every file that has some, keyed by
// path, computed on all cores for the files not diagnosed yet. The slices
// are shared with other callers: they must not be changed.
func (l *Snapshot) DiagnoseAll(ctx context.Context) map[string][]diag.Diagnostic {
	files := l.sortedFiles()
	out := make([][]diag.Diagnostic, len(files))
	defer l.texts.batch()()
	inParallel(ctx, len(files), func(i int) {
		out[i] = l.diagnosed(files[i])
	})
	m := make(map[string][]diag.Diagnostic)
	for i, f := range files {
		if len(out[i]) > 0 {
			m[f.Path] = out[i]
		}
	}
	return m
}

// diagEntry holds the diagnostics of one file, worked out by the first
// reader that asks for them; another reader of the same file waits for
// that one, readers of other files do not. Snapshots share the entry of a
// file until a change affects the file.
type diagEntry struct {
	once sync.Once
	ds   []diag.Diagnostic
}

// diagnosed returns the diagnostics of f, a file of l, from its entry.
func (l *Snapshot) diagnosed(f *File) []diag.Diagnostic {
	e := l.diags.get(f.Path)
	if e == nil {
		return l.diagnose(f) // a preview's model keeps none
	}
	e.once.Do(func() { e.ds = slices.Clip(l.diagnose(f)) })
	return e.ds
}

// diagTable holds the diagnostic entries of a snapshot's files: base,
// shared with the snapshots before, and over it recent, the entries of
// the files that the changes since base affected (nil for a file gone).
// An edit that affects a hundred files of ten thousand then copies a few
// hundred entries, not the shards of base that they fall in.
type diagTable struct {
	base   cowmap.Map[*diagEntry]
	recent map[string]*diagEntry
}

// maxRecent bounds the entries a change copies from one table to the
// next: past it, they join a copy of base.
const maxRecent = 256

// newDiags returns a table with an entry, not yet worked out, for every
// file.
func newDiags(files cowmap.Map[*File]) diagTable {
	m := cowmap.New[*diagEntry](files.Len())
	entries := make([]diagEntry, files.Len())
	i := 0
	for p := range files.All() {
		m.Set(p, &entries[i])
		i++
	}
	return diagTable{base: m}
}

func (t *diagTable) get(p string) *diagEntry {
	if e, ok := t.recent[p]; ok {
		return e
	}
	return t.base.Get(p)
}

// next returns the table of the snapshot after a change: t's entries, with
// new ones for the affected files of files and none for the files gone.
func (t *diagTable) next(files cowmap.Map[*File], affected map[string]bool) diagTable {
	recent := make(map[string]*diagEntry, len(t.recent)+len(affected))
	maps.Copy(recent, t.recent)
	entries := make([]diagEntry, len(affected))
	for p := range affected {
		recent[p] = nil
		if files.Get(p) != nil {
			recent[p] = &entries[0]
			entries = entries[1:]
		}
	}
	if len(recent) <= maxRecent {
		return diagTable{base: t.base, recent: recent}
	}
	base := t.base.Fork()
	for p, e := range recent {
		if e != nil {
			base.Set(p, e)
		} else {
			base.Delete(p)
		}
	}
	return diagTable{base: base}
}

func (l *Snapshot) diagnose(f *File) []diag.Diagnostic {
	var ds []diag.Diagnostic
	// Severities come from the rules table.
	add := func(s document.Span, code, format string, args ...any) *diag.Diagnostic {
		ds = append(ds, diag.New(f.Path, s, code, format, args...))
		return &ds[len(ds)-1]
	}
	if f.Skipped != "" {
		add(document.Span{}, codeFileSkipped, "%s", f.Skipped)
		return ds
	}
	doc := f.Doc
	// The frontmatter of plain markdown is no library's business (and an
	// agent file's is judged by the agent files' checks).
	if fm := doc.Frontmatter; fm != nil && fm.Err != nil && f.Kind != discover.OtherFile {
		line := min(fm.Err.Line, doc.Lines.Count()-1)
		add(document.Span{Start: doc.Lines.Start(line), End: doc.Lines.End(line)}, CodeParseError, "frontmatter cannot be parsed: %s", fm.Err.Message)
	}
	for _, p := range f.problems {
		add(p.span, p.code, "%s", p.message)
	}
	if t := f.Topic; t != nil {
		if cur := l.topics.Get(t.ID); cur != t && cur != nil {
			d := add(headSpan(doc), CodeDuplicateTopic, "topic %s is also defined by %s, which is the one used", t.ID, fsguard.RelSlash(l.dir, cur.Path))
			d.Related = []diag.Related{{Path: cur.Path, Message: "the definition of topic " + t.ID + " that is used"}}
		}
		l.diagnoseTopic(f, add)
	}
	missing := map[string]bool{}
	// Plain markdown is checked for its links only; a skill names the
	// library in its frontmatter alone.
	plain := f.Kind == discover.OtherFile
	for _, r := range f.Refs.All() {
		if plain && (!isSkill(f) || r.Where != refs.Frontmatter) {
			continue
		}
		tg := l.resolve(f, r)
		if tg.Kind != Unresolved {
			continue
		}
		code, span := CodeUnresolved, r.Span
		switch tg.Failed {
		case PartSection:
			code, span = codeUnknownSection, nonEmpty(r.SectionSpan, r.Span)
			if r.Form == refs.PathForm {
				span = r.Span
			}
		case PartDomain:
			span = nonEmpty(r.DomainSpan, r.Span)
		case PartTopic:
			span = nonEmpty(r.TopicSpan, r.Span)
		case PartPath:
			span = nonEmpty(r.PathSpan, r.Span)
		}
		// An index listing a file that is not there is a stale entry; a
		// path that misses an existing topic is a broken reference.
		if code == CodeUnresolved && isIndex(f) && tg.Topic == nil && (r.Form == refs.PathForm || r.Field == "indexedFiles") {
			code = codeIndexMissing
			// An index names a topic several times (an indexedFiles entry
			// by id and path, then the body in prose or links): one
			// report per missing topic, at its first mention, is enough.
			if tg.Missing != "" {
				if missing[tg.Missing] {
					continue
				}
				missing[tg.Missing] = true
			}
		}
		msg := tg.Message
		if len(tg.Candidates) > 0 {
			msg += "; did you mean " + quoteList(tg.Candidates) + "?"
		}
		d := add(span, code, "%s", msg)
		d.Fixes = replaceBy(span, tg.Candidates)
	}
	ds = append(ds, l.linkDiagnostics(f)...)
	if len(l.cfg.Disable) > 0 {
		ds = slices.DeleteFunc(ds, func(d diag.Diagnostic) bool { return l.cfg.Disabled(d.Code) })
	}
	slices.SortStableFunc(ds, func(a, b diag.Diagnostic) int { return a.Span.Start - b.Span.Start })
	return ds
}

// replaceBy returns the fixes that replace span by each candidate, the
// first one preferred.
func replaceBy(span document.Span, candidates []string) []diag.Fix {
	var out []diag.Fix
	for i, c := range candidates {
		out = append(out, diag.Fix{Title: fmt.Sprintf("Change to '%s'", c), Preferred: i == 0,
			Edits: []diag.Edit{{Span: span, NewText: c}}})
	}
	return out
}

// diagnoseTopic adds the checks that only apply to topic files.
func (l *Snapshot) diagnoseTopic(f *File, add func(document.Span, string, string, ...any) *diag.Diagnostic) {
	t, doc := f.Topic, f.Doc
	root := doc.Frontmatter.Root() // parsed once for all the checks below
	field := func(key string) (k, v document.Node) { return root.Field(key) }
	if root.Exists() && t.Domain != "" {
		if k, v := field("id"); k.Exists() && t.Meta.ID != t.ID {
			d := add(doc.NodeSpan(v), codeIDMismatch, "id %q does not match the file's path, which gives %q", t.Meta.ID, t.ID)
			d.Fixes = replaceBy(doc.ValueSpan(v), []string{t.ID})
		}
		if k, v := field("domain"); k.Exists() && t.Meta.Domain != t.Domain {
			d := add(doc.NodeSpan(v), codeIDMismatch, "domain %q does not match the directory the file is in, %q", t.Meta.Domain, t.Domain)
			d.Fixes = replaceBy(doc.ValueSpan(v), []string{t.Domain})
		}
	}
	if root.Exists() {
		threshold := l.cfg.DriftThreshold
		// Drift is reported once per file, at its first drifting number,
		// so that a library whose counts are all stale still shows its
		// real problems; the fix updates every number.
		var drift []driftAt
		if _, v := field("estimatedTokens"); v.Exists() && t.Meta.EstimatedTokens > 0 {
			if drifted(t.Meta.EstimatedTokens, t.Tokens, threshold) {
				drift = append(drift, driftAt{doc.NodeSpan(v), t.Tokens,
					fmt.Sprintf("declares %d tokens but the body measures %d (%s), %s off; the threshold is %.0f %%",
						t.Meta.EstimatedTokens, t.Tokens, l.counter.Name(), percent(t.Meta.EstimatedTokens, t.Tokens), threshold*100)})
			}
		}
		defer func() {
			if len(drift) == 0 {
				return
			}
			first := drift[0]
			msg := first.message
			if n := len(drift) - 1; n > 0 {
				msg += fmt.Sprintf("; %d more token count%s in this file drift too", n, numfmt.Plural(n))
			}
			d := add(first.span, CodeTokenDrift, "%s", msg)
			d.Tokenizer = l.counter.Name()
			// One fix updates every number of the file.
			edits := make([]diag.Edit, len(drift))
			for i, x := range drift {
				edits[i] = diag.Edit{Span: x.span, NewText: strconv.Itoa(x.measured)}
			}
			title := fmt.Sprintf("Update declared tokens to %d (measured)", first.measured)
			if len(edits) > 1 {
				title = fmt.Sprintf("Update all %d declared token numbers in this file", len(edits))
			}
			d.Fixes = []diag.Fix{{Title: title, Preferred: true, Edits: edits}}
		}()
		if _, secs := field("sections"); secs.Exists() {
			for item := range secs.Items() {
				name, tokNode := sectionNodes(item)
				if !name.Exists() {
					continue
				}
				s, ok := t.Section(name.Value())
				if !ok {
					names := t.SectionNames()
					d := add(doc.NodeSpan(name), codeSectionMissing, "section %q is named in the frontmatter but no heading has that name", name.Value())
					for i := range names {
						names[i] = unnumbered(names[i])
					}
					if c := closest.Names(name.Value(), names, 3); len(c) > 0 {
						d.Message += "; did you mean " + quoteList(c) + "?"
						d.Fixes = replaceBy(doc.ValueSpan(name), c)
					}
					continue
				}
				if tokNode.Exists() && s.Declared > 0 && drifted(s.Declared, s.Tokens, threshold) {
					drift = append(drift, driftAt{doc.NodeSpan(tokNode), s.Tokens,
						fmt.Sprintf("section %q declares %d tokens but measures %d (%s), %s off",
							s.Name, s.Declared, s.Tokens, l.counter.Name(), percent(s.Declared, s.Tokens))})
				}
			}
		}
	}
	if t.Domain != "" && t.Name == "index" {
		l.diagnoseIndex(f, add)
	}
}

// diagnoseIndex checks a domain index: what it lists must exist (through
// references and indexedFiles) and every topic of the domain should be
// listed.
func (l *Snapshot) diagnoseIndex(f *File, add func(document.Span, string, string, ...any) *diag.Diagnostic) {
	t := f.Topic
	d := l.domains[t.Domain]
	if d == nil {
		return
	}
	listed := map[*Topic]bool{t: true}
	for _, r := range f.Refs.All() {
		if tg := l.resolve(f, r); tg.Topic != nil {
			listed[tg.Topic] = true
		}
	}
	// indexedFiles[].path is relative to the index; its id is checked as a
	// reference already.
	if _, v := f.Doc.Frontmatter.Field("indexedFiles"); v.Exists() {
		for item := range v.Items() {
			for k, vn := range item.Entries() {
				val := vn.Value()
				switch k.Value() {
				case "id":
					if x := l.topics.Get(val); x != nil {
						listed[x] = true
					}
				case "path":
					if x := l.topicAt(filepath.Join(filepath.Dir(f.Path), filepath.FromSlash(val))); x != nil {
						listed[x] = true
					}
				}
			}
		}
	}
	n := 0
	for _, x := range d.Topics {
		if listed[x] {
			continue
		}
		if n++; n > maxUnlistedPerIndex {
			break
		}
		add(headSpan(f.Doc), codeIndexUnlisted, "topic %s (%s) is not listed in this index", x.Key(), path.Base(x.RelPath))
	}
}

// headSpan is where whole-file diagnostics point: the first heading, or
// the first line.
func headSpan(doc *document.Doc) document.Span {
	for _, h := range doc.Headings {
		if h.Level == 1 {
			return h.TextSpan
		}
	}
	return document.Span{Start: doc.Body.Start, End: doc.Lines.End(doc.Lines.LineOf(doc.Body.Start))}
}

// drifted reports whether a declared count is off the measured one by more
// than the threshold; differences under a few tokens never count, since a
// tiny section cannot be declared that precisely.
func drifted(declared, measured int, threshold float64) bool {
	diff := math.Abs(float64(declared - measured))
	if diff < driftMinimumTokens {
		return false
	}
	return diff > threshold*float64(max(measured, 1))
}

// driftAt is one declared token count that drifts.
type driftAt struct {
	span     document.Span
	measured int
	message  string
}

func percent(declared, measured int) string {
	return fmt.Sprintf("%+.0f %%", 100*float64(declared-measured)/float64(max(measured, 1)))
}

func nonEmpty(s, fallback document.Span) document.Span {
	if s.End > s.Start {
		return s
	}
	return fallback
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	return strings.Join(q, " or ")
}

func isIndex(f *File) bool { return f.Topic != nil && f.Topic.Meta.Type == "index" }
