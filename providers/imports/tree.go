package imports

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Limits Claude Code applies to memory files.
const (
	// defaultMaxHops is how many hops of imports Claude Code follows from
	// a memory file: a file four imports away loads, one five away does
	// not. Older versions followed five.
	defaultMaxHops = 4
	// defaultMaxChars is the size, in characters, past which Claude Code
	// warns that a memory file is large.
	defaultMaxChars = 40000
	// MaxFileBytes is the size past which Claude Code skips a file; it is
	// also what ctxls reads at most of one.
	MaxFileBytes = 4 << 20
)

// Status says what the agent does with an import.
type Status int

// Statuses of an import.
const (
	// Loaded: the target loads here.
	Loaded Status = iota
	// Again: the target loaded earlier in the same tree and is not loaded
	// twice.
	Again
	// Missing: no file at the path (or a folder).
	Missing
	// Punctuation: the path ends in punctuation, so the agent looks for a
	// file that is not there.
	Punctuation
	// Cycle: the target is one of the files importing it.
	Cycle
	// TooDeep: the target is past the depth limit and does not load.
	TooDeep
	// Outside: the path is absolute, in the user's home, or leads out of
	// the project; ctxls does not follow it.
	Outside
	// TooLarge: the target is larger than the agent reads.
	TooLarge
	// Mention: the path names no file and does not look like one (no file
	// extension, no existing folder), as in "ask @alice" or "install
	// @types/node": the agent looks and finds nothing, which is what the
	// writer meant.
	Mention
	// Escapes: the path lies in the project, but a symbolic link on it
	// leads out of the project; ctxls neither reads nor counts the file,
	// and does not say where the link leads.
	Escapes
	// Special: the target is no regular file (a named pipe, a device, a
	// file of /proc, a loop of links); ctxls does not read it.
	Special
)

var statusNames = [...]string{"loaded", "already loaded", "missing", "trailing punctuation", "cycle", "too deep", "outside the project", "too large", "not a file", "link out of the project", "not a regular file"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Edge is an import and what became of it.
type Edge struct {
	Import
	// From is the importing file (absolute, clean).
	From string
	// Target is the file the import names (absolute, clean), with
	// trailing punctuation left out; "" for a home path when the home
	// folder is unknown.
	Target string
	// Hop is the target's distance in imports from the tree's root.
	Hop int
	// Status says whether and why not the target loads.
	Status Status
	// Chain lists, for a cycle, the files from the target to the
	// importing file along the imports that led here.
	Chain []string
	// Why says, for Special, what the target is.
	Why string
}

// File is a file of an import tree that loads.
type File struct {
	// Path is absolute and clean.
	Path string
	// Hop is 0 for the root and one more than its importer otherwise.
	Hop int
	// Chars and Tokens measure the whole text.
	Chars, Tokens int
	// Imports are the file's imports in order.
	Imports []Edge

	firstLine document.Span // where a file too large is flagged
}

// Tree is what loading one memory file brings in.
type Tree struct {
	// Files lists the files that load, the root first, then in the order
	// the agent reaches them (depth first, in document order).
	Files []*File
	// Tokens is the sum of the files' tokens.
	Tokens int
	// MaxHops and MaxChars are the limits the tree was built with.
	MaxHops, MaxChars int

	guard *fsguard.Root
	// byPath finds a file of Files by its path.
	byPath map[string]*File
	// names lists the folders that siblings looks in, each once.
	names *listings
}

// Root returns the memory file the tree starts from.
func (t *Tree) Root() *File { return t.Files[0] }

// File returns the tree's file at path, or nil.
func (t *Tree) File(path string) *File {
	if t.byPath != nil {
		return t.byPath[path]
	}
	for _, f := range t.Files {
		if f.Path == path {
			return f
		}
	}
	return nil
}

// Subtree returns the token cost of the files that load through f: f
// itself and every file first reached through it.
func (t *Tree) Subtree(path string) int {
	f := t.File(path)
	if f == nil {
		return 0
	}
	seen := map[string]bool{}
	var walk func(f *File) int
	walk = func(f *File) int {
		if seen[f.Path] {
			return 0
		}
		seen[f.Path] = true
		n := f.Tokens
		for _, e := range f.Imports {
			if e.Status == Loaded {
				if c := t.File(e.Target); c != nil {
					n += walk(c)
				}
			}
		}
		return n
	}
	return walk(f)
}

// Options configure Build.
type Options struct {
	// Root is the project folder (absolute); relative imports leading out
	// of it are Outside. "" means the memory file's folder.
	Root string
	// Guard is the check every file of the tree passes before it is read,
	// through Read or not: inside the project, its links resolved, and a
	// regular file. nil means the root check of Root.
	Guard *fsguard.Root
	// Home is the user's home folder, used only to show where "~/" paths
	// lead; "" leaves their Target empty.
	Home string
	// MaxHops is the depth limit; 0 means defaultMaxHops.
	MaxHops int
	// MaxChars is the size of a file worth a warning; 0 means
	// defaultMaxChars.
	MaxChars int
	// Counter measures tokens; nil leaves them 0.
	Counter tokens.Counter
	// Read returns a file's content, for instance an editor's unsaved
	// text; nil reads the disk through Guard. It must fail with an error
	// wrapping fs.ErrNotExist for a missing file and must not return more
	// than MaxFileBytes (see ErrTooLarge). Build calls it only for a path
	// Guard lets through.
	Read func(path string) ([]byte, error)
}

// ErrTooLarge is returned by a reader for a file over MaxFileBytes.
var ErrTooLarge = errors.New("file larger than 4 MiB")

// ReadFile reads a file from disk as Build does, through root's check: a
// folder counts as missing, a file over MaxFileBytes is not read, and a
// link out of the workspace or a file that is not a regular file fails as
// root.ReadFile fails. It opens without blocking, so that an import of a
// named pipe fails instead of holding the check.
func ReadFile(root *fsguard.Root, path string) ([]byte, error) {
	// Build's readers take no context; the file is bounded instead.
	b, err := root.ReadFile(context.Background(), path, MaxFileBytes)
	var big *fsguard.TooLargeError
	switch {
	case errors.As(err, &big):
		return nil, ErrTooLarge
	case errors.Is(err, fsguard.ErrNotRegular):
		if fi, serr := root.Stat(path); serr == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s is a folder: %w", path, fs.ErrNotExist)
		}
	}
	return b, err
}

