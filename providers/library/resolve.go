package library

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/closest"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/refs"
)

// TargetKind says what a reference resolved to.
type TargetKind int

const (
	// Unresolved means the reference names nothing that exists.
	Unresolved TargetKind = iota
	// TopicTarget is a topic.
	TopicTarget
	// SectionTarget is a section of a topic.
	SectionTarget
	// DomainTarget is a domain (its index).
	DomainTarget
	// NotAReference means the text looked like a reference but is not one
	// (a bare file name that names no topic anywhere).
	NotAReference
)

// Part names the part of a reference that failed to resolve.
type Part string

// Parts of a reference.
const (
	PartDomain  Part = "domain"
	PartTopic   Part = "topic"
	PartSection Part = "section"
	PartPath    Part = "path"
)

// Target is the result of resolving a reference.
type Target struct {
	Kind    TargetKind
	Topic   *Topic
	Section *Section
	Domain  *Domain
	// Failed is the part that did not resolve, for Unresolved targets and
	// for topics whose section is missing.
	Failed Part
	// Message explains a failure.
	Message string
	// Candidates are close names for the failed part, best first, written
	// as they would replace that part (a domain, a topic name, a section
	// name or a path).
	Candidates []string
	// Missing is the id of the topic an unresolved reference names, such
	// as "testing/property_based", whatever form the reference takes; ""
	// when the reference does not name a topic.
	Missing string
}

// OK reports whether the reference resolved completely.
func (t Target) OK() bool {
	return t.Kind == TopicTarget || t.Kind == SectionTarget || t.Kind == DomainTarget
}

// Resolve resolves a reference made by file f.
func (l *Snapshot) Resolve(f *File, r refs.Ref) Target { return l.resolve(f, r) }

// ResolveBrief resolves a reference made by file f as Resolve does, without
// the close names of a failure (Target.Candidates stays nil): what pricing
// a document needs, at a fraction of the cost for unresolved references.
func (l *Snapshot) ResolveBrief(f *File, r refs.Ref) Target {
	return l.resolveWith(f, r, false)
}

func (l *Snapshot) resolve(f *File, r refs.Ref) Target { return l.resolveWith(f, r, true) }

// resolveWith resolves r; suggest says whether to look for close names
// when it fails.
func (l *Snapshot) resolveWith(f *File, r refs.Ref, suggest bool) Target {
	switch r.Form {
	case refs.DomainForm:
		d, ok := l.domains[r.Domain]
		if !ok {
			return l.unknownDomain(r.Domain, "", suggest)
		}
		return Target{Kind: DomainTarget, Domain: d, Topic: d.Index}
	case refs.PathForm:
		return l.resolvePath(f, r, suggest)
	}
	name := strings.TrimSuffix(r.Topic, ".md")
	d, ok := l.domains[r.Domain]
	if !ok {
		return l.unknownDomain(r.Domain, r.Domain+"/"+name, suggest)
	}
	t, ok := l.topics.Lookup(r.Domain + "/" + name)
	if !ok {
		t, ok = l.aliases[r.Domain+"/"+name]
	}
	if !ok {
		var cands []string
		if suggest {
			cands = closest.Names(name, d.TopicNames(), 3)
		}
		return Target{Kind: Unresolved, Domain: d, Failed: PartTopic,
			Message:    fmt.Sprintf("domain %s has no topic %q", r.Domain, name),
			Candidates: cands,
			Missing:    r.Domain + "/" + name}
	}
	return withSection(t, r.Section, suggest)
}

// withSection resolves the section part of a reference to topic t.
func withSection(t *Topic, section string, suggest bool) Target {
	if section == "" {
		return Target{Kind: TopicTarget, Topic: t}
	}
	if s, ok := t.Section(section); ok {
		return Target{Kind: SectionTarget, Topic: t, Section: s}
	}
	var cands []string
	if suggest {
		cands = closest.Names(section, t.SectionNames(), 3)
	}
	return Target{Kind: Unresolved, Topic: t, Failed: PartSection,
		Message:    fmt.Sprintf("topic %s has no section %q", t.ID, section),
		Candidates: cands}
}

