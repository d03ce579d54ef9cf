// Package library is the model of a workspace's context libraries: it
// discovers context roots, command roots and every other markdown file,
// builds topics, domains and commands from them, scans and resolves the
// references between them, reports diagnostics, and follows changes one
// file at a time.
//
// A Library is safe for concurrent use. Its model is a Snapshot, which
// never changes, nor do the files, topics, domains and commands it hands
// out: a change builds the next snapshot, so a caller may keep using what
// it got while the library moves on.
package library

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/listing"
	"github.com/ctxls/ctxls/providers/mdlink"
	"github.com/ctxls/ctxls/providers/refs"
	"github.com/ctxls/ctxls/providers/tokens"
)

// File is one markdown file of the workspace.
type File struct {
	// Path is the absolute, cleaned path.
	Path string
	// Rel is the path relative to the workspace, with forward slashes.
	Rel string
	// Kind is the file's role.
	Kind discover.Kind
	// Doc is the parsed content; nil when the file was skipped.
	Doc *document.Doc
	// Refs are the references the file makes, in order.
	Refs refs.List
	// Topic is set for topic files.
	Topic *Topic
	// Command is set for command files.
	Command *Command
	// Skipped says why the file was not read (too large, binary), or "".
	Skipped string

	problems []metaProblem
	// links are the markdown links of a plain file, taken from the text
	// it was indexed from, which the check of its links then need not
	// read again; nil for any other file.
	links *mdlink.Indexed
	// inKeys are the numbers of the keys the file is filed under in the
	// incoming index; refile reuses them (computing the keys resolves
	// every path reference again).
	inKeys []uint32
	// cache is the file's index cache state during a full index, or nil.
	cache *cached
}

// Topic is a markdown file in a context root.
type Topic struct {
	// ID is "domain/stem", or "stem" for files directly in a context root.
	ID string
	// Domain is the owning domain, "" for root files.
	Domain string
	// Name is the stem within the domain ("fastapi_patterns",
	// "frameworks/fastapi" for nested files).
	Name string
	// Path is the absolute path.
	Path string
	// Root is the context root directory holding the file.
	Root string
	// RelPath is the path relative to Root, with forward slashes.
	RelPath string
	// Meta is the effective metadata.
	Meta Metadata
	// HasFrontmatter reports whether the file has a frontmatter block.
	HasFrontmatter bool
	// Tokens is the measured token cost of the body.
	Tokens int
	// Sections are the sections with their measured costs.
	Sections []Section
	// Doc is the parsed file.
	Doc *document.Doc
}

// Declared returns the declared token cost, or 0 when none is declared.
func (t *Topic) Declared() int {
	if t.Meta.declares("estimatedTokens") {
		return t.Meta.EstimatedTokens
	}
	return 0
}

// Key returns the key form of the topic, "domain:name".
func (t *Topic) Key() string {
	if t.Domain == "" {
		return t.Name
	}
	return t.Domain + ":" + t.Name
}

// Section returns the section named name (case-insensitively, without an
// outline number such as "1.", or by its anchor), preferring level-two
// headings.
func (t *Topic) Section(name string) (*Section, bool) {
	var best *Section
	want := wantKey(name)
	for i := range t.Sections {
		s := &t.Sections[i]
		if s.matchKey().matches(want) {
			if best == nil || (s.Level == 2 && best.Level != 2) {
				best = s
			}
		}
	}
	return best, best != nil
}

// Body returns the topic's text without frontmatter.
func (t *Topic) Body() string { return string(t.Doc.Slice(t.Doc.Body)) }

// Section is a section of a topic with its measured cost.
type Section struct {
	// Name is the heading text without a trailing attribute block such as
	// "{#anchor}".
	Name string
	// Anchor is the explicit anchor of the heading ("{#anchor}"), or "".
	Anchor string
	// Level is the heading level (2 for "##").
	Level int
	// Heading spans the heading line; Content spans the whole section.
	Heading, Content document.Span
	// Tokens is the measured cost of the section.
	Tokens int
	// Declared is the cost the frontmatter declares, or 0.
	Declared int
	// Keywords come from the frontmatter, or from the heading's words.
	Keywords []string
}

