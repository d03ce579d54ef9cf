// Package contextapi is the ContextProvider of a context library: the
// catalog, domain indexes, the loading protocol, always-load files, project
// detection, conditional and cross-domain context, references, deferred
// materialization of files and sections, and search.
//
// A Provider reads whatever library its source returns at the moment of each
// call, so it follows a workspace whose library changes underneath it. It
// keeps the three cache tiers of the CachedContextProvider (catalog,
// reference, content) and counts their hits and misses. An entry is valid
// only while the topics it was built from are still the library's topics:
// the library replaces a topic when its file changes, so a change to one
// file invalidates exactly the entries that depend on it.
//
// Results follow the interface documents' field names (camelCase). Lists are
// returned as {items, warnings} with items never null; a missing domain or
// file gives an empty result and a warning, while a name that would escape
// the context root is refused with an error.
package contextapi

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/errkind"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
)

// ErrEscape is returned for a domain, file or reference that names
// something outside the context root: a path with "..", an absolute path,
// or a symbolic link whose target lies outside the root.
var ErrEscape = errkind.New(errkind.Invalid, "refused: name escapes the context root")

// Warning is a problem attached to a result. Code is stable and
// machine-readable; Message is for people.
type Warning struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// Warning codes.
const (
	WarnDomainNotFound  = "domain-not-found"
	WarnFileNotFound    = "file-not-found"
	WarnSectionNotFound = "section-not-found"
	WarnNoDetection     = "no-detection"
	WarnNoMatrix        = "no-cross-domain-matrix"
	WarnBudget          = "budget"
	WarnUnresolved      = "unresolved-file"
	WarnOutsideRoot     = "outside-root"
	WarnTruncated       = "truncated"
)

func warnf(code, format string, args ...any) Warning {
	return Warning{Code: code, Message: fmt.Sprintf(format, args...)}
}

// List is the shape of every list result: items (never null) and warnings
// (never null).
type List[T any] struct {
	Items []T `json:"items"`
	// Tokenizer names the encoding of the items' token figures, in a
	// list whose items have some.
	Tokenizer string    `json:"tokenizer,omitempty"`
	Warnings  []Warning `json:"warnings"`
}

func newList[T any]() List[T] { return List[T]{Items: []T{}, Warnings: []Warning{}} }

// Provider is the ContextProvider over a library. It is safe for concurrent
// use.
type Provider struct {
	source func() *library.Snapshot

	mu      sync.Mutex
	catalog map[string]*catalogEntry // tier 1: "catalog:{domain}", "catalog:*", "index:{domain}", "protocol"
	refs    map[string]*refEntry     // tier 2: "ref:{id}"
	content map[string]*contentEntry // tier 3: "content:{id}", "sections:{id}:{a,b}"
	stats   Stats
	seenLib *library.Snapshot // the library and version the cache last saw
	seenVer uint64

	derivedMu sync.Mutex
	derived   *derived // detection rules and cross-domain matrix of one library version

	search *searchIndex // follows the library file by file
}

// New returns a provider over the library that source returns at each
// call. source must not return nil.
func New(source func() *library.Snapshot) *Provider {
	return &Provider{
		source:  source,
		catalog: map[string]*catalogEntry{},
		refs:    map[string]*refEntry{},
		content: map[string]*contentEntry{},
		search:  &searchIndex{},
	}
}

// NewStatic returns a provider over one library.
func NewStatic(lib *library.Snapshot) *Provider {
	return New(func() *library.Snapshot { return lib })
}

// Library returns the library the provider reads now.
func (p *Provider) Library() *library.Snapshot { return p.source() }

