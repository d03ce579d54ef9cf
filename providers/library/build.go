package library

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/refs"
	"github.com/ctxls/ctxls/providers/tokens"
)

// reload scans the whole workspace again with cfg and replaces the model.
func (l *Library) reload(ctx context.Context, cfg *config.Config, problems []config.Problem) error {
	counter, err := tokens.New(cfg.Tokenizer)
	if err != nil {
		return fmt.Errorf("tokenizer: %w", err)
	}
	s, err := walk(ctx, l.dir, cfg.Ignore, cfg.ContextRoots, cfg.CommandRoots)
	if err != nil {
		return fmt.Errorf("scan %s: %w", l.dir, err)
	}
	b := &builder{cfg: cfg, counter: counter, contextRoots: s.contextRoots, commandRoots: s.commandRoots, beside: besideRoots(s.contextRoots), paths: newPathMemo()}
	files := make([]*File, len(s.files))
	var done atomic.Int64
	parallel(ctx, len(s.files), func(i int) {
		files[i] = b.parse(s.files[i].path, s.files[i].rel, nil)
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
	st := newState(files)
	view := st.view()
	parallel(ctx, len(files), func(i int) {
		files[i].Refs = b.scanRefs(files[i], view)
		files[i].releaseTree()
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st.buildIncoming(b)

	l.mu.Lock()
	defer l.mu.Unlock()
	l.cfg, l.cfgProblems, l.counter = cfg, problems, counter
	l.filter = NewFilter(l.dir, cfg)
	l.contextRoots, l.commandRoots, l.beside, l.readings = s.contextRoots, s.commandRoots, b.beside, b.paths
	l.files, l.topics, l.byStem, l.domains, l.commands, l.incoming = st.files, st.topics, st.byStem, st.domains, st.commands, st.incoming
	l.aliases = st.aliases
	l.warnings, l.dupWarnings = s.warnings, st.warnings
	l.dupTopics, l.dupCommands = st.dupTopics, st.dupCommands
	l.version++
	l.log.Info("indexed workspace", "dir", l.dir, "files", len(files), "topics", len(st.topics), "domains", len(st.domains), "commands", len(st.commands))
	return nil
}

// parallel runs fn(0..n-1) on all cores.
func parallel(ctx context.Context, n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// builder turns files on disk into File values under one configuration.
type builder struct {
	cfg          *config.Config
	counter      tokens.Counter
	contextRoots []string
	commandRoots []string
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

// parse reads (unless content is given) and parses one file. References
// are scanned separately, once the set of domains is known.
func (b *builder) parse(p, rel string, content []byte) *File {
	c := classify(p, b.contextRoots, b.commandRoots)
	f := &File{Path: p, Rel: rel, Kind: c.kind}
	if content == nil {
		info, err := os.Stat(p)
		if err != nil {
			f.Skipped = fmt.Sprintf("cannot read: %v", unwrapPath(err))
			return f
		}
		if info.Size() > b.cfg.MaxFileSize {
			f.Skipped = fmt.Sprintf("file is %s, above the %s limit (maxFileSize in %s); not indexed", humanBytes(info.Size()), humanBytes(b.cfg.MaxFileSize), config.FileName)
			return f
		}
		content, err = os.ReadFile(p)
		if err != nil {
			f.Skipped = fmt.Sprintf("cannot read: %v", unwrapPath(err))
			return f
		}
	} else if int64(len(content)) > b.cfg.MaxFileSize {
		f.Skipped = fmt.Sprintf("document is %s, above the %s limit (maxFileSize in %s); not indexed", humanBytes(int64(len(content))), humanBytes(b.cfg.MaxFileSize), config.FileName)
		return f
	}
	if document.IsBinary(content) {
		f.Skipped = "file holds binary data, not markdown text; not indexed"
		return f
	}
	f.Doc = document.Parse(p, content)
	switch c.kind {
	case TopicFile:
		f.Topic, f.problems = b.topic(f.Doc, c)
	case CommandFile:
		f.Command = command(f.Doc, c.name, p)
	}
	return f
}

// topic builds a topic from a parsed file.
func (b *builder) topic(doc *document.Doc, c class) (*Topic, []metaProblem) {
	id := c.name
	if c.domain != "" {
		id = c.domain + "/" + c.name
	}
	t := &Topic{
		ID: id, Domain: c.domain, Name: c.name, Path: doc.Path, Root: c.root, RelPath: c.relPath,
		HasFrontmatter: doc.Frontmatter != nil, Doc: doc,
	}
	probs := decodeMeta(doc, &t.Meta, c.domain != "")
	derive(&t.Meta, doc, c.domain, id, c.name)

	secs := doc.Sections()
	spans := make([][2]int, len(secs))
	body := doc.Body
	for i, s := range secs {
		spans[i] = [2]int{s.Content.Start - body.Start, s.Content.End - body.Start}
	}
	total, per := b.counter.CountSpans(string(doc.Slice(body)), spans)
	t.Tokens = total
	t.Sections = make([]Section, 0, len(secs))
	for i, s := range secs {
		name, anchor := headingName(s.Text)
		sec := Section{Name: name, Anchor: anchor, Level: s.Level, Heading: s.Span, Content: s.Content, Tokens: per[i]}
		for _, m := range t.Meta.Sections {
			if sec.Matches(m.Name) {
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
	if _, v := doc.Frontmatter.Field("name"); v != nil && v.Value != "" {
		c.Name = v.Value
	}
	if _, v := doc.Frontmatter.Field("description"); v != nil {
		c.Description = v.Value
	}
	if _, v := doc.Frontmatter.Field("context"); v != nil {
		for _, e := range v.Content {
			c.Context = append(c.Context, e.Value)
		}
	}
	if c.Description == "" {
		c.Description = doc.Title()
	}
	return c
}

// releaseTree drops the frontmatter tree of a file the builder parsed, once
// its metadata and references are read: the library keeps thousands of
// documents, and later uses parse the small YAML text again.
func (f *File) releaseTree() {
	if f != nil && f.Doc != nil {
		f.Doc.Frontmatter.ReleaseTree()
	}
}

// scanRefs scans a file's references against a view of the library and
// drops path references that lead outside every context root.
func (b *builder) scanRefs(f *File, v view) []refs.Ref {
	if f.Doc == nil {
		return nil
	}
	all := refs.Scan(f.Doc, refs.Options{IsDomain: v.isDomain, Sections: v.sections, BareNames: listsTopics(f)})
	out := all[:0]
	for _, r := range all {
		if r.Form == refs.PathForm && !b.pathInRoots(f.Path, r) {
			if _, _, ok := b.misplaced(f.Path, r, v.isDomain); !ok {
				continue
			}
		}
		v.share(&r)
		out = append(out, r)
	}
	if len(out) < cap(out) {
		// The library keeps every file's references; a Ref is large.
		out = slices.Clone(out)
	}
	return out
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
	files    map[string]*File
	topics   map[string]*Topic
	byStem   map[string][]*Topic
	domains  map[string]*Domain
	commands map[string]*Command
	incoming map[string]map[string]bool
	// aliases maps the frontmatter id of a file directly in a context root
	// ("engineering/cross_domain" for cross_domain.md) to its topic.
	aliases map[string]*Topic
	// dupTopics and dupCommands hold the ids and names that more than one
	// file defines; warnings says which definition won.
	dupTopics   map[string]bool
	dupCommands map[string]bool
	warnings    []Warning
}

func newState(files []*File) *state {
	st := &state{
		files:    make(map[string]*File, len(files)),
		topics:   make(map[string]*Topic, len(files)),
		aliases:  map[string]*Topic{},
		byStem:   make(map[string][]*Topic, len(files)),
		domains:  map[string]*Domain{},
		commands: map[string]*Command{},
	}
	slices.SortFunc(files, func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
		st.files[f.Path] = f
	}
	st.rebuildTopics()
	return st
}

// rebuildTopics recomputes topics, domains and commands from files.
func (st *state) rebuildTopics() {
	clear(st.topics)
	clear(st.aliases)
	clear(st.byStem)
	clear(st.domains)
	clear(st.commands)
	st.warnings = nil
	st.dupTopics = map[string]bool{}
	st.dupCommands = map[string]bool{}
	paths := make([]string, 0, len(st.files))
	for p := range st.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		st.addFile(st.files[p])
	}
	st.sortDomains()
}

func (st *state) addFile(f *File) {
	switch {
	case f.Topic != nil:
		t := f.Topic
		if prev, dup := st.topics[t.ID]; dup {
			st.dupTopics[t.ID] = true
			st.warnings = append(st.warnings, Warning{f.Path, fmt.Sprintf("topic %s is also defined by %s, which wins", t.ID, prev.Path)})
			return
		}
		st.topics[t.ID] = t
		if a := alias(t); a != "" && st.aliases[a] == nil {
			st.aliases[a] = t
		}
		stem := path.Base(t.Name)
		st.byStem[stem] = append(st.byStem[stem], t)
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
			st.warnings = append(st.warnings, Warning{f.Path, fmt.Sprintf("command %s is also defined by %s, which wins", f.Command.Name, prev.Path)})
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
	if t.Domain != "" || !t.Meta.Declared("id") || t.Meta.ID == t.ID || !strings.Contains(t.Meta.ID, "/") {
		return ""
	}
	return t.Meta.ID
}

// view answers the questions the reference scanner asks.
type view struct {
	domains map[string]bool
	topics  map[string]*Topic
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
		if t := v.topics[name+"/"+r.Topic]; t != nil && t.Domain == name && t.Name == r.Topic {
			r.Topic = t.Name
		}
	}
}

func (v view) isDomain(name string) bool { return v.domains[name] }

func (v view) sections(domain, topic string) []string {
	t := v.topics[domain+"/"+strings.TrimSuffix(topic, ".md")]
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.Sections))
	for i := range t.Sections {
		out = append(out, t.Sections[i].names()...)
	}
	return out
}

// buildIncoming indexes which files refer to which targets.
func (st *state) buildIncoming(b *builder) {
	st.incoming = make(map[string]map[string]bool, len(st.topics))
	for _, f := range st.files {
		st.link(b, f)
	}
}

func (st *state) link(b *builder, f *File) {
	f.inKeys = refKeys(b, f)
	for _, k := range f.inKeys {
		m := st.incoming[k]
		if m == nil {
			m = map[string]bool{}
			st.incoming[k] = m
		}
		m[f.Path] = true
	}
}

func (st *state) unlink(b *builder, f *File) {
	keys := f.inKeys
	if keys == nil {
		keys = refKeys(b, f)
	}
	for _, k := range keys {
		delete(st.incoming[k], f.Path)
	}
}

// refKeys lists the index keys of a file's references: "domain/topic" for
// named topics, "@domain" for domains, "*/stem" for bare file names.
func refKeys(b *builder, f *File) []string {
	var keys []string
	seen := map[string]bool{}
	add := func(k string) {
		if k != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, r := range f.Refs {
		switch r.Form {
		case refs.DomainForm:
			add("@" + r.Domain)
		case refs.PathForm:
			// The last two parts name the topic a misplaced path means.
			if parts := strings.Split(path.Clean(r.Path), "/"); len(parts) >= 2 {
				add(parts[len(parts)-2] + "/" + strings.TrimSuffix(parts[len(parts)-1], path.Ext(r.Path)))
			}
			if isBare(r.Path) {
				add("*/" + strings.TrimSuffix(path.Base(r.Path), path.Ext(r.Path)))
			}
			for _, k := range b.readingOf(f.Path, r).keys {
				add(k)
			}
		default:
			add(r.Domain + "/" + strings.TrimSuffix(r.Topic, ".md"))
			add("@" + r.Domain)
		}
	}
	return keys
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
