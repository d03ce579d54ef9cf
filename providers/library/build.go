package library

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/internal/parallel"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/library/internal/cowmap"
	"github.com/ctxls/ctxls/providers/library/internal/incoming"
	"github.com/ctxls/ctxls/providers/mdlink"
	"github.com/ctxls/ctxls/providers/refs"
	"github.com/ctxls/ctxls/providers/tokens"
)

// reload scans the whole workspace again with cfg and replaces the model.
func (l *Library) reload(ctx context.Context, cfg *config.Config, problems []config.Problem) error {
	reading := l.readCache()
	counter, err := tokens.New(cfg.Tokenizer)
	if err != nil {
		return fmt.Errorf("tokenizer: %w", err)
	}
	s, err := discover.Walk(ctx, l.root, cfg, l.listings)
	if err != nil {
		return fmt.Errorf("scan %s: %w", l.dir, err)
	}
	root := l.root
	switch {
	case root != nil && l.listings != nil:
		// The build reads every file the walk found: the folders on the
		// way, which the walk listed, are not looked at again.
		root = root.Listed(l.listings)
	case root != nil:
		// The folders on the way are resolved once for all, not once per
		// file.
		root = root.Memo()
	}
	b := &builder{root: root, cfg: cfg, counter: counter, contextRoots: s.ContextRoots, commandRoots: s.CommandRoots, roots: s.Info(), beside: besideRoots(s.ContextRoots), paths: newPathMemo(), slabs: &slabs{}}
	b.cache = l.openCache(reading, cfg.Tokenizer, s.ContextRoots, s.CommandRoots)
	files := make([]*File, len(s.Files))
	if l.texts != nil {
		l.texts.indexing.Store(true)
		defer l.texts.indexing.Store(false)
		defer l.texts.batch()()
	}
	var done, held atomic.Int64
	inParallel(ctx, len(s.Files), func(i int) {
		files[i] = b.parse(ctx, s.Files[i].Path, s.Files[i].Rel, nil)
		// Drop the text now rather than once every file is parsed and
		// scanned: the scan reads it back (and does not keep it).
		// Otherwise the text of the whole library is live at once, the
		// heap grows by as much again before each collection, and the
		// model built among it ends up spread over more pages (10,000
		// topics: peak resident 240 MiB, 128 MiB after the index; with
		// this, 170 and 121 MiB). The first scanHeldBytes of text are
		// kept for the scan, which then reads none of those files again:
		// a repository of a few thousand small markdown files is read
		// once.
		if f := files[i]; f == nil || f.Doc == nil || held.Add(int64(f.Doc.Len())) > scanHeldBytes {
			l.release(files[i : i+1])
		}
		if l.opts.Progress != nil {
			n := done.Add(1)
			if n%256 == 0 || int(n) == len(files) {
				l.opts.Progress(int(n), len(files))
			}
		}
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st := newState(b.root, files)
	view := st.view()
	if b.cache != nil {
		b.view = viewKey(st)
	}
	// Each file's keys are numbered as they are found: strings made for
	// each until every file is scanned, they would leave holes among the
	// references scanned meanwhile.
	st.incoming = incoming.New(st.topics.Len())
	keys := make([][]uint32, len(files))
	inParallel(ctx, len(files), func(i int) {
		files[i].Refs = b.scanRefs(ctx, files[i], view, 0)
		keys[i] = st.incoming.KeyIDs(refKeys(ctx, b, files[i]))
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st.buildIncoming(files, keys)
	l.release(files) // those kept for the scan
	if b.cache != nil {
		l.saveCache(b.cache, b.view, files)
	}

	next := &Snapshot{
		dir: l.dir, root: l.root, cfg: cfg, cfgProblems: problems, counter: counter, filter: s.Filter,
		contextRoots: s.ContextRoots, commandRoots: s.CommandRoots, roots: b.roots, beside: b.beside, readings: b.paths,
		warnings: s.Warnings, texts: l.texts,
	}
	if prev := l.snap.Load(); prev != nil {
		next.version = prev.version
	}
	next = next.withState(st)
	next.diags = newDiags(next.files)
	l.snap.Store(next)
	l.log.Info("indexed workspace", "dir", l.dir, "files", len(files), "topics", st.topics.Len(), "domains", len(st.domains), "commands", len(st.commands))
	if l.opts.AfterIndex != nil {
		l.opts.AfterIndex()
	}
	return nil
}

// scanHeldBytes bounds the text a full index keeps from the parse of its
// files to the scan of their references.
const scanHeldBytes = 4 << 20

// inParallel runs fn(0..n-1) on all cores, starting no call once ctx is
// done.
func inParallel(ctx context.Context, n int, fn func(i int)) {
	parallel.For(n, 0, func(i int) {
		if ctx.Err() == nil {
			fn(i)
		}
	})
}

// builder turns files on disk into File values under one configuration.
type builder struct {
	// root is the check every file read passes; nil (in tests) reads
	// without it.
	root         *fsguard.Root
	cfg          *config.Config
	counter      tokens.Counter
	contextRoots []string
	commandRoots []string
	roots        discover.RootInfo
	// beside holds, per context root, the names of the directories next
	// to it (in its parent), which workspace-relative paths start with.
	beside map[string]map[string]bool
	// paths remembers the readings of path references; nil computes each
	// reading afresh.
	paths *pathMemo

	// kwMu guards kw, the keywords derived from each section heading seen
	// so far: thousands of topics share headings such as "Overview", and
	// sharing their keyword lists keeps one copy in the model.
	kwMu sync.Mutex
	kw   map[string][]string

	strings interner
	// slabs, during a full index, hold the files, topics and sections
	// built; nil allocates each alone.
	slabs *slabs

	// cache, during a full index, holds what an earlier index computed;
	// view is the viewKey the references are scanned under.
	cache *indexcache.Cache
	view  uint64
}

// interner keeps one copy of each string it is given. Frontmatter values
// are slices of a copy of their whole YAML text: the model keeps its own
// copies, one per distinct value for the tags, keywords and section names
// that thousands of topics repeat.
type interner struct {
	mu sync.Mutex
	m  map[string]string
	// lists holds one copy of each list of strings, by listKey: the keywords
	// of sections and the tags of topics repeat the same few words in the
	// same few combinations.
	lists map[string][]string
}

func (in *interner) intern(s string) string {
	if s == "" {
		return ""
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if v, ok := in.m[s]; ok {
		return v
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	v := strings.Clone(s)
	in.m[v] = v
	return v
}

func (in *interner) internAll(xs []string) []string {
	for i, x := range xs {
		xs[i] = in.intern(x)
	}
	return slices.Clip(xs)
}

// internList returns the interner's copy of the list xs, which callers
// must not modify.
func (in *interner) internList(xs []string) []string {
	if len(xs) == 0 {
		return xs
	}
	key := listKey(xs)
	in.mu.Lock()
	list, ok := in.lists[key]
	in.mu.Unlock()
	if ok {
		return list
	}
	list = in.internAll(slices.Clone(xs))
	in.mu.Lock()
	defer in.mu.Unlock()
	if prev, ok := in.lists[key]; ok {
		return prev
	}
	if in.lists == nil {
		in.lists = map[string][]string{}
	}
	in.lists[key] = list
	return list
}

// listKey returns a string that only the same strings in the same order
// give: each string's length, then the string.
func listKey(xs []string) string {
	var b []byte
	for _, x := range xs {
		b = binary.AppendUvarint(b, uint64(len(x)))
		b = append(b, x...)
	}
	return string(b)
}

// ownMeta gives m copies of its strings of its own, shared where values
// repeat, so that the model does not keep the frontmatter's text alive.
func (b *builder) ownMeta(m *Metadata) {
	in := &b.strings
	m.ID, m.Title = strings.Clone(m.ID), strings.Clone(m.Title)
	m.Domain, m.Type, m.LoadingStrategy = in.intern(m.Domain), in.intern(m.Type), in.intern(m.LoadingStrategy)
	m.Version, m.LastUpdated, m.MaintainedFor = in.intern(m.Version), in.intern(m.LastUpdated), in.intern(m.MaintainedFor)
	if b.slabs != nil && len(m.Sections) > 0 {
		m.Sections = append(b.slabs.metas.Take(len(m.Sections))[:0], m.Sections...)
	}
	for i := range m.Sections {
		s := &m.Sections[i]
		s.Name, s.Keywords = in.intern(s.Name), in.internList(s.Keywords)
	}
	m.Tags = in.internList(m.Tags)
	m.CrossDomainTriggers = in.internAll(m.CrossDomainTriggers)
	for i, t := range m.DetectionTriggers {
		m.DetectionTriggers[i] = strings.Clone(t)
	}
	for i := range m.IndexedFiles {
		f := &m.IndexedFiles[i]
		f.ID, f.Path = strings.Clone(f.ID), strings.Clone(f.Path)
		f.Type, f.LoadingStrategy = in.intern(f.Type), in.intern(f.LoadingStrategy)
	}
	m.declared = in.internList(m.declared)
	if m.Extra != nil {
		extra := make(map[string]any, len(m.Extra))
		for k, v := range m.Extra {
			extra[strings.Clone(k)] = cloneValue(v)
		}
		m.Extra = extra
	}
}

// cloneValue copies the strings of a value decoded from YAML.
func cloneValue(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Clone(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneValue(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[strings.Clone(k)] = cloneValue(x)
		}
		return out
	}
	return v
}

// headingKeywords returns keywords(name), the same slice for the same name.
// Callers must not modify it.
func (b *builder) headingKeywords(name string) []string {
	b.kwMu.Lock()
	defer b.kwMu.Unlock()
	if kw, ok := b.kw[name]; ok {
		return kw
	}
	kw := slices.Clip(keywords(name))
	if b.kw == nil {
		b.kw = map[string][]string{}
	}
	b.kw[strings.Clone(name)] = kw
	return kw
}

// besideRoots lists the directories next to each context root.
func besideRoots(roots []string) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(roots))
	for _, r := range roots {
		names := map[string]bool{}
		ents, _ := os.ReadDir(filepath.Dir(r))
		for _, e := range ents {
			if e.IsDir() && filepath.Join(filepath.Dir(r), e.Name()) != r {
				names[e.Name()] = true
			}
		}
		out[r] = names
	}
	return out
}

// read reads the file at p through the root check, within maxFileSize.
func (b *builder) read(ctx context.Context, p string) ([]byte, fs.FileInfo, error) {
	if b.root == nil {
		return fsguard.ReadFileInfo(ctx, p, b.cfg.MaxFileSize)
	}
	return b.root.ReadFileInfo(ctx, p, b.cfg.MaxFileSize)
}

// parse reads (unless content is given) and parses one file. References
// are scanned separately, once the set of domains is known. The caller has
// checked p against the workspace root.
func (b *builder) parse(ctx context.Context, p, rel string, content []byte) *File {
	c := discover.Classify(p, b.contextRoots, b.commandRoots)
	f := &b.slabs.fileSlab().Take(1)[0]
	*f = File{Path: p, Rel: rel, Kind: c.Kind}
	var size, mtime int64
	if content == nil {
		var info fs.FileInfo
		var err error
		content, info, err = b.read(ctx, p)
		var big *fsguard.TooLargeError
		switch {
		case errors.As(err, &big):
			f.Skipped = fmt.Sprintf("file is %s, above the %s limit (maxFileSize in %s); not indexed", humanBytes(big.Size), humanBytes(b.cfg.MaxFileSize), config.FileName)
			return f
		case errors.Is(err, fsguard.ErrNotRegular):
			f.Skipped = fmt.Sprintf("%v; not indexed", discover.UnwrapPath(err))
			return f
		case err != nil:
			f.Skipped = fmt.Sprintf("cannot read: %v", discover.UnwrapPath(err))
			return f
		}
		size, mtime = info.Size(), info.ModTime().UnixNano()
	} else if int64(len(content)) > b.cfg.MaxFileSize {
		f.Skipped = fmt.Sprintf("document is %s, above the %s limit (maxFileSize in %s); not indexed", humanBytes(int64(len(content))), humanBytes(b.cfg.MaxFileSize), config.FileName)
		return f
	}
	if document.IsBinary(content) {
		f.Skipped = "file holds binary data, not markdown text; not indexed"
		return f
	}
	if b.cache != nil {
		f.cache = &cached{hash: indexcache.Sum(content), size: size, mtime: mtime}
		f.cache.entry, f.cache.hit = b.cache.Lookup(p, f.cache.hash)
	}
	f.Doc = document.Parse(p, content)
	switch c.Kind {
	case discover.TopicFile:
		f.Topic, f.problems = b.topic(f.Doc, c, f.cache)
	case discover.CommandFile:
		f.Command = command(f.Doc, c.Name, p)
	}
	if checksLinks(f) {
		ix := mdlink.Index(f.Doc)
		f.links = &ix
	}
	// Free the tree now rather than after the references are scanned:
	// the trees of every file of a library would otherwise be live at
	// once (the peak resident set of a cold index of 10,000 topics fell
	// from about 465 to 315 MiB). Scanning parses the YAML again, cheaply.
	f.releaseTree()
	return f
}

// topic builds a topic from a parsed file, with the token counts of the
// index cache when fc holds them.
func (b *builder) topic(doc *document.Doc, c discover.Class, fc *cached) (*Topic, []metaProblem) {
	id := c.Name
	if c.Domain != "" {
		id = c.Domain + "/" + c.Name
	}
	t := &b.slabs.topicSlab().Take(1)[0]
	*t = Topic{
		ID: id, Domain: c.Domain, Name: c.Name, Path: doc.Path, Root: c.Root, RelPath: c.RelPath,
		HasFrontmatter: doc.Frontmatter != nil, Doc: doc,
	}
	probs := decodeMeta(doc, &t.Meta, c.Domain != "")
	b.ownMeta(&t.Meta)
	derive(&t.Meta, doc, c.Domain, id, c.Name)

	secs := doc.Sections()
	spans := make([][2]int, len(secs))
	body := doc.Body
	for i, s := range secs {
		spans[i] = [2]int{s.Content.Start - body.Start, s.Content.End - body.Start}
	}
	var total int
	var per []int
	if fc != nil && fc.hit && len(fc.entry.Sections) == len(spans) {
		total, per = fc.entry.Tokens, fc.entry.Sections
	} else {
		total, per = b.counter.CountSpans(string(doc.Slice(body)), spans)
	}
	if fc != nil {
		fc.tokens, fc.sections = total, per
	}
	t.Tokens = total
	t.Sections = b.slabs.sectionSlab().Take(len(secs))[:0]
	wants := make([]wantMatch, len(t.Meta.Sections))
	for i, m := range t.Meta.Sections {
		wants[i] = wantKey(m.Name)
	}
	for i, s := range secs {
		name, anchor := headingName(s.Text)
		sec := Section{Name: name, Anchor: anchor, Level: s.Level, Heading: s.Span, Content: s.Content, Tokens: per[i]}
		key := sec.matchKey()
		for j, m := range t.Meta.Sections {
			if key.matches(wants[j]) {
				sec.Declared = m.EstimatedTokens
				sec.Keywords = m.Keywords
				break
			}
		}
		if sec.Keywords == nil {
			sec.Keywords = b.headingKeywords(unnumbered(name))
		}
		t.Sections = append(t.Sections, sec)
	}
	return t, probs
}

// command builds a command from a parsed file.
func command(doc *document.Doc, name, p string) *Command {
	c := &Command{Name: name, Path: p, Doc: doc}
	// Clones: the values are slices of the whole frontmatter text.
	if _, v := doc.Frontmatter.Field("name"); v.Exists() && v.Value() != "" {
		c.Name = strings.Clone(v.Value())
	}
	if _, v := doc.Frontmatter.Field("description"); v.Exists() {
		c.Description = strings.Clone(v.Value())
	}
	if _, v := doc.Frontmatter.Field("context"); v.Exists() {
		for e := range v.Items() {
			c.Context = append(c.Context, strings.Clone(e.Value()))
		}
	}
	if c.Description == "" {
		c.Description = doc.Title()
	}
	return c
}

// releaseTree drops the frontmatter tree of a file the builder parsed, once
// its metadata is read: the library keeps thousands of documents, and
// later uses parse the small YAML text again.
func (f *File) releaseTree() {
	if f != nil && f.Doc != nil {
		f.Doc.Frontmatter.ReleaseTree()
	}
}

// scanRefs scans a file's references against a view of the library and
// drops path references that lead outside every context root.
//
// hint is how many references the file held before (0 when unknown).
func (b *builder) scanRefs(ctx context.Context, f *File, v view, hint int) refs.List {
	if f.Doc == nil {
		return refs.List{}
	}
	all, ok := b.cachedRefs(f)
	if !ok {
		doc, err := f.Doc.Held(context.Background())
		if err != nil {
			// Changed or gone since it was indexed (the library's owner
			// hears of it): the references of the indexed text stand
			// until the file is indexed again.
			return f.Refs
		}
		all = refs.ScanList(doc, refs.Options{IsDomain: v.isDomain, Sections: v.sections, BareNames: listsTopics(f), SizeHint: hint, Fields: refFields(f)})
		if f.cache != nil {
			f.cache.refs = indexcache.AppendRefs(nil, all)
		}
	}
	n, stopped := 0, false
	all = all.Retain(func(r refs.Ref) bool {
		// Each path looks at the disk: a file of a hundred thousand
		// stops when the load does, keeping the rest unjudged (the
		// cancelled load is dropped).
		if n++; n%1024 == 0 && ctx.Err() != nil {
			stopped = true
		}
		if stopped {
			return true
		}
		if r.Form == refs.PathForm && !b.pathInRoots(f.Path, r) {
			_, _, ok := b.misplaced(f.Path, r, v.isDomain)
			return ok
		}
		return true
	})
	all.Share(v.share)
	return all
}

// refFields returns the frontmatter fields that hold references in f,
// by its kind: a field means what the kind of file says it means.
func refFields(f *File) refs.Fields {
	switch {
	case f.Kind == discover.TopicFile:
		return refs.TopicFields
	case f.Kind == discover.CommandFile:
		return refs.CommandFields
	case filepath.Base(f.Path) == "SKILL.md":
		return refs.SkillFields
	}
	return 0
}

// pathCandidates lists the absolute paths a path reference may mean, most
// likely first: relative to the referring file, to the workspace layout
// around each context root, and to each context root itself. The last
// reading is left out for a file outside the root when the path starts
// with a directory that stands next to the root ("commands/x.md" written
// in a command means the commands folder, not the context domain of that
// name).
func (b *builder) pathCandidates(from string, r refs.Ref) []string {
	return b.readingOf(from, r).candidates
}

// readingOf returns the reading of the path reference r in the file from,
// from the memo when the builder has one.
func (b *builder) readingOf(from string, r refs.Ref) *pathReading {
	dir := filepath.Dir(from)
	if b.paths == nil {
		return b.readPath(dir, r.Path)
	}
	return b.paths.reading(b, dir, r.Path)
}

// pathInRoots reports whether a path reference lands inside a context root
// under any reading, or is a bare file name (resolved by name).
func (b *builder) pathInRoots(from string, r refs.Ref) bool {
	return isBare(r.Path) || b.readingOf(from, r).inRoots
}

// misplaced reports whether a path reference that leads outside every
// context root still ends in "domain/topic.md" for a known domain and
// names no file on disk: a topic reference with a wrong relative path,
// such as "../../security/x.md" written one level too deep.
func (b *builder) misplaced(from string, r refs.Ref, isDomain func(string) bool) (domain, stem string, ok bool) {
	// Only "../…/domain/topic.md": a path that climbs and then names a
	// domain directly. Deeper paths ("../../memory/commands/index.md")
	// point at other trees that merely share a folder name.
	parts := strings.Split(path.Clean(filepath.ToSlash(r.Path)), "/")
	up := 0
	for up < len(parts) && parts[up] == ".." {
		up++
	}
	if up == 0 || len(parts)-up != 2 {
		return "", "", false
	}
	domain = parts[up]
	stem = strings.TrimSuffix(parts[up+1], path.Ext(parts[up+1]))
	if !isDomain(domain) {
		return "", "", false
	}
	for _, c := range b.pathCandidates(from, r) {
		if _, err := os.Stat(c); err == nil {
			return "", "", false
		}
	}
	return domain, stem, true
}

// isBare reports whether a path is a file name alone, such as
// "fastapi_patterns.md".
func isBare(p string) bool { return !strings.ContainsAny(p, "/\\") }

// state is the set of indexes built from a set of files.
type state struct {
	files    cowmap.Map[*File]
	topics   cowmap.Map[*Topic]
	byStem   cowmap.Map[[]*Topic]
	domains  map[string]*Domain
	commands map[string]*Command
	incoming incoming.Index
	// aliases maps the frontmatter id of a file directly in a context root
	// ("engineering/cross_domain" for cross_domain.md) to its topic.
	aliases map[string]*Topic
	// dupTopics and dupCommands hold the ids and names that more than one
	// file defines; warnings says which definition won.
	dupTopics   map[string]bool
	dupCommands map[string]bool
	warnings    []discover.Warning
	// owned, when set, holds the keys whose incoming sets this state may
	// change: the others belong to a published snapshot too (see own).
	owned map[string]bool
	// root is the check of the workspace's files that the model looks at
	// beyond its own, such as a plugin's manifest.
	root *fsguard.Root
}

// newState returns the model of files, the files of the workspace of root.
func newState(root *fsguard.Root, files []*File) *state {
	st := &state{
		root:     root,
		files:    cowmap.New[*File](len(files)),
		aliases:  map[string]*Topic{},
		domains:  map[string]*Domain{},
		commands: map[string]*Command{},
	}
	slices.SortFunc(files, func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
		st.files.Set(f.Path, f)
	}
	// files is sorted already: sorting the map's values again would cost
	// as much as the rest.
	st.rebuildFrom(func(yield func(*File) bool) {
		for i, f := range files {
			if i+1 < len(files) && files[i+1].Path == f.Path {
				continue // the map holds the last of a path given twice
			}
			if !yield(f) {
				return
			}
		}
	})
	return st
}

// rebuildTopics recomputes topics, domains and commands from files.
func (st *state) rebuildTopics() {
	st.rebuildFrom(slices.Values(slices.SortedFunc(st.files.Values(), func(a, b *File) int { return strings.Compare(a.Path, b.Path) })))
}

// rebuildFrom recomputes topics, domains and commands from sorted, every
// file of st.files in the order of their paths.
func (st *state) rebuildFrom(sorted iter.Seq[*File]) {
	st.topics = cowmap.New[*Topic](st.files.Len())
	clear(st.aliases)
	st.byStem = cowmap.New[[]*Topic](st.files.Len())
	clear(st.domains)
	clear(st.commands)
	st.warnings = nil
	st.dupTopics = map[string]bool{}
	st.dupCommands = map[string]bool{}
	for f := range sorted {
		st.addFile(f)
	}
	st.sortDomains()
}

func (st *state) addFile(f *File) {
	switch {
	case f.Topic != nil:
		t := f.Topic
		if prev, dup := st.topics.Lookup(t.ID); dup {
			st.dupTopics[t.ID] = true
			st.warnings = append(st.warnings, discover.Warning{Path: f.Path, Message: fmt.Sprintf("topic %s is also defined by %s, which wins", t.ID, prev.Path)})
			return
		}
		st.topics.Set(t.ID, t)
		if a := alias(t); a != "" && st.aliases[a] == nil {
			st.aliases[a] = t
		}
		stem := path.Base(t.Name)
		st.byStem.Set(stem, append(st.byStem.Get(stem), t))
		if t.Domain == "" {
			return
		}
		d := st.domains[t.Domain]
		if d == nil {
			d = &Domain{Name: t.Domain}
			st.domains[t.Domain] = d
		}
		dir := filepath.Join(t.Root, t.Domain)
		if !slices.Contains(d.Dirs, dir) {
			d.Dirs = append(d.Dirs, dir)
		}
		d.Topics = append(d.Topics, t)
		switch t.Name {
		case "index":
			d.Index = t
		case "context_detection":
			d.Detection = t
		}
	case f.Command != nil:
		if prev, dup := st.commands[f.Command.Name]; dup {
			st.dupCommands[f.Command.Name] = true
			if !discover.Namespaced(st.root, f.Path, prev.Path) {
				st.warnings = append(st.warnings, discover.Warning{Path: f.Path, Message: fmt.Sprintf("command %s is also defined by %s, which wins", f.Command.Name, prev.Path)})
			}
			return
		}
		st.commands[f.Command.Name] = f.Command
	}
}

func (st *state) sortDomains() {
	for _, d := range st.domains {
		slices.SortFunc(d.Topics, func(a, b *Topic) int { return strings.Compare(a.Name, b.Name) })
	}
}

// alias returns the frontmatter id by which a file directly in a context
// root may also be named, or "": cross_domain.md may declare
// "engineering/cross_domain".
func alias(t *Topic) string {
	if t.Domain != "" || !t.Meta.declares("id") || t.Meta.ID == t.ID || !strings.Contains(t.Meta.ID, "/") {
		return ""
	}
	return t.Meta.ID
}

// view answers the questions the reference scanner asks.
type view struct {
	domains map[string]bool
	topics  cowmap.Map[*Topic]
	// names maps each domain name to the model's own copy of it.
	names map[string]string
}

func (st *state) view() view {
	v := view{domains: make(map[string]bool, len(st.domains)), topics: st.topics, names: make(map[string]string, len(st.domains))}
	for name, d := range st.domains {
		v.domains[name] = true
		v.names[name] = d.Name
	}
	return v
}

// share replaces the domain and topic of a reference to a known domain or
// topic by the model's copies of the same strings, so that the thousands
// of references to one domain do not each keep their own.
func (v view) share(r *refs.Ref) {
	name, ok := v.names[r.Domain]
	if !ok {
		return
	}
	r.Domain = name
	if r.Topic != "" {
		if t := v.topics.Get(name + "/" + r.Topic); t != nil && t.Domain == name && t.Name == r.Topic {
			r.Topic = t.Name
		}
	}
}

func (v view) isDomain(name string) bool { return v.domains[name] }

func (v view) sections(domain, topic string) []string {
	t := v.topics.Get(domain + "/" + strings.TrimSuffix(topic, ".md"))
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.Sections))
	for i := range t.Sections {
		out = append(out, t.Sections[i].names()...)
	}
	return out
}

// buildIncoming indexes which files refer to which targets, given the
// numbers of the refKeys of each file in st.incoming.
func (st *state) buildIncoming(files []*File, keys [][]uint32) {
	for i, f := range files {
		if st.files.Get(f.Path) == f {
			for _, k := range keys[i] {
				st.incoming.AddID(k, f.Path)
			}
			f.inKeys = keys[i]
		}
	}
}

// refKeys lists the index keys of a file's references: "domain/topic" for
// named topics, "@domain" for domains, "*/stem" for bare file names.
func refKeys(ctx context.Context, b *builder, f *File) []string {
	var keys []string
	add := func(k string) {
		if k != "" {
			keys = append(keys, k)
		}
	}
	// A long command names the same few domains thousands of times: their
	// keys are added once rather than sorted away.
	domains := map[string]bool{}
	addDomain := func(d string) {
		if !domains[d] {
			domains[d] = true
			add("@" + d)
		}
	}
	// Nor are the keys of a topic or path named many times built more
	// than once.
	type pair struct{ domain, topic string }
	topics := map[pair]bool{}
	paths := map[string]bool{}
	for _, r := range f.Refs.All() {
		// A path looks at the disk: a cancelled load stops here, and is
		// dropped.
		if len(paths)%1024 == 1023 && ctx.Err() != nil {
			break
		}
		switch r.Form {
		case refs.DomainForm:
			addDomain(r.Domain)
		case refs.PathForm:
			if paths[r.Path] {
				continue
			}
			paths[r.Path] = true
			// The last two parts name the topic a misplaced path means.
			if dir, file, ok := lastTwo(path.Clean(r.Path)); ok {
				add(dir + "/" + strings.TrimSuffix(file, path.Ext(r.Path)))
			}
			if isBare(r.Path) {
				add("*/" + strings.TrimSuffix(path.Base(r.Path), path.Ext(r.Path)))
			}
			for _, k := range b.readingOf(f.Path, r).keys {
				add(k)
			}
		default:
			if k := (pair{r.Domain, r.Topic}); !topics[k] {
				topics[k] = true
				add(r.Domain + "/" + strings.TrimSuffix(r.Topic, ".md"))
				addDomain(r.Domain)
			}
		}
	}
	slices.Sort(keys)
	// The file keeps them as long as it is indexed.
	return slices.Clone(slices.Compact(keys))
}

// lastTwo splits the last two parts off a slash-separated path: "a/b/c.md"
// gives "b" and "c.md"; a path of one part gives ok false.
func lastTwo(p string) (dir, file string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", "", false
	}
	j := strings.LastIndexByte(p[:i], '/')
	return p[j+1 : i], p[i+1:], true
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