// library returns the current library. When it changed since the last
// call, reference and content entries of topics that no longer exist or
// were replaced are dropped, so the cache does not keep dead text alive.
func (p *Provider) library() *library.Snapshot {
	lib := p.source()
	v := lib.Version()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seenLib == lib && p.seenVer == v {
		return lib
	}
	p.seenLib, p.seenVer = lib, v
	live := func(t *library.Topic) bool {
		cur, ok := lib.Topic(t.ID)
		return ok && cur == t
	}
	for k, e := range p.refs {
		if !live(e.topic) {
			delete(p.refs, k)
		}
	}
	for k, e := range p.content {
		if !live(e.topic) {
			delete(p.content, k)
		}
	}
	return lib
}

// TierStats counts the lookups of one cache tier.
type TierStats struct {
	Hits    int64 `json:"hits"`
	Misses  int64 `json:"misses"`
	Entries int   `json:"entries"`
}

// Stats are the cache counters of the three tiers.
type Stats struct {
	Catalog   TierStats `json:"catalog"`
	Reference TierStats `json:"reference"`
	Content   TierStats `json:"content"`
}

// Stats returns the cache counters.
func (p *Provider) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Catalog.Entries = len(p.catalog)
	s.Reference.Entries = len(p.refs)
	s.Content.Entries = len(p.content)
	return s
}

// Invalidate clears cache entries as the CachedContextProvider does:
// everything when domain is empty; every tier's entries of a domain when
// only domain is given; the reference and content entries of one file when
// both are given. It returns the number of entries removed.
func (p *Provider) Invalidate(domain, file string) (int, error) {
	if err := checkName(domain); err != nil {
		return 0, err
	}
	if err := checkName(file); err != nil {
		return 0, err
	}
	file = strings.TrimSuffix(file, ".md")
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	switch {
	case domain == "" && file == "":
		n = len(p.catalog) + len(p.refs) + len(p.content)
		clear(p.catalog)
		clear(p.refs)
		clear(p.content)
	case file == "":
		prefix := domain + "/"
		for k := range p.catalog {
			if k == "catalog:"+domain || k == "index:"+domain || k == "catalog:*" {
				delete(p.catalog, k)
				n++
			}
		}
		for k := range p.refs {
			if strings.HasPrefix(k, "ref:"+prefix) {
				delete(p.refs, k)
				n++
			}
		}
		for k := range p.content {
			if strings.HasPrefix(k, "content:"+prefix) || strings.HasPrefix(k, "sections:"+prefix) {
				delete(p.content, k)
				n++
			}
		}
	default:
		id := file
		if domain != "" {
			id = domain + "/" + file
		}
		if _, ok := p.refs["ref:"+id]; ok {
			delete(p.refs, "ref:"+id)
			n++
		}
		for k := range p.content {
			if k == "content:"+id || strings.HasPrefix(k, "sections:"+id+":") {
				delete(p.content, k)
				n++
			}
		}
	}
	return n, nil
}

// checkName refuses a domain or file name that would leave the context
// root: any ".." element, an absolute path, a drive or UNC prefix, a NUL.
func checkName(name string) error {
	if name == "" {
		return nil
	}
	if strings.ContainsRune(name, 0) {
		return fmt.Errorf("%w: %q holds a NUL byte", ErrEscape, name)
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "" ||
		(len(name) >= 2 && name[1] == ':' && (name[0]|0x20) >= 'a' && (name[0]|0x20) <= 'z') {
		return fmt.Errorf("%w: %q is an absolute path", ErrEscape, name)
	}
	for _, el := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return fmt.Errorf("%w: %q contains \"..\"", ErrEscape, name)
		}
	}
	return nil
}

// checkInside refuses a file whose real location, symbolic links followed,
// lies outside its context root. The error does not say where the link
// leads.
func checkInside(root, path string) error {
	_, err := fsguard.NewRoot(root).Stat(path)
	switch {
	case errors.Is(err, fsguard.ErrOutsideWorkspace):
		return fmt.Errorf("%w: %s links outside its context root", ErrEscape, path)
	case err != nil:
		return fmt.Errorf("resolve %s: %w", path, err)
	}
	return nil
}

// fileURI returns the file:// URI of an absolute path.
func fileURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	return u.String()
}