// Build reads the memory file at path and follows its imports as the
// agent does: depth first in document order, each file loaded once, up to
// opt.MaxHops hops away. It fails only when the memory file itself cannot
// be read or ctx is done.
func Build(ctx context.Context, path string, opt Options) (*Tree, error) {
	if opt.MaxHops <= 0 {
		opt.MaxHops = defaultMaxHops
	}
	if opt.MaxChars <= 0 {
		opt.MaxChars = defaultMaxChars
	}
	path = filepath.Clean(path)
	if opt.Root == "" {
		opt.Root = filepath.Dir(path)
	}
	if opt.Guard == nil {
		opt.Guard = fsguard.NewRoot(opt.Root)
	}
	if opt.Read == nil {
		opt.Read = func(p string) ([]byte, error) { return ReadFile(opt.Guard, p) }
	}
	if err := permit(opt.Guard, path); err != nil {
		return nil, fmt.Errorf("read memory file: %w", err)
	}
	text, err := opt.Read(path)
	if err != nil {
		return nil, fmt.Errorf("read memory file: %w", err)
	}
	b := &builder{ctx: ctx, opt: opt, tree: &Tree{MaxHops: opt.MaxHops, MaxChars: opt.MaxChars, guard: opt.Guard, byPath: map[string]*File{}, names: &listings{}}, onStack: map[string]bool{}, loaded: map[string]bool{}}
	b.visit(path, text, 0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, f := range b.tree.Files {
		b.tree.Tokens += f.Tokens
	}
	return b.tree, nil
}

type builder struct {
	ctx     context.Context
	opt     Options
	tree    *Tree
	onStack map[string]bool
	stack   []string
	loaded  map[string]bool
}

// cycle returns the files on the stack from target to the top.
func (b *builder) cycle(target string) []string {
	for i, p := range b.stack {
		if p == target {
			return append([]string(nil), b.stack[i:]...)
		}
	}
	return nil
}

func (b *builder) visit(path string, text []byte, hop int) {
	f := &File{Path: path, Hop: hop, Chars: utf8.RuneCount(text)}
	if b.opt.Counter != nil {
		f.Tokens = b.opt.Counter.Count(string(text))
	}
	b.tree.Files = append(b.tree.Files, f)
	b.tree.byPath[path] = f
	b.loaded[path] = true
	b.onStack[path] = true
	b.stack = append(b.stack, path)
	defer func() {
		delete(b.onStack, path)
		b.stack = b.stack[:len(b.stack)-1]
	}()
	doc := document.Parse(path, text)
	f.firstLine = document.Span{Start: 0, End: doc.Lines.End(0)}
	dir := filepath.Dir(path)
	for _, im := range Scan(doc) {
		if b.ctx.Err() != nil {
			return
		}
		e := Edge{Import: im, From: path, Hop: hop + 1}
		var next []byte
		e.Target, e.Status = b.resolve(dir, im, e.Hop)
		if e.Status == Loaded {
			err := permit(b.opt.Guard, e.Target)
			if err == nil {
				next, err = b.opt.Read(e.Target)
			}
			switch {
			case errors.Is(err, fsguard.ErrOutsideWorkspace):
				e.Status = Escapes
			case errors.Is(err, fsguard.ErrNotRegular) || err != nil && fsguard.IsLoop(err):
				e.Status, e.Why = Special, special(err)
			case errors.Is(err, ErrTooLarge):
				e.Status = TooLarge
			case err != nil && b.mention(dir, im.Clean()):
				e.Status = Mention
			case err != nil && im.Trailing != "":
				e.Status = Punctuation
			case err != nil:
				e.Status = Missing
			}
		}
		if e.Status == Punctuation && im.Kind() == Relative {
			e.Target = b.join(dir, im.Clean())
		}
		if e.Status == Cycle {
			e.Chain = b.cycle(e.Target)
		}
		f.Imports = append(f.Imports, e)
		if e.Status == Loaded {
			b.visit(e.Target, next, e.Hop)
		}
	}
}

// resolve returns the file an import names as written and its status
// before reading: Loaded means "read it".
func (b *builder) resolve(dir string, im Import, hop int) (string, Status) {
	// ctxls does not follow paths out of the project, but a path that
	// ends in punctuation is not loaded wherever it leads.
	outside := Outside
	if im.Trailing != "" {
		outside = Punctuation
	}
	switch im.Kind() {
	case Home:
		if b.opt.Home == "" {
			return "", outside
		}
		return filepath.Join(b.opt.Home, filepath.FromSlash(im.Clean()[2:])), outside
	case Absolute:
		return filepath.Clean(filepath.FromSlash(im.Clean())), outside
	}
	target := b.join(dir, im.Path)
	if !fsguard.Within(b.opt.Root, target) {
		return b.join(dir, im.Clean()), outside
	}
	switch {
	case b.onStack[target]:
		return target, Cycle
	case b.loaded[target]:
		return target, Again
	case hop > b.opt.MaxHops:
		return target, TooDeep
	}
	return target, Loaded
}

// mention reports whether a path that names no file is no file reference
// at all: nothing is at the path without its trailing punctuation, its
// last part has no file extension, and its first folder does not exist.
func (b *builder) mention(dir, clean string) bool {
	p := b.join(dir, clean)
	if err := permit(b.opt.Guard, p); err != nil {
		return false // something is there, if nothing ctxls reads
	}
	if _, err := b.opt.Read(p); err == nil || errors.Is(err, ErrTooLarge) {
		return false
	}
	if _, err := b.opt.Guard.Stat(p); err == nil {
		return false // a folder: named, but no file
	}
	// A sentence's final period is no extension: "@guide.md." is a file.
	base := strings.TrimRight(path.Base(clean), ".")
	first, _, nested := strings.Cut(strings.TrimPrefix(clean, "./"), "/")
	// A dotted name alone ("@app.get", "@pytest.fixture") is a decorator
	// or a method far more often than a file, unless it ends as files do.
	ext := path.Ext(base)
	if fileExt(ext) && (nested || knownExt[strings.ToLower(ext[1:])]) || fileLike(base) || len(b.tree.names.siblings(b.opt.Guard, p)) > 0 {
		return false
	}
	if !nested {
		return true
	}
	st, err := b.opt.Guard.Stat(b.join(dir, first))
	return err != nil || !st.IsDir()
}

// permit returns why the file at p may not be read: nil when it lies in
// the project, its links resolved, and is a regular file, a folder (which
// counts as missing) or nothing at all (an editor may hold the text of a
// file not yet saved).
func permit(guard *fsguard.Root, p string) error {
	fi, err := guard.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !fsguard.IsLoop(err):
		return nil
	case err != nil:
		return err
	case fi.IsDir() || fi.Mode().IsRegular():
		return nil
	}
	return fsguard.NotRegular(fi.Mode())
}