// Domain is a first-level directory of a context root.
type Domain struct {
	// Name is the directory name.
	Name string
	// Dirs are the directories (one per context root holding the domain).
	Dirs []string
	// Topics are the domain's topics, sorted by name.
	Topics []*Topic
	// Index is the domain's index.md topic, if any.
	Index *Topic
	// Detection is the domain's context_detection.md topic, if any.
	Detection *Topic
}

// Tokens returns the sum of the measured costs of the domain's topics.
func (d *Domain) Tokens() int {
	n := 0
	for _, t := range d.Topics {
		n += t.Tokens
	}
	return n
}

// Command is an agent command: commands/NAME.md or commands/NAME/COMMAND.md.
type Command struct {
	// Name is the command's name ("implement").
	Name string
	// Path is the absolute path.
	Path string
	// Description comes from the frontmatter's description field.
	Description string
	// Context is the frontmatter's context list as written.
	Context []string
	// Doc is the parsed file.
	Doc *document.Doc
}

// Body returns the command's prompt text without frontmatter.
func (c *Command) Body() string { return string(c.Doc.Slice(c.Doc.Body)) }

// Options tune a Library.
type Options struct {
	// Logger receives progress and problems; nil discards.
	Logger *slog.Logger
	// Progress, when set, is called during the initial scan with the number
	// of files parsed so far and the total.
	Progress func(done, total int)
	// AfterIndex, when set, runs after each full index of the workspace has
	// published the new model: a long-running process returns the memory
	// the build needed to the operating system.
	AfterIndex func()
	// CacheDir, when set, is where the index cache lives (see package
	// indexcache): a full index takes the token counts and references of
	// files unchanged since the last one from it. "" keeps no cache.
	CacheDir string
	// Version identifies the build for the index cache (indexcache.BuildID).
	Version string
	// Changed, when set, learns of a file whose text, read back on
	// demand, is no longer the one indexed (or that vanished): the caller
	// re-indexes it as after a watcher event. It must not block.
	Changed func(path string)
	// Listings, when set, are the folder listings Load's scan reads
	// through and keeps, for another walk of the same tree in a
	// short-lived process (see package listing). Only Load's scan uses
	// them; later scans read the disk.
	Listings *listing.Listings
}

// Library follows one workspace: Apply and SetConfig bring it in step
// with changes, and Snapshot returns the model a request reads.
type Library struct {
	dir  string
	root *fsguard.Root
	opts Options
	log  *slog.Logger
	// listings are Options.Listings during Load's scan, then nil.
	listings *listing.Listings

	// applyMu serialises changes: the holder is the one writer of snap.
	applyMu sync.Mutex

	texts *textSource // reads back the text of released files

	// snap is the model in effect. Readers load it once per request and
	// never wait: a change builds the next snapshot and swaps it in.
	snap atomic.Pointer[Snapshot]
}

// Load scans the workspace at dir with the given configuration; a nil cfg
// reads dir/.ctxls.yaml.
func Load(ctx context.Context, dir string, cfg *config.Config, opts Options) (*Library, error) {
	l, cfg, problems, err := newLibrary(dir, cfg, opts)
	if err != nil {
		return nil, err
	}
	l.listings = opts.Listings
	err = l.reload(ctx, cfg, problems)
	l.listings = nil
	if err != nil {
		return nil, err
	}
	return l, nil
}

// newLibrary returns an empty library of the workspace at dir and the
// configuration to load it with: cfg, or when cfg is nil what
// dir/.ctxls.yaml says, with the problems found in it.
func newLibrary(dir string, cfg *config.Config, opts Options) (*Library, *config.Config, []config.Problem, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	l := &Library{dir: filepath.Clean(abs), root: fsguard.NewRoot(filepath.Clean(abs)), opts: opts, log: opts.Logger}
	l.texts = &textSource{l: l}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	var problems []config.Problem
	if cfg == nil {
		if cfg, problems, err = config.Load(l.dir); err != nil {
			return nil, nil, nil, err
		}
	}
	return l, cfg, problems, nil
}

// Snapshot returns the model in effect. It never changes: reads of one
// snapshot agree with each other however the library moves on meanwhile.
func (l *Library) Snapshot() *Snapshot { return l.snap.Load() }

