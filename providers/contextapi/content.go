package contextapi

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/internal/closest"
	"github.com/ctxls/ctxls/providers/library"
)

// ContextFile is a materialized context file: its body without
// frontmatter and the token cost of that body. Reason and Relevance say
// why a file was selected when a method chose it.
type ContextFile struct {
	ID              string            `json:"id"`
	Domain          string            `json:"domain"`
	Title           string            `json:"title"`
	Content         string            `json:"content"`
	EstimatedTokens int               `json:"estimatedTokens"`
	DeclaredTokens  int               `json:"declaredTokens,omitempty"`
	Path            string            `json:"path"`
	URI             string            `json:"uri,omitempty"`
	Metadata        *library.Metadata `json:"metadata"`
	Reason          string            `json:"reason,omitempty"`
	Relevance       float64           `json:"relevance,omitempty"`
	MatchedOn       []string          `json:"matchedOn,omitempty"`
}

// FileResult is the result of Materialize: the file (empty when it does
// not exist) and warnings.
type FileResult struct {
	ContextFile
	Warnings []Warning `json:"warnings"`
}

// SectionContent is one loaded section.
type SectionContent struct {
	Name            string `json:"name"`
	Content         string `json:"content"`
	EstimatedTokens int    `json:"estimatedTokens"`
}

// PartialContextFile is the result of MaterializeSections.
type PartialContextFile struct {
	ID          string            `json:"id"`
	Domain      string            `json:"domain"`
	Title       string            `json:"title"`
	Sections    []SectionContent  `json:"sections"`
	TotalTokens int               `json:"totalTokens"`
	Path        string            `json:"path,omitempty"`
	Metadata    *library.Metadata `json:"metadata,omitempty"`
	Warnings    []Warning         `json:"warnings"`
}

// file returns the tier-3 content entry of a whole topic. It fails when
// the topic's text, which the library reads back, changed or vanished
// since it was indexed.
func (p *Provider) file(ctx context.Context, t *library.Topic) (ContextFile, error) {
	key := "content:" + t.ID
	p.mu.Lock()
	if e, ok := p.content[key]; ok && e.topic == t {
		p.stats.Content.Hits++
		p.mu.Unlock()
		return e.value.(ContextFile), nil
	}
	p.stats.Content.Misses++
	p.mu.Unlock()
	doc, err := t.Doc.Held(ctx)
	if err != nil {
		return ContextFile{}, fmt.Errorf("%s: %w", t.Key(), err)
	}
	r := p.reference(t)
	f := ContextFile{
		ID: t.ID, Domain: t.Domain, Title: r.Title, Content: string(doc.Slice(doc.Body)),
		EstimatedTokens: t.Tokens, DeclaredTokens: t.Declared(),
		Path: t.Path, URI: r.URI, Metadata: &t.Meta,
	}
	p.mu.Lock()
	p.content[key] = &contentEntry{topic: t, value: f}
	p.mu.Unlock()
	return f, nil
}

// Materialize loads the full body of the file a reference names (by its
// id, "domain/file" or "domain:file").
func (p *Provider) Materialize(ctx context.Context, ref Reference) (FileResult, error) {
	lib := p.library()
	t, warns, err := p.lookupRef(lib, ref)
	if err != nil {
		return FileResult{}, err
	}
	res := FileResult{Warnings: nonNil(warns)}
	if t != nil {
		if res.ContextFile, err = p.file(ctx, t); err != nil {
			return FileResult{}, err
		}
	}
	return res, nil
}

// lookupRef finds the topic of a reference: by id, else by domain and the
// file name of its path.
func (p *Provider) lookupRef(lib *library.Snapshot, ref Reference) (*library.Topic, []Warning, error) {
	id := ref.ID
	if i := strings.IndexByte(id, '#'); i >= 0 {
		id = id[:i]
	}
	if id == "" && ref.Path != "" {
		// The path of a Reference is relative to the workspace; an
		// absolute one is accepted too.
		path := ref.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(lib.Dir(), filepath.FromSlash(path))
		}
		for _, t := range lib.Topics() {
			if t.Path == path {
				p.reference(t)
				if err := p.guard(t); err != nil {
					return nil, nil, err
				}
				return t, nil, nil
			}
		}
		return nil, []Warning{warnf(WarnFileNotFound, "no context file at %s", ref.Path)}, nil
	}
	return p.lookupID(lib, id)
}