// special says what a file that is not read is, from the error of its
// check or read.
func special(err error) string {
	if fsguard.IsLoop(err) {
		return "a loop of symbolic links"
	}
	msg := err.Error()
	if i := strings.Index(msg, fsguard.ErrNotRegular.Error()); i >= 0 {
		return msg[i:]
	}
	return fsguard.ErrNotRegular.Error()
}

// fileLike reports whether an extensionless name is a file's all the
// same: README, LICENSE, Makefile, Dockerfile.
func fileLike(name string) bool {
	if strings.HasSuffix(name, "file") && len(name) > len("file") {
		return true
	}
	letters := 0
	for _, c := range name {
		switch {
		case c >= 'A' && c <= 'Z':
			letters++
		case c == '_' || c == '-' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letters >= 3
}

// listings holds the names of the files of the folders siblings looked
// in, sorted, each folder listed once: a memory file that imports
// thousands of missing files of one folder would otherwise list the
// folder once for each. Its methods are safe for concurrent use; the
// zero value is empty, and a nil one lists every time.
type listings struct {
	mu   sync.Mutex
	dirs map[string][]string
}

// siblings returns the names of the files next to p whose name is p's
// followed by an extension: README.md for README. A folder that guard
// refuses is not listed.
func (c *listings) siblings(guard *fsguard.Root, p string) []string {
	names := c.files(guard, filepath.Dir(p))
	prefix := filepath.Base(p) + "."
	var out []string
	for i, _ := slices.BinarySearch(names, prefix); i < len(names) && strings.HasPrefix(names[i], prefix); i++ {
		if len(names[i]) > len(prefix) {
			out = append(out, names[i])
		}
	}
	return out
}

// files returns the sorted names of the files (not folders) of dir, or
// nil when guard refuses it or it cannot be listed.
func (c *listings) files(guard *fsguard.Root, dir string) []string {
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if names, ok := c.dirs[dir]; ok {
			return names
		}
	}
	var names []string
	if fi, err := guard.Stat(dir); err == nil && fi.IsDir() {
		// os.ReadDir sorts by name.
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	if c != nil {
		if c.dirs == nil {
			c.dirs = map[string][]string{}
		}
		c.dirs[dir] = names
	}
	return names
}

// fileExt reports whether ext (".md") looks like a file extension: a dot
// and letters or digits, at least one a letter, so that "v2.1" is none.
func fileExt(ext string) bool {
	if len(ext) < 2 {
		return false
	}
	letter := false
	for _, c := range ext[1:] {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}

// knownExt holds the extensions of the files a memory file imports: text,
// data, configuration and source files.
var knownExt = map[string]bool{
	"md": true, "mdx": true, "mdc": true, "markdown": true, "txt": true, "rst": true, "adoc": true, "org": true,
	"json": true, "jsonc": true, "json5": true, "yaml": true, "yml": true, "toml": true, "ini": true, "cfg": true,
	"conf": true, "env": true, "xml": true, "html": true, "htm": true, "css": true, "scss": true, "csv": true,
	"tsv": true, "sql": true, "graphql": true, "gql": true, "proto": true, "lock": true, "mod": true, "sum": true,
	"py": true, "pyi": true, "ipynb": true, "ts": true, "tsx": true, "js": true, "jsx": true, "mjs": true,
	"cjs": true, "vue": true, "svelte": true, "go": true, "rs": true, "rb": true, "java": true, "kt": true,
	"kts": true, "gradle": true, "scala": true, "swift": true, "m": true, "c": true, "h": true, "cc": true,
	"cpp": true, "hpp": true, "cs": true, "fs": true, "php": true, "dart": true, "ex": true, "exs": true,
	"erl": true, "hs": true, "ml": true, "clj": true, "lua": true, "r": true, "pl": true, "sh": true,
	"bash": true, "zsh": true, "fish": true, "ps1": true, "bat": true, "tf": true, "hcl": true, "nix": true,
	"properties": true, "example": true, "sample": true, "template": true, "tmpl": true, "log": true,
	"pdf": true, "png": true, "jpg": true, "jpeg": true, "svg": true, "gif": true,
}

func (b *builder) join(dir, p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