// unknownDomain is the failure of a reference to a domain that does not
// exist; missing is the topic id the reference names, if any.
func (l *Snapshot) unknownDomain(name, missing string, suggest bool) Target {
	var cands []string
	if suggest {
		names := make([]string, 0, len(l.domains))
		for n := range l.domains {
			names = append(names, n)
		}
		cands = closest.Names(name, names, 3)
	}
	return Target{Kind: Unresolved, Failed: PartDomain,
		Message:    fmt.Sprintf("no domain %q", name),
		Candidates: cands,
		Missing:    missing}
}

// resolvePath resolves a path reference against the referring file, the
// layout around each context root, each root, and (for bare file names)
// every topic's file name.
func (l *Snapshot) resolvePath(f *File, r refs.Ref, suggest bool) Target {
	b := l.builder()
	var inRoot string
	for _, c := range b.pathCandidates(f.Path, r) {
		if t := l.topicAt(c); t != nil {
			return withSection(t, r.Fragment, suggest)
		}
		if info, err := os.Stat(c); err == nil && !info.IsDir() {
			return Target{Kind: NotAReference} // an existing file that is not a topic
		}
		if inRoot == "" && l.meantInRoot(c) {
			inRoot = c
		}
	}
	if isBare(r.Path) {
		stem := strings.TrimSuffix(r.Path, path.Ext(r.Path))
		found := l.byStem.Get(stem)
		if len(found) > 0 {
			// Prefer the referring file's own domain, then the first by id.
			best := found[0]
			if f.Topic != nil {
				for _, t := range found {
					if t.Domain == f.Topic.Domain {
						best = t
						break
					}
				}
			}
			return withSection(best, r.Fragment, suggest)
		}
		// A bare file name that names nothing is only a broken reference in
		// a link, in a domain index or in a detection table; in prose it is
		// just a file name.
		if r.Where != refs.Link && !listsTopics(f) {
			return Target{Kind: NotAReference}
		}
	}
	if inRoot == "" {
		return l.misplacedPath(b, f, r, suggest)
	}
	c := discover.Classify(inRoot, l.contextRoots, nil)
	dir := filepath.Dir(inRoot)
	var cands []string
	if suggest {
		cands = l.nearFiles(c, dir, inRoot, r.Path)
	}
	missing := c.Name
	if c.Domain != "" {
		missing = c.Domain + "/" + c.Name
	}
	return Target{Kind: Unresolved, Failed: PartPath,
		Message:    missingFileMessage(c, fsguard.RelSlash(l.dir, c.Root)),
		Candidates: cands,
		Missing:    missing}
}

// nearFiles returns the close names of a missing topic file at inRoot,
// written as the reference wrote its path: among the files beside it, those
// of its domain when it has one (every topic otherwise; a large library has
// thousands).
func (l *Snapshot) nearFiles(c discover.Class, dir, inRoot, written string) []string {
	var near []*Topic
	if d := l.domains[c.Domain]; c.Domain != "" && d != nil {
		near = d.Topics
	} else {
		for _, t := range l.topics.All() {
			near = append(near, t)
		}
	}
	var names []string
	for _, t := range near {
		if filepath.Dir(t.Path) == dir {
			names = append(names, filepath.Base(t.Path))
		}
	}
	cands := closest.Names(filepath.Base(inRoot), names, 3)
	for i, c := range cands {
		cands[i] = path.Join(path.Dir(written), c)
	}
	return cands
}

// missingFileMessage says which topic file a path reference misses, by
// domain (or context root, for a file directly in one) and file name: the
// path as written is already what the diagnostic points at, and relative
// paths are hard to read back.
func missingFileMessage(c discover.Class, root string) string {
	if c.Domain != "" {
		return fmt.Sprintf("domain %s has no topic file %s", c.Domain, strings.TrimPrefix(c.RelPath, c.Domain+"/"))
	}
	return fmt.Sprintf("context root %s/ has no topic file %s", root, c.RelPath)
}

