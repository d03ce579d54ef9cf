package contextapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/closest"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
)

// SectionInfo is a section of a topic: its name, declared and measured
// token costs and keywords.
type SectionInfo struct {
	Name            string   `json:"name"`
	EstimatedTokens int      `json:"estimatedTokens,omitempty"`
	MeasuredTokens  int      `json:"measuredTokens"`
	Keywords        []string `json:"keywords,omitempty"`
}

// Reference is the metadata of one context file without its content: the
// ContextCatalogEntry and ContextReference of the interface. EstimatedTokens
// is the declared cost (absent when the file declares none); MeasuredTokens
// is the cost measured with the configured tokenizer.
type Reference struct {
	ID              string `json:"id"`
	Domain          string `json:"domain"`
	Title           string `json:"title"`
	Type            string `json:"type"`
	EstimatedTokens int    `json:"estimatedTokens,omitempty"`
	MeasuredTokens  int    `json:"measuredTokens"`
	LoadingStrategy string `json:"loadingStrategy"`
	// Path is the file's path relative to the workspace (the library's
	// root), slash-separated; URI locates it absolutely.
	Path                string        `json:"path"`
	URI                 string        `json:"uri,omitempty"`
	Tags                []string      `json:"tags,omitempty"`
	Version             string        `json:"version,omitempty"`
	LastUpdated         string        `json:"lastUpdated,omitempty"`
	MaintainedFor       string        `json:"maintainedFor,omitempty"`
	Sections            []SectionInfo `json:"sections,omitempty"`
	CrossDomainTriggers []string      `json:"crossDomainTriggers,omitempty"`
	DetectionTriggers   []string      `json:"detectionTriggers,omitempty"`
}

// Key returns the reference's key form, "domain:name".
func (r Reference) Key() string {
	if r.Domain == "" {
		return r.ID
	}
	return r.Domain + ":" + strings.TrimPrefix(r.ID, r.Domain+"/")
}

// ReferenceResult is the result of Reference: the reference (empty when the
// file does not exist) and warnings.
type ReferenceResult struct {
	Reference
	Warnings []Warning `json:"warnings"`
}

// newReference describes a topic of the workspace at dir.
func newReference(t *library.Topic, dir string) Reference {
	m := &t.Meta
	r := Reference{
		ID:                  t.ID,
		Domain:              t.Domain,
		Title:               m.Title,
		Type:                m.Type,
		EstimatedTokens:     t.Declared(),
		MeasuredTokens:      t.Tokens,
		LoadingStrategy:     m.LoadingStrategy,
		Path:                workspacePath(dir, t.Path),
		URI:                 fileURI(t.Path),
		Tags:                m.Tags,
		Version:             m.Version,
		LastUpdated:         m.LastUpdated,
		MaintainedFor:       m.MaintainedFor,
		CrossDomainTriggers: m.CrossDomainTriggers,
		DetectionTriggers:   m.DetectionTriggers,
	}
	if r.Title == "" {
		r.Title = t.Name
	}
	for _, s := range t.Sections {
		if s.Level != 2 && s.Declared == 0 {
			continue
		}
		r.Sections = append(r.Sections, SectionInfo{Name: s.Name, EstimatedTokens: s.Declared, MeasuredTokens: s.Tokens, Keywords: s.Keywords})
	}
	return r
}

type catalogEntry struct {
	topics []*library.Topic // what the entry was built from
	value  any
}

type refEntry struct {
	topic   *library.Topic
	ref     Reference
	checked bool  // err is known
	err     error // the topic's file escapes its root
}

type contentEntry struct {
	topic *library.Topic
	value any
}

// cachedCatalog returns tier-1 entry key when it was built from exactly
// these topics, else builds it.
func (p *Provider) cachedCatalog(key string, topics []*library.Topic, build func() any) any {
	p.mu.Lock()
	if e, ok := p.catalog[key]; ok && slices.Equal(e.topics, topics) {
		p.stats.Catalog.Hits++
		p.mu.Unlock()
		return e.value
	}
	p.stats.Catalog.Misses++
	p.mu.Unlock()
	v := build()
	p.mu.Lock()
	p.catalog[key] = &catalogEntry{topics: topics, value: v}
	p.mu.Unlock()
	return v
}

