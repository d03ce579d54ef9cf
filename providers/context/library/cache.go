package library

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/indexcache"
	"github.com/ctxls/ctxls/providers/context/refs"
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

// openCache opens the index cache of the workspace for an index under
// counter's tokenizer and the roots the walk found, or returns nil when
// the library keeps none or it cannot be opened.
func (l *Library) openCache(tokenizer string, roots ...[]string) *indexcache.Cache {
	if l.opts.CacheDir == "" {
		return nil
	}
	c, err := indexcache.Open(l.opts.CacheDir, l.cacheKey(tokenizer, roots...))
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
	ids := make([]string, 0, len(st.topics))
	for id := range st.topics {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		h.Write([]byte{1})
		h.Write([]byte(id))
		t := st.topics[id]
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
// key, or nil.
func (b *builder) cachedRefs(f *File) []refs.Ref {
	s := f.cache
	if s == nil || !s.hit || s.entry.View != b.view || s.entry.Refs == nil {
		return nil
	}
	rs, err := indexcache.DecodeRefs(s.entry.Refs, len(f.Doc.Text))
	if err != nil {
		return nil
	}
	s.refs = s.entry.Refs
	if rs == nil {
		rs = []refs.Ref{}
	}
	return rs
}

// ResultCache opens the index cache of the workspace at dir for a result
// that follows from the workspace as a whole, such as a check's report,
// and returns it with the fingerprint of the workspace: the configuration
// file and the path and content hash of every markdown file an index
// would read. Options.CacheDir and Options.Version name the cache; the
// result is to be looked up and stored with Cache.Result and
// Cache.StoreResult under that fingerprint. A change to any of those
// files, one added or removed, or another build gives another
// fingerprint.
func ResultCache(ctx context.Context, dir string, opts Options) (*indexcache.Cache, indexcache.Hash, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, indexcache.Hash{}, fmt.Errorf("workspace %s: %w", dir, err)
	}
	l := &Library{dir: filepath.Clean(abs), opts: opts, log: opts.Logger}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	cfg, _, err := config.Load(l.dir)
	if err != nil {
		return nil, indexcache.Hash{}, err
	}
	s, err := walk(ctx, l.dir, cfg.Ignore, cfg.ContextRoots, cfg.CommandRoots)
	if err != nil {
		return nil, indexcache.Hash{}, fmt.Errorf("scan %s: %w", l.dir, err)
	}
	c := l.openCache(cfg.Tokenizer, s.contextRoots, s.commandRoots)
	if c == nil {
		return nil, indexcache.Hash{}, fmt.Errorf("no index cache for %s", l.dir)
	}
	sums := make([]indexcache.Hash, len(s.files))
	fails := make([]error, len(s.files))
	parallel(ctx, len(s.files), func(i int) {
		content, err := os.ReadFile(s.files[i].path)
		if err != nil {
			fails[i] = err
			return
		}
		sums[i] = indexcache.Sum(content)
	})
	if ctx.Err() != nil {
		return nil, indexcache.Hash{}, ctx.Err()
	}
	h := sha256.New()
	// A configuration file that cannot be read gives a result of its own.
	yml, yerr := os.ReadFile(filepath.Join(l.dir, config.FileName))
	fmt.Fprintf(h, "config %d %v\x00", len(yml), yerr != nil)
	h.Write(yml)
	for i, f := range s.files {
		fmt.Fprintf(h, "\x00%s\x00%v\x00", f.path, fails[i] != nil)
		h.Write(sums[i][:])
	}
	// Path references are read against the directories beside each root.
	beside := besideRoots(s.contextRoots)
	for _, root := range s.contextRoots {
		names := beside[root]
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		slices.Sort(sorted)
		fmt.Fprintf(h, "\x00beside %s %q", root, sorted)
	}
	for _, w := range s.warnings {
		fmt.Fprintf(h, "\x00warning %s %s", w.Path, w.Message)
	}
	var fp indexcache.Hash
	h.Sum(fp[:0])
	return c, fp, nil
}