// Dir returns the workspace directory.
func (l *Snapshot) Dir() string { return l.dir }

// Root returns the workspace directory as the check that every file read
// from the workspace passes.
func (l *Snapshot) Root() *fsguard.Root { return l.root }

// errNotInWorkspace is the error for a document that is neither open in
// an editor nor in the workspace: a client names it, but the server reads
// no file outside the workspace for a client.
var errNotInWorkspace = errors.New("the document is outside the workspace and not open in the editor")

// ReadDocument reads a document that is neither open in an editor nor
// indexed. It must lie in the workspace and pass the root check (a link
// to a file outside is not read), and be a regular file within the
// configuration's maxFileSize, so that a named pipe cannot hold the
// request.
func (l *Snapshot) ReadDocument(ctx context.Context, path string) ([]byte, error) {
	if !fsguard.Within(l.root.Dir(), path) {
		return nil, errNotInWorkspace
	}
	return l.root.ReadFile(ctx, path, l.Config().MaxFileSize)
}

// textSource reads back the text of the files the library released: the
// library holds the text of a file only while an editor's text stands in
// for it (see Apply), the index keeps what it computed from the rest. It
// keeps the last few texts read, within keptBytes.
type textSource struct {
	l *Library
	// indexing is set while a full index reads back every file once to
	// scan its references: the texts it reads are not kept.
	indexing atomic.Bool

	mu   sync.Mutex
	kept []keptText // most recent last
	size int
	// batches counts the reads of many files under way (see batch);
	// memo, while there is one, resolves their folders once.
	batches int
	memo    *fsguard.Root
}

// batch starts a run of reads of many files (the scan of a full index,
// the diagnostics of every file): until done is called the folders on
// their paths are resolved once, not once per file, as one request's
// reads resolve them (see fsguard.Root.Memo). A text read back is still
// the one indexed or refused, so what a folder replaced meanwhile could
// show is that text.
func (s *textSource) batch() (done func()) {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	if s.batches == 0 {
		s.memo = s.l.root.Memo()
	}
	s.batches++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.batches--; s.batches == 0 {
			s.memo = nil
		}
		s.mu.Unlock()
	}
}

// root is the root reads go through: the memo of a batch under way, or
// the library's.
func (s *textSource) root() *fsguard.Root {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memo != nil {
		return s.memo
	}
	return s.l.root
}

type keptText struct {
	doc  *document.Doc
	text []byte
}

// keptTexts and keptBytes bound the texts a library keeps after reading
// them back: enough for the uses of one request, such as the ranges of
// every reference of one large file or the summaries of a completion
// list, and for the next requests, which tend to ask about the same files.
const (
	keptTexts = 64
	keptBytes = 16 << 20
)

// Kept returns the text kept for d, or nil.
func (s *textSource) Kept(d *document.Doc) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.kept) - 1; i >= 0; i-- {
		if s.kept[i].doc == d {
			return s.kept[i].text
		}
	}
	return nil
}

// Keep keeps text as d's, dropping the oldest texts beyond the bounds.
func (s *textSource) Keep(d *document.Doc, text []byte) {
	if len(text) > keptBytes || s.indexing.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept = append(s.kept, keptText{d, text})
	s.size += len(text)
	for len(s.kept) > keptTexts || s.size > keptBytes {
		s.size -= len(s.kept[0].text)
		s.kept[0] = keptText{}
		s.kept = s.kept[1:]
	}
}

// ReadText reads a file of the workspace again, through the root check:
// a file that a link now leads out of the workspace is as good as
// changed.
func (s *textSource) ReadText(ctx context.Context, p string, limit int64) ([]byte, error) {
	data, err := s.root().ReadFile(ctx, p, limit)
	if errors.Is(err, fsguard.ErrOutsideWorkspace) || errors.Is(err, fsguard.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", p, document.ErrChanged)
	}
	if big := (*fsguard.TooLargeError)(nil); errors.As(err, &big) {
		return nil, fmt.Errorf("%s grew to %s: %w", p, humanBytes(big.Size), document.ErrChanged)
	}
	return data, err
}