// MaterializeSections loads only the named sections of a file. Names match
// case-insensitively (or by their anchor slug); a name that matches no
// section is skipped with a warning.
func (p *Provider) MaterializeSections(ctx context.Context, ref Reference, sections []string) (PartialContextFile, error) {
	lib := p.library()
	t, warns, err := p.lookupRef(lib, ref)
	if err != nil {
		return PartialContextFile{}, err
	}
	out := PartialContextFile{Sections: []SectionContent{}, Warnings: nonNil(warns)}
	if t == nil {
		return out, nil
	}
	norm := make([]string, 0, len(sections))
	for _, s := range sections {
		if s = strings.TrimSpace(s); s != "" {
			norm = append(norm, s)
		}
	}
	key := "sections:" + t.ID + ":" + strings.Join(norm, ",")
	p.mu.Lock()
	if e, ok := p.content[key]; ok && e.topic == t {
		p.stats.Content.Hits++
		p.mu.Unlock()
		pc := e.value.(PartialContextFile)
		pc.Sections = slices.Clone(pc.Sections)
		pc.Warnings = nonNil(slices.Clone(pc.Warnings))
		return pc, nil
	}
	p.stats.Content.Misses++
	p.mu.Unlock()

	r := p.reference(t)
	out.ID, out.Domain, out.Title, out.Path, out.Metadata = t.ID, t.Domain, r.Title, t.Path, &t.Meta
	doc, err := t.Doc.Held(ctx)
	if err != nil {
		return PartialContextFile{}, fmt.Errorf("%s: %w", t.Key(), err)
	}
	seen := map[string]bool{}
	for _, name := range norm {
		s, ok := t.Section(name)
		if !ok {
			w := warnf(WarnSectionNotFound, "section %q not found in %s", name, t.Key())
			names := t.SectionNames()
			if sug := closest.Names(name, names, 3); len(sug) > 0 {
				w.Message += fmt.Sprintf("; did you mean %s?", strings.Join(sug, ", "))
			} else if len(names) > 0 {
				w.Message += fmt.Sprintf("; its sections are %s", strings.Join(names[:min(len(names), 12)], ", "))
			}
			out.Warnings = append(out.Warnings, w)
			continue
		}
		if seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		out.Sections = append(out.Sections, SectionContent{Name: s.Name, Content: string(doc.Slice(s.Content)), EstimatedTokens: s.Tokens})
		out.TotalTokens += s.Tokens
	}
	p.mu.Lock()
	p.content[key] = &contentEntry{topic: t, value: out}
	p.mu.Unlock()
	res := out
	res.Sections = slices.Clone(out.Sections)
	res.Warnings = nonNil(slices.Clone(out.Warnings))
	return res, nil
}

// alwaysTopics are a domain's always-load topics: loadingStrategy always
// or type always. The index is excluded: protocol step 1 reads it before
// anything is loaded. A detection file marked always is included, as the
// interface's example for python shows.
func alwaysTopics(d *library.Domain) []*library.Topic {
	var out []*library.Topic
	for _, t := range d.Topics {
		if t.Meta.Type == "index" {
			continue
		}
		if t.AlwaysLoad() {
			out = append(out, t)
		}
	}
	return out
}

// domainFiles checks a domain name and looks it up in the current library
// for a request that lists files. When the domain is not there dom is nil
// and out carries the warning that says so; out is otherwise empty.
func (p *Provider) domainFiles(domain string) (lib *library.Snapshot, dom *library.Domain, out List[ContextFile], err error) {
	if err := checkName(domain); err != nil {
		return nil, nil, List[ContextFile]{}, err
	}
	lib = p.library()
	out = newList[ContextFile]()
	out.Tokenizer = lib.Counter().Name()
	dom, ok := lib.Domain(domain)
	if !ok || strings.ContainsAny(domain, `/\`) {
		out.Warnings = append(out.Warnings, notFoundDomain(lib, domain))
		return lib, nil, out, nil
	}
	return lib, dom, out, nil
}

// AlwaysLoadFiles loads the files every invocation in a domain loads.
func (p *Provider) AlwaysLoadFiles(ctx context.Context, domain string) (List[ContextFile], error) {
	_, d, out, err := p.domainFiles(domain)
	if err != nil || d == nil {
		return out, err
	}
	for _, t := range alwaysTopics(d) {
		p.reference(t)
		if err := p.guard(t); err != nil {
			out.Warnings = append(out.Warnings, warnf(WarnOutsideRoot, "%s skipped: %v", t.Key(), err))
			continue
		}
		f, err := p.file(ctx, t)
		if err != nil {
			out.Warnings = append(out.Warnings, warnf(WarnFileNotFound, "%s skipped: %v", t.Key(), err))
			continue
		}
		f.Reason = "always"
		out.Items = append(out.Items, f)
	}
	return out, nil
}