// misplacedPath resolves a path reference that leads outside every context
// root: when it still ends in "domain/topic.md" for a known domain it is a
// topic reference with a wrong relative path, and the fix is the path that
// reaches the topic from the referring file.
func (l *Snapshot) misplacedPath(b *builder, f *File, r refs.Ref, suggest bool) Target {
	domain, stem, ok := b.misplaced(f.Path, r, func(name string) bool { _, ok := l.domains[name]; return ok })
	if !ok {
		return Target{Kind: NotAReference}
	}
	d := l.domains[domain]
	if t := l.topics.Get(domain + "/" + stem); t != nil {
		fix, err := filepath.Rel(filepath.Dir(f.Path), t.Path)
		if err != nil {
			fix = t.Path
		}
		return Target{Kind: Unresolved, Topic: t, Failed: PartPath,
			Message:    fmt.Sprintf("%s leads outside the context roots to a file that does not exist; topic %s is at %s", r.Path, t.ID, filepath.ToSlash(fix)),
			Candidates: []string{filepath.ToSlash(fix)}}
	}
	var cands []string
	var names []string
	if suggest {
		names = d.TopicNames()
	}
	for _, name := range closest.Names(stem, names, 3) {
		if t := l.topics.Get(domain + "/" + name); t != nil {
			if fix, err := filepath.Rel(filepath.Dir(f.Path), t.Path); err == nil {
				cands = append(cands, filepath.ToSlash(fix))
			}
		}
	}
	return Target{Kind: Unresolved, Domain: d, Failed: PartPath,
		Message:    fmt.Sprintf("%s leads outside the context roots to a file that does not exist, and domain %s has no topic %q", r.Path, domain, stem),
		Candidates: cands}
}

// meantInRoot reports whether a missing file at p would be a topic: it lies
// directly in a context root, or in one of its existing domains.
func (l *Snapshot) meantInRoot(p string) bool {
	root := discover.UnderAny(p, l.contextRoots)
	if root == "" {
		return false
	}
	rel := fsguard.RelSlash(root, p)
	domain, _, nested := strings.Cut(rel, "/")
	if !nested {
		return true
	}
	_, ok := l.domains[domain]
	return ok
}

// listsTopics reports whether f is a file whose bare file names are meant
// as topic references: a domain index or a detection file.
func listsTopics(f *File) bool {
	if f.Topic == nil {
		return false
	}
	switch f.Topic.Meta.Type {
	case "index", "detection":
		return true
	}
	return false
}

// topicAt returns the topic stored at an absolute, clean path (as
// filepath.Join returns), if any.
func (l *Snapshot) topicAt(p string) *Topic {
	if f := l.files.Get(p); f != nil && f.Topic != nil {
		if t := l.topics.Get(f.Topic.ID); t == f.Topic {
			return t
		}
	}
	return nil
}

// builder returns a builder for the snapshot's configuration.
func (l *Snapshot) builder() *builder {
	return &builder{root: l.root, cfg: l.cfg, counter: l.counter, contextRoots: l.contextRoots, commandRoots: l.commandRoots, roots: l.roots, beside: l.beside, paths: l.readings}
}

// TopicNames returns the names of the domain's topics, in the order of
// Topics: the names a misspelt topic is suggested from.
func (d *Domain) TopicNames() []string {
	names := make([]string, len(d.Topics))
	for i, t := range d.Topics {
		names[i] = t.Name
	}
	return names
}

// SectionNames returns the names of the topic's sections, in the order of
// Sections: the names a misspelt section is suggested from.
func (t *Topic) SectionNames() []string {
	names := make([]string, len(t.Sections))
	for i, s := range t.Sections {
		names[i] = s.Name
	}
	return names
}

// Location is one reference and the file making it.
type Location struct {
	File *File
	Ref  refs.Ref
}

// References returns every reference in the workspace that resolves to
// topic id (to the topic or one of its sections), ordered by file and
// position.
func (l *Snapshot) References(id string) []Location {
	locs, _ := l.references(id, -1)
	return locs
}