// Changed passes a changed file on to Options.Changed.
func (s *textSource) Changed(p string) {
	s.l.log.Debug("indexed file changed on disk", "path", p)
	if s.l.opts.Changed != nil {
		s.l.opts.Changed(p)
	}
}

// release drops the text of files read from disk (see textSource).
func (l *Library) release(files []*File) {
	if l.texts == nil {
		return // a preview's library
	}
	for _, f := range files {
		if f != nil && f.Doc != nil {
			f.Doc.Release(l.texts)
		}
	}
}

// Config returns the configuration in effect. Callers must not modify it.
func (l *Snapshot) Config() *config.Config { return l.cfg }

// Filter returns the directory rules of the configuration: what a scan of
// the workspace reads, and what Apply accepts.
func (l *Snapshot) Filter() *discover.Filter { return l.filter }

// ConfigProblems returns what was wrong with the configuration.
func (l *Snapshot) ConfigProblems() []config.Problem {
	return slices.Clone(l.cfgProblems)
}

// Counter returns the token counter in effect.
func (l *Snapshot) Counter() tokens.Counter { return l.counter }

// Version increases with every change to the library.
func (l *Snapshot) Version() uint64 { return l.version }

// ContextRoots returns the context root directories.
func (l *Snapshot) ContextRoots() []string {
	return slices.Clone(l.contextRoots)
}

// CommandRoots returns the command root directories.
func (l *Snapshot) CommandRoots() []string {
	return slices.Clone(l.commandRoots)
}

// Warnings returns workspace problems that are not diagnostics.
func (l *Snapshot) Warnings() []discover.Warning {
	return slices.Concat(l.warnings, l.dupWarnings)
}

// File returns the file at an absolute path.
func (l *Snapshot) File(path string) (*File, bool) {
	f := l.files.Get(filepath.Clean(path))
	return f, f != nil
}

// Files returns every markdown file, sorted by path.
func (l *Snapshot) Files() []*File { return l.sortedFiles() }

// Topic returns the topic with an id such as "python/fastapi_patterns".
// A file directly in a context root is found by its path id
// ("cross_domain") and by the id its frontmatter declares
// ("engineering/cross_domain").
func (l *Snapshot) Topic(id string) (*Topic, bool) { return l.topic(id) }

// Topics returns every topic, sorted by id.
func (l *Snapshot) Topics() []*Topic {
	out := l.TopicsUnordered()
	SortTopics(out)
	return out
}

// TopicsUnordered returns every topic in no particular order, for callers
// that only look each one up: sorting ten thousand ids costs more than
// what such a caller does with them.
func (l *Snapshot) TopicsUnordered() []*Topic {
	topics := &l.topics
	return slices.AppendSeq(make([]*Topic, 0, topics.Len()), topics.Values())
}

// SortTopics sorts topics by id, the order of Topics.
func SortTopics(topics []*Topic) {
	slices.SortFunc(topics, func(a, b *Topic) int { return strings.Compare(a.ID, b.ID) })
}

// Domain returns a domain by name.
func (l *Snapshot) Domain(name string) (*Domain, bool) {
	d, ok := l.domains[name]
	return d, ok
}

// Domains returns every domain, sorted by name.
func (l *Snapshot) Domains() []*Domain {
	return slices.SortedFunc(maps.Values(l.domains), func(a, b *Domain) int { return strings.Compare(a.Name, b.Name) })
}

// IsDomain reports whether name is a domain.
func (l *Snapshot) IsDomain(name string) bool { return l.isDomain(name) }

// Command returns a command by name.
func (l *Snapshot) Command(name string) (*Command, bool) {
	c, ok := l.commands[name]
	return c, ok
}

// Commands returns every command, sorted by name.
func (l *Snapshot) Commands() []*Command {
	return slices.SortedFunc(maps.Values(l.commands), func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
}

// RootFile returns the topic of a file directly in a context root, such as
// "loading_protocol" or "cross_domain", from the first root that has it.
func (l *Snapshot) RootFile(stem string) (*Topic, bool) {
	return l.Topic(stem)
}

// slugOf returns the GitHub-style anchor of a heading: lower case, spaces as
// hyphens, punctuation dropped.
func slugOf(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ' || r == '-':
			b.WriteByte('-')
		case r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