// workspacePath returns path relative to the workspace dir, slash-separated;
// path itself when it is not below dir.
func workspacePath(dir, path string) string {
	if rel, ok := fsguard.Rel(dir, path); ok {
		return rel
	}
	return path
}

// reference returns the tier-2 entry of a topic.
func (p *Provider) reference(t *library.Topic) Reference {
	key := "ref:" + t.ID
	p.mu.Lock()
	if e, ok := p.refs[key]; ok && e.topic == t {
		p.stats.Reference.Hits++
		p.mu.Unlock()
		return e.ref
	}
	p.stats.Reference.Misses++
	p.mu.Unlock()
	e := &refEntry{topic: t, ref: newReference(t, p.library().Dir())}
	p.mu.Lock()
	p.refs[key] = e
	p.mu.Unlock()
	return e.ref
}

// guard refuses a topic whose file, links followed, lies outside its
// context root. The answer is kept with the topic's reference entry, so
// the file system is asked once per version of the file.
func (p *Provider) guard(t *library.Topic) error {
	key := "ref:" + t.ID
	p.mu.Lock()
	e, ok := p.refs[key]
	if ok && e.topic == t && e.checked {
		err := e.err // read under the lock: another lookup may be writing it
		p.mu.Unlock()
		return err
	}
	p.mu.Unlock()
	err := checkInside(t.Root, t.Path)
	p.mu.Lock()
	if e, ok := p.refs[key]; ok && e.topic == t {
		e.checked, e.err = true, err
	}
	p.mu.Unlock()
	return err
}

// topicID is the id of the topic that file names in domain.
func topicID(domain, file string) string {
	file = strings.TrimSuffix(strings.TrimSpace(file), ".md")
	if domain == "" {
		return file
	}
	return domain + "/" + file
}

