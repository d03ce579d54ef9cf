package library

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/library/internal/incoming"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Preview is a quick look at a workspace: which files, topics, domains
// and sections exist, without their text, token counts or references.
// That is enough to diagnose a few open documents while the library is
// indexed. The look takes the headings of a file whose size and
// modification time are those the index cache recorded from the cache,
// and reads every other file; the index that follows trusts no such
// shortcut, and its diagnostics replace the preview's.
//
// A Preview is safe for concurrent use.
type Preview struct {
	dir   string
	cfg   *config.Config
	b     *builder
	files []*File
	// FromCache is the number of files whose headings came from the
	// index cache.
	FromCache int

	counterOnce sync.Once
	counterErr  error
}

// NewPreview looks at the workspace at dir with the given configuration
// (nil reads dir/.ctxls.yaml). Options.CacheDir and Options.Version name
// the index cache, as for Load; Progress and AfterIndex are not used.
func NewPreview(ctx context.Context, dir string, cfg *config.Config, opts Options) (*Preview, error) {
	l, cfg, _, err := newLibrary(dir, cfg, opts)
	if err != nil {
		return nil, err
	}
	reading := l.readCache()
	s, err := discover.Walk(ctx, l.root, cfg, nil)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", l.dir, err)
	}
	cache := l.openCache(reading, cfg.Tokenizer, s.ContextRoots, s.CommandRoots)
	p := &Preview{dir: l.dir, cfg: cfg, b: &builder{root: l.root, cfg: cfg, contextRoots: s.ContextRoots, commandRoots: s.CommandRoots, roots: s.Info(), beside: besideRoots(s.ContextRoots), paths: newPathMemo()}}
	p.files = make([]*File, len(s.Files))
	hits := make([]bool, len(s.Files))
	inParallel(ctx, len(s.Files), func(i int) {
		p.files[i], hits[i] = p.b.sketch(ctx, s.Files[i].Path, s.Files[i].Rel, cache)
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, h := range hits {
		if h {
			p.FromCache++
		}
	}
	return p, nil
}

// Files returns the number of markdown files the preview found.
func (p *Preview) Files() int { return len(p.files) }

// sketch returns what a preview knows of one file: its role, and for a
// topic its id and sections. hit reports whether that came from the
// cache.
func (b *builder) sketch(ctx context.Context, p, rel string, cache *indexcache.Cache) (f *File, hit bool) {
	c := discover.Classify(p, b.contextRoots, b.commandRoots)
	f = &File{Path: p, Rel: rel, Kind: c.Kind}
	info, err := os.Stat(p)
	if err != nil {
		f.Skipped = fmt.Sprintf("cannot read: %v", discover.UnwrapPath(err))
		return f, false
	}
	var headings []indexcache.Heading
	alias := ""
	if e, ok := cache.Peek(p, info.Size(), info.ModTime().UnixNano()); ok {
		headings, alias, hit = e.Headings, e.Alias, true
	} else {
		if info.Size() > b.cfg.MaxFileSize {
			f.Skipped = "too large"
			return f, false
		}
		content, _, err := b.read(ctx, p)
		if err != nil || document.IsBinary(content) {
			f.Skipped = "not read"
			return f, false
		}
		// Only commands and files directly in a context root need their
		// frontmatter (a name, an id); the topics of domains need their
		// headings alone.
		parse := document.ParseOutline
		if c.Kind != discover.TopicFile || c.Domain == "" {
			parse = document.Parse
		}
		doc := parse(p, content)
		for _, s := range doc.Sections() {
			name, anchor := headingName(s.Text)
			headings = append(headings, indexcache.Heading{Name: strings.Clone(name), Anchor: strings.Clone(anchor), Level: s.Level})
		}
		if c.Kind == discover.TopicFile && c.Domain == "" {
			if _, v := doc.Frontmatter.Field("id"); v.Exists() && v.Value() != "" {
				alias = strings.Clone(v.Value())
			}
		}
		if c.Kind == discover.CommandFile {
			f.Command = command(doc, c.Name, p)
			f.Command.Doc = nil
		}
	}
	switch c.Kind {
	case discover.TopicFile:
		f.Topic = b.sketchTopic(c, p, headings, alias)
	case discover.CommandFile:
		if f.Command == nil {
			f.Command = &Command{Name: c.Name, Path: p}
		}
	}
	return f, hit
}

// sketchTopic returns a topic without text from its headings.
func (b *builder) sketchTopic(c discover.Class, p string, headings []indexcache.Heading, alias string) *Topic {
	id := c.Name
	if c.Domain != "" {
		id = c.Domain + "/" + c.Name
	}
	t := &Topic{ID: id, Domain: c.Domain, Name: c.Name, Path: p, Root: c.Root, RelPath: c.RelPath}
	t.Meta.ID = id
	if alias != "" {
		t.Meta.ID, t.Meta.declared = alias, []string{"id"}
	}
	t.Sections = make([]Section, len(headings))
	for i, h := range headings {
		t.Sections[i] = Section{Name: h.Name, Anchor: h.Anchor, Level: h.Level}
	}
	return t
}

// Diagnose returns the diagnostics of the document at path with the given
// content against the preview, and the file they refer to (its Doc
// converts their spans).
func (p *Preview) Diagnose(path string, content []byte) (*File, []diag.Diagnostic, error) {
	path = filepath.Clean(path)
	// Only topics are measured; loading the tokenizer's tables takes
	// longer than the rest of a command's diagnostics.
	if discover.Classify(path, p.b.contextRoots, p.b.commandRoots).Kind == discover.TopicFile {
		p.counterOnce.Do(func() {
			p.b.counter, p.counterErr = tokens.New(p.cfg.Tokenizer)
		})
		if p.counterErr != nil {
			return nil, nil, fmt.Errorf("tokenizer: %w", p.counterErr)
		}
	}
	// The content is given, so parse reads nothing and needs no context.
	f := p.b.parse(context.Background(), path, fsguard.RelSlash(p.dir, path), content)
	files := slices.Clone(p.files)
	if i := slices.IndexFunc(files, func(g *File) bool { return g.Path == path }); i >= 0 {
		files[i] = f
	} else {
		files = append(files, f)
	}
	st := newState(p.b.root, files)
	f.Refs = p.b.scanRefs(context.Background(), f, st.view(), 0)
	l := &Snapshot{
		dir: p.dir, cfg: p.cfg, counter: p.b.counter,
		contextRoots: p.b.contextRoots, commandRoots: p.b.commandRoots, roots: p.b.roots, beside: p.b.beside, readings: p.b.paths,
		files: st.files, topics: st.topics, aliases: st.aliases, byStem: st.byStem, domains: st.domains, commands: st.commands,
		incoming: incoming.New(0), dupTopics: st.dupTopics, dupCommands: st.dupCommands,
	}
	return f, l.diagnose(f), nil
}