// FirstReferences returns the first n locations References(id) returns
// (all of them when n is negative) and how many it returns in all, without
// building the others: an editor lists a few thousand and counts the rest.
func (l *Snapshot) FirstReferences(id string, n int) ([]Location, int) {
	return l.references(id, n)
}

func (l *Snapshot) references(id string, limit int) ([]Location, int) {
	t := l.topics.Get(id)
	if t == nil {
		t = l.aliases[id]
	}
	if t == nil {
		return nil, 0
	}
	paths := map[string]bool{}
	for _, k := range []string{t.ID, "*/" + path.Base(t.Name), alias(t)} {
		for p := range l.incoming.Paths(k) {
			paths[p] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	slices.Sort(sorted)
	// Every reading of a path reference (beside the file, in a root, by
	// stem, misplaced) lands on a file of the stem it ends in, so a path
	// that ends in another stem is not read at all: a file can hold
	// hundreds of thousands of them.
	stem := func(p string) string {
		b := path.Base(filepath.ToSlash(p))
		return strings.TrimSuffix(b, path.Ext(b))
	}
	want := stem(t.Path)
	// The ids a topic-form reference can write to name t: its own and its
	// alias, each where it resolves to t. Comparing with them spares each
	// reference the id it would build and look up.
	var ids []string
	for _, k := range []string{t.ID, alias(t)} {
		if got, ok := l.topics.Lookup(k); k != "" && (ok && got == t || !ok && l.aliases[k] == t) {
			ids = append(ids, k)
		}
	}
	// The hits are gathered first, as indexes in each file's list, and
	// read back in one pass of each list into a list of their exact
	// length: a Location is large, and growing a list of tens of
	// thousands of them costs more than finding them.
	type group struct {
		f    *File
		hits []int
	}
	var groups []group
	var hits []int
	total := 0
	for _, p := range sorted {
		f := l.files.Get(p)
		if f == nil {
			continue
		}
		hits = hits[len(hits):]
		for i, r := range f.Refs.All() {
			if r.Form == refs.DomainForm {
				continue
			}
			if r.Form != refs.PathForm {
				// A topic-form reference resolves to the topic it names,
				// whether or not its section exists: no need to build the
				// failure that resolving a missing section would.
				if namesAny(ids, r.Domain, strings.TrimSuffix(r.Topic, ".md")) && l.domains[r.Domain] != nil {
					hits = append(hits, i)
				}
				continue
			}
			if stem(r.Path) != want {
				continue
			}
			// No suggestions: a reference that fails names no topic here,
			// and looking for close names costs more than the resolving.
			if tg := l.resolveWith(f, r, false); tg.Topic == t && (tg.OK() || tg.Failed == PartSection) {
				hits = append(hits, i)
			}
		}
		if len(hits) > 0 {
			groups = append(groups, group{f, hits})
			total += len(hits)
		}
	}
	n := total
	if limit >= 0 {
		n = min(n, limit)
	}
	if n == 0 {
		return nil, total
	}
	out := make([]Location, 0, n)
	for _, g := range groups {
		for _, r := range g.f.Refs.Picked(g.hits[:min(len(g.hits), n-len(out))]) {
			out = append(out, Location{File: g.f, Ref: r})
		}
		if len(out) == n {
			break
		}
	}
	return out, total
}

// namesAny reports whether one of ids is domain/name.
func namesAny(ids []string, domain, name string) bool {
	for _, id := range ids {
		if len(id) == len(domain)+1+len(name) && id[len(domain)] == '/' && strings.HasPrefix(id, domain) && strings.HasSuffix(id, name) {
			return true
		}
	}
	return false
}

// DomainReferences returns every domain-form reference to a domain.
func (l *Snapshot) DomainReferences(name string) []Location {
	return l.domainReferences(name)
}

func (l *Snapshot) domainReferences(name string) []Location {
	var paths []string
	for p := range l.incoming.Paths("@" + name) {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []Location
	for _, p := range paths {
		if f := l.files.Get(p); f != nil {
			for _, r := range f.Refs.All() {
				if r.Form == refs.DomainForm && r.Domain == name {
					out = append(out, Location{File: f, Ref: r})
				}
			}
		}
	}
	return out
}