// lookup finds the topic named by domain and file. A missing domain or
// file gives a nil topic and a warning; an escaping name gives an error.
func (p *Provider) lookup(lib *library.Snapshot, domain, file string) (*library.Topic, []Warning, error) {
	if err := checkName(domain); err != nil {
		return nil, nil, err
	}
	if err := checkName(file); err != nil {
		return nil, nil, err
	}
	if strings.ContainsAny(domain, `/\`) {
		return nil, []Warning{warnf(WarnDomainNotFound, "domain %q not found", domain)}, nil
	}
	id := topicID(domain, file)
	if t, ok := lib.Topic(id); ok {
		p.reference(t)
		if err := p.guard(t); err != nil {
			return nil, nil, err
		}
		return t, nil, nil
	}
	// A file the library did not index may still be a link out of the
	// root; refuse it rather than report it missing.
	for _, root := range lib.ContextRoots() {
		cand := filepath.Join(root, filepath.FromSlash(id)+".md")
		if fi, err := lib.Root().Lstat(cand); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if err := checkInside(root, cand); err != nil {
				return nil, nil, err
			}
		}
	}
	if domain != "" {
		d, ok := lib.Domain(domain)
		if !ok {
			return nil, []Warning{notFoundDomain(lib, domain)}, nil
		}
		w := warnf(WarnFileNotFound, "file %q not found in domain %q", strings.TrimSuffix(file, ".md"), domain)
		if s := closest.Names(strings.TrimSuffix(file, ".md"), d.TopicNames(), 3); len(s) > 0 {
			w.Message += fmt.Sprintf("; did you mean %s?", strings.Join(s, ", "))
		}
		return nil, []Warning{w}, nil
	}
	return nil, []Warning{warnf(WarnFileNotFound, "file %q not found", id)}, nil
}

// notFoundDomain is the warning for a domain that does not exist.
func notFoundDomain(lib *library.Snapshot, domain string) Warning {
	var names []string
	for _, d := range lib.Domains() {
		names = append(names, d.Name)
	}
	w := warnf(WarnDomainNotFound, "domain %q not found", domain)
	if s := closest.Names(domain, names, 3); len(s) > 0 {
		w.Message += fmt.Sprintf("; did you mean %s?", strings.Join(s, ", "))
	}
	return w
}

// lookupID finds a topic by id ("domain/file", "domain:file" or a root
// file's stem), as a reference names it.
func (p *Provider) lookupID(lib *library.Snapshot, id string) (*library.Topic, []Warning, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, []Warning{warnf(WarnFileNotFound, "reference has no id")}, nil
	}
	if err := checkName(id); err != nil {
		return nil, nil, err
	}
	// The path form: "context/python/x.md".
	if rest, ok := strings.CutPrefix(strings.TrimPrefix(id, "./"), discover.ContextDirName+"/"); ok && !lib.IsDomain(discover.ContextDirName) {
		id = rest
	}
	domain, file := "", id
	if i := strings.IndexAny(id, ":/"); i > 0 {
		domain, file = id[:i], id[i+1:]
	}
	if domain != "" && !lib.IsDomain(domain) {
		// A root file under a sub-directory of no domain, or a plain miss.
		if t, ok := lib.Topic(topicID("", id)); ok {
			p.reference(t)
			if err := p.guard(t); err != nil {
				return nil, nil, err
			}
			return t, nil, nil
		}
	}
	return p.lookup(lib, domain, file)
}

// Catalog lists every context file of a domain, or of all domains when
// domain is empty, with its metadata and no content. Files directly in a
// context root (loading_protocol, cross_domain) are listed with an empty
// domain when domain is empty.
func (p *Provider) Catalog(ctx context.Context, domain string) (List[Reference], error) {
	return p.CatalogIn(ctx, p.library(), domain)
}

// CatalogIn is Catalog over lib, a library the caller holds for its
// whole request.
func (p *Provider) CatalogIn(ctx context.Context, lib *library.Snapshot, domain string) (List[Reference], error) {
	if err := checkName(domain); err != nil {
		return List[Reference]{}, err
	}
	out := newList[Reference]()
	out.Tokenizer = lib.Counter().Name()
	var topics []*library.Topic
	key := "catalog:*"
	if domain == "" {
		topics = lib.Topics()
	} else {
		d, ok := lib.Domain(domain)
		if !ok || strings.ContainsAny(domain, `/\`) {
			out.Warnings = append(out.Warnings, notFoundDomain(lib, domain))
			return out, nil
		}
		topics = d.Topics
		key = "catalog:" + domain
	}
	items := p.cachedCatalog(key, topics, func() any {
		items := make([]Reference, 0, len(topics))
		for _, t := range topics {
			items = append(items, p.reference(t))
		}
		return items
	}).([]Reference)
	out.Items = items
	return out, nil
}

// Lookup returns the topic that domain and file name in lib, a library
// the caller holds for its whole request, or nil and warnings that say
// why there is none (an unknown domain or file, with suggestions). An
// error is a name that escapes its root.
func (p *Provider) Lookup(lib *library.Snapshot, domain, file string) (*library.Topic, []Warning, error) {
	return p.lookup(lib, domain, file)
}

// Reference returns the metadata of one file without loading its content.
func (p *Provider) Reference(ctx context.Context, domain, file string) (ReferenceResult, error) {
	lib := p.library()
	t, warns, err := p.lookup(lib, domain, file)
	if err != nil {
		return ReferenceResult{}, err
	}
	res := ReferenceResult{Warnings: nonNil(warns)}
	if t == nil {
		return res, nil
	}
	res.Reference = p.reference(t)
	return res, nil
}

func nonNil(w []Warning) []Warning {
	if w == nil {
		return []Warning{}
	}
	return w
}
