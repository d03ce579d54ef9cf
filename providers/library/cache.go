package library

import (
	"hash/fnv"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/refs"
)

// cached is what a full index learns about one file for the index cache:
// the cache's entry for the file's content, if any, and what this index
// computed or took from it.
type cached struct {
	hash  indexcache.Hash
	entry indexcache.Entry
	hit   bool

	size, mtime int64
	tokens      int
	sections    []int
	refs        []byte
}

// readCache starts reading the index cache of the workspace, so that the
// read overlaps the walk whose roots complete its key; nil when the
// library keeps none.
func (l *Library) readCache() *indexcache.Reading {
	if l.opts.CacheDir == "" {
		return nil
	}
	return indexcache.Read(l.opts.CacheDir, l.dir)
}

// openCache opens the index cache r of readCache for an index under
// counter's tokenizer and the roots the walk found, or returns nil when
// the library keeps none or it cannot be opened.
func (l *Library) openCache(r *indexcache.Reading, tokenizer string, roots ...[]string) *indexcache.Cache {
	if r == nil {
		return nil
	}
	c, err := r.Open(l.cacheKey(tokenizer, roots...))
	if err != nil {
		l.log.Warn("index cache unavailable; indexing everything", "err", err)
		return nil
	}
	if why := c.Discarded(); why != "" {
		l.log.Info("index cache discarded", "path", c.Path(), "reason", why)
	}
	return c
}

// cacheKey is the key of the index cache: the results depend on the
// tokenizer, and through each file's role on the roots.
func (l *Library) cacheKey(tokenizer string, roots ...[]string) indexcache.Key {
	var settings strings.Builder
	settings.WriteString(tokenizer)
	for _, rs := range roots {
		settings.WriteString("\x00")
		settings.WriteString(strings.Join(rs, "\x01"))
	}
	return indexcache.Key{Root: l.dir, Version: l.opts.Version, Settings: settings.String()}
}

// saveCache stores what the index computed for each file and writes the
// cache. The files forget their cache state.
func (l *Library) saveCache(c *indexcache.Cache, view uint64, files []*File) {
	hits := 0
	for _, f := range files {
		s := f.cache
		if s == nil {
			continue
		}
		f.cache = nil
		if s.hit {
			hits++
		}
		e := indexcache.Entry{Hash: s.hash, Size: s.size, ModTime: s.mtime, Tokens: s.tokens, Sections: s.sections, View: view, Refs: s.refs}
		if t := f.Topic; t != nil {
			e.Alias = alias(t)
			e.Headings = make([]indexcache.Heading, len(t.Sections))
			for i, sec := range t.Sections {
				e.Headings[i] = indexcache.Heading{Name: sec.Name, Anchor: sec.Anchor, Level: sec.Level}
			}
		}
		c.Store(f.Path, e)
	}
	if err := c.Save(); err != nil {
		l.log.Warn("write the index cache", "err", err)
	}
	l.log.Debug("index cache", "path", c.Path(), "files", len(files), "unchanged", hits)
}

// viewKey identifies what the reference scanner asks of a library: its
// domains and the section names of its topics. References scanned under
// one key hold under the same key.
func viewKey(st *state) uint64 {
	h := fnv.New64a()
	domains := make([]string, 0, len(st.domains))
	for d := range st.domains {
		domains = append(domains, d)
	}
	slices.Sort(domains)
	for _, d := range domains {
		h.Write([]byte(d))
		h.Write([]byte{0})
	}
	ids := make([]string, 0, st.topics.Len())
	for id := range st.topics.All() {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		h.Write([]byte{1})
		h.Write([]byte(id))
		t := st.topics.Get(id)
		for i := range t.Sections {
			for _, n := range t.Sections[i].names() {
				h.Write([]byte{2})
				h.Write([]byte(n))
			}
		}
	}
	return h.Sum64()
}

// cachedRefs returns the references the cache holds for f under the view
// key, and whether it holds them.
func (b *builder) cachedRefs(f *File) (refs.List, bool) {
	s := f.cache
	if s == nil || !s.hit || s.entry.View != b.view || s.entry.Refs == nil {
		return refs.List{}, false
	}
	rs, err := indexcache.DecodeRefs(s.entry.Refs, f.Doc.Len())
	if err != nil {
		return refs.List{}, false
	}
	s.refs = s.entry.Refs
	return rs, true
}
