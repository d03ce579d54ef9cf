// Package discover finds what a workspace holds for the library: it
// walks the workspace under its filter (ignored and generated folders,
// git's ignore rules), decides which folders are context roots and on what
// evidence, finds the command roots, and says what role each markdown
// file plays (topic, command or other).
package discover

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

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/gitignore"
	"github.com/ctxls/ctxls/providers/listing"
)

// Directory names that hold context and commands by convention.
const (
	ContextDirName = "context"
	CommandDirName = "commands"
)

// Kind says what role a markdown file plays.
type Kind int

const (
	// OtherFile is any markdown file outside context and command roots.
	OtherFile Kind = iota
	// TopicFile is a markdown file inside a context root.
	TopicFile
	// CommandFile is a command inside a command root.
	CommandFile
)

// String returns the role's name: "topic", "command" or "markdown".
func (k Kind) String() string {
	switch k {
	case TopicFile:
		return "topic"
	case CommandFile:
		return "command"
	}
	return "markdown"
}

// Warning is a problem with the workspace that belongs to no diagnostic,
// such as a directory that could not be read.
type Warning struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// String returns the path and the message.
func (w Warning) String() string { return fmt.Sprintf("%s: %s", w.Path, w.Message) }

// hidden reports whether name is a hidden file or directory name.
func hidden(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// outputDir reports whether a directory of this name at the top of a
// workspace holds build output (which may copy the library, making every
// topic a duplicate) rather than sources.
func outputDir(name string) bool {
	switch name {
	case "build", "dist", "target":
		return true
	}
	return false
}

// A Filter decides which directories and files of a workspace the library
// reads, and so which directories a file watcher has to watch:
//
//   - directories named by [config.IgnoredDir] and hidden directories are skipped;
//   - so are build, dist and target at the top of the workspace, unless the
//     workspace is itself a context or command root (then they are domains
//     or commands);
//   - paths matching the configured ignore patterns are skipped;
//   - so are paths git ignores (.gitignore, .git/info/exclude, the global
//     excludes file), unless the configuration includes them back;
//   - but a configured context or command root, and every directory on the
//     way to it, is entered whatever its name (only the ignore patterns can
//     exclude it). A directory entered only on the way to a root
//     (".claude" for the root ".claude/commands") is passed through: its
//     own files and its other sub-directories are not read.
//
// Below a configured root the same rules apply again, counted from the root.
// A Filter is immutable and safe for concurrent use.
type Filter struct {
	dir      string
	ignore   []string
	roots    []string // configured context and command roots inside dir
	selfRoot bool     // dir is itself a context or command root
	git      *gitignore.Matcher
}

// FilterFor returns the filter of the workspace dir (absolute and clean)
// under the ignore patterns and extra roots of cfg. Configured roots outside
// the workspace play no part.
func FilterFor(dir string, cfg *config.Config) *Filter {
	var roots []string
	for _, r := range slices.Concat(cfg.ContextRoots, commandRoots(cfg)) {
		if p, ok := Within(dir, r); ok {
			roots = append(roots, p)
		}
	}
	return newFilter(dir, cfg.Ignore, roots, gitignore.New(dir, cfg.Include))
}

func newFilter(dir string, ignore, roots []string, git *gitignore.Matcher) *Filter {
	b := filepath.Base(dir)
	return &Filter{
		dir:      dir,
		ignore:   ignore,
		roots:    roots,
		git:      git,
		selfRoot: b == ContextDirName || b == CommandDirName || slices.Contains(roots, dir) || looksLikeContextRoot(fsguard.NewRoot(dir), dir),
	}
}

// dirState says how far a walk goes into a directory.
type dirState uint8

const (
	dirRead dirState = iota // read its files, enter its sub-directories
	dirPass                 // only on the way to a configured root
	dirSkip                 // neither read nor entered
)

// SkipDir reports whether the directory at p (absolute, below the
// workspace) is neither read nor watched.
func (f *Filter) SkipDir(p string) bool {
	return f.state(p) == dirSkip
}

// SkipFile reports whether the file at p (absolute, below the workspace) is
// not read: its directory is skipped or only passed through, or an ignore
// pattern matches it.
func (f *Filter) SkipFile(p string) bool {
	if d := filepath.Dir(p); d != f.dir && f.state(d) != dirRead {
		return true
	}
	rel := fsguard.RelSlash(f.dir, p)
	if ignoredPath(rel, f.ignore) {
		return true
	}
	return f.git.Ignored(rel, false) && innermost(p, f.roots) == ""
}

// GitIgnored reports whether git ignores the file or folder at p
// (absolute, below the workspace) and the configuration does not include
// it back.
func (f *Filter) GitIgnored(p string, isDir bool) bool {
	rel, inside := fsguard.Rel(f.dir, p)
	return inside && f.git.Ignored(rel, isDir)
}

// state classifies the directory at p.
func (f *Filter) state(p string) dirState {
	if p == f.dir {
		return dirRead
	}
	rel, inside := fsguard.Rel(f.dir, p)
	if !inside || ignoredPath(rel, f.ignore) {
		return dirSkip
	}
	base := f.dir
	r := innermost(p, f.roots)
	if r != "" {
		if r == p {
			return dirRead
		}
		base = r
	}
	// A configured root is read although git ignores it: the
	// configuration names it.
	if r == "" && f.git.Ignored(rel, true) {
		if f.leadsToRoot(p) {
			return dirPass
		}
		return dirSkip
	}
	parts := strings.Split(fsguard.RelSlash(base, p), "/")
	blocked := false
	for i, part := range parts {
		if config.IgnoredDir(part) || hidden(part) || i == 0 && base == f.dir && !f.selfRoot && outputDir(part) {
			blocked = true
			break
		}
	}
	switch {
	case !blocked:
		return dirRead
	case f.leadsToRoot(p):
		return dirPass
	}
	return dirSkip
}

// leadsToRoot reports whether a configured root lies below p.
func (f *Filter) leadsToRoot(p string) bool {
	for _, r := range f.roots {
		if r != p && fsguard.Within(p, r) {
			return true
		}
	}
	return false
}

// innermost returns the longest of roots that holds p, or "".
func innermost(p string, roots []string) string {
	best := ""
	for _, r := range roots {
		if len(r) > len(best) && fsguard.Within(r, p) {
			best = r
		}
	}
	return best
}

// Entry is a markdown file found by the walk.
type Entry struct {
	Path string
	Rel  string
}

// Scan is what a walk of the workspace found.
type Scan struct {
	// root is the check every file the scan reads passes.
	root         *fsguard.Root
	ContextRoots []string
	CommandRoots []string
	// roots are the context roots with what showed each; passed are the
	// directories that looked like one but showed nothing.
	roots    []ContextRoot
	passed   []string
	Files    []Entry
	Warnings []Warning
	// Filter is the one the walk went by, git's answers kept.
	Filter *Filter
}

// DefaultCommandRoots are the command roots of every workspace besides
// the configured ones: the folder Claude Code reads a project's commands
// from, which chains run as they run commands/ (a plugin's commands
// folder is named commands and so a command root already).
var DefaultCommandRoots = []string{".claude/commands"}

// commandRoots returns the default and the configured command roots of
// cfg, each once.
func commandRoots(cfg *config.Config) []string {
	out := slices.Clone(DefaultCommandRoots)
	for _, r := range cfg.CommandRoots {
		if !slices.Contains(out, filepath.ToSlash(filepath.Clean(r))) {
			out = append(out, r)
		}
	}
	return out
}

// configured reports whether the commandRoots setting names root, which
// is then watched for even before it exists.
func configured(roots []string, root string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return filepath.ToSlash(filepath.Clean(r)) == root })
}

// isDir reports whether p, in the workspace of root, is a directory, links
// not followed.
func isDir(root *fsguard.Root, p string) bool {
	info, err := root.Lstat(p)
	return err == nil && info.IsDir()
}

// Walk lists the workspace's markdown files and its context and command
// roots. It never follows symbolic links to directories (they may loop or
// leave the workspace), lists only regular files and links that pass the
// root's check, and skips unreadable directories with a warning.
func Walk(ctx context.Context, root *fsguard.Root, cfg *config.Config, lst *listing.Listings) (*Scan, error) {
	ignore, extraContext, extraCommands := cfg.Ignore, cfg.ContextRoots, commandRoots(cfg)
	dir := root.Dir()
	s := &Scan{root: root}
	for _, r := range extraContext {
		if p, ok := Within(dir, r); ok {
			s.ContextRoots = append(s.ContextRoots, p)
			s.roots = append(s.roots, ContextRoot{Dir: p, Why: "contextRoots in " + config.FileName})
		} else {
			s.Warnings = append(s.Warnings, Warning{r, "configured context root is outside the workspace; ignored"})
		}
	}
	for _, r := range extraCommands {
		if p, ok := Within(dir, r); ok {
			if slices.Contains(DefaultCommandRoots, r) && !configured(cfg.CommandRoots, r) && !isDir(root, p) {
				continue // a default root the workspace does not have
			}
			s.CommandRoots = append(s.CommandRoots, p)
		} else {
			s.Warnings = append(s.Warnings, Warning{r, "configured command root is outside the workspace; ignored"})
		}
	}
	f := newFilter(dir, ignore, slices.Concat(s.ContextRoots, s.CommandRoots), gitignore.NewListed(dir, cfg.Include, lst))
	s.Filter = f
	pass := make(map[string]bool) // directories only on the way to a configured root
	// Directories named context are candidates, taken once their files
	// show a library (see ContextRoot); those named commands are command
	// roots unless they lie in a context root.
	var candidates, commandDirs []string
	configured := slices.Clone(s.ContextRoots)
	err := lst.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			s.Warnings = append(s.Warnings, Warning{p, fmt.Sprintf("cannot read: %v; skipped", UnwrapPath(err))})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if pass[filepath.Dir(p)] {
				return nil
			}
			return s.symlink(root, p, fsguard.RelSlash(dir, p))
		}
		if d.IsDir() {
			switch f.state(p) {
			case dirSkip:
				return fs.SkipDir
			case dirPass:
				pass[p] = true
				return nil
			}
			if d.Name() == ContextDirName && p != dir && UnderAny(p, configured) == "" {
				candidates = append(candidates, p)
			} else if d.Name() == CommandDirName && UnderAny(p, configured) == "" && UnderAny(p, s.CommandRoots) == "" && UnderAny(p, commandDirs) == "" {
				commandDirs = append(commandDirs, p)
			}
			return nil
		}
		if IsMarkdown(d.Name()) && !pass[filepath.Dir(p)] && !f.SkipFile(p) {
			if !d.Type().IsRegular() {
				// A named pipe would block the read, a device never end.
				s.Warnings = append(s.Warnings, Warning{p, fmt.Sprintf("%v; skipped", fsguard.NotRegular(d.Type()))})
				return nil
			}
			s.Files = append(s.Files, Entry{p, fsguard.RelSlash(dir, p)})
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if UnderAny(dir, configured) == "" && (filepath.Base(dir) == ContextDirName || len(configured) == 0 && looksLikeContextRoot(root, dir)) {
		// The workspace itself is the library, or holds none.
		candidates = append(candidates, dir)
	}
	s.decideRoots(dir, candidates, slices.Concat(s.CommandRoots, commandDirs))
	s.ContextRoots = s.ContextRoots[:0]
	for _, r := range s.roots {
		s.ContextRoots = append(s.ContextRoots, r.Dir)
	}
	for _, c := range commandDirs {
		if UnderAny(c, s.ContextRoots) == "" {
			s.CommandRoots = append(s.CommandRoots, c)
		}
	}
	slices.Sort(s.ContextRoots)
	slices.Sort(s.CommandRoots)
	return s, nil
}

// symlink decides about a symbolic link met by the walk: a link to a
// markdown file is listed when it passes the root's check.
func (s *Scan) symlink(root *fsguard.Root, p, rel string) error {
	target, err := os.Stat(p)
	if err == nil && target.IsDir() {
		s.Warnings = append(s.Warnings, Warning{p, "symbolic link to a directory is not followed (it could loop or leave the workspace)"})
		return nil
	}
	if err == nil && !IsMarkdown(p) {
		return nil
	}
	if _, err := root.Check(p); err != nil {
		msg := fmt.Sprintf("%v; skipped", err)
		switch {
		case errors.Is(err, fs.ErrNotExist), fsguard.IsLoop(err):
			msg = fmt.Sprintf("broken or looping symbolic link (%v); skipped", err)
		case !errors.Is(err, fsguard.ErrOutsideWorkspace) && !errors.Is(err, fsguard.ErrNotRegular):
			msg = fmt.Sprintf("cannot read link target: %v; skipped", err)
		}
		s.Warnings = append(s.Warnings, Warning{p, msg})
		return nil
	}
	s.Files = append(s.Files, Entry{p, rel})
	return nil
}

// looksLikeContextRoot reports whether dir, a folder of the workspace of
// root, is itself laid out as a context root: it holds a loading protocol
// or cross-domain file, or an index.md beside sub-directories that hold
// index.md files.
func looksLikeContextRoot(root *fsguard.Root, dir string) bool {
	for _, name := range []string{"loading_protocol.md", "cross_domain.md"} {
		if _, err := root.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	domains := 0
	for _, e := range ents {
		if e.IsDir() && !config.IgnoredDir(e.Name()) && !hidden(e.Name()) {
			if _, err := root.Stat(filepath.Join(dir, e.Name(), "index.md")); err == nil {
				domains++
			}
		}
	}
	return domains >= 2
}

// IsMarkdown reports whether name is a markdown file name.
func IsMarkdown(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// ignoredPath reports whether a workspace-relative path matches one of
// the configured ignore patterns (a directory name or a glob).
func ignoredPath(rel string, patterns []string) bool {
	for _, pat := range patterns {
		pat = strings.Trim(pat, "/")
		if pat == "" {
			continue
		}
		if ok, _ := path.Match(pat, rel); ok {
			return true
		}
		for _, part := range strings.Split(rel, "/") {
			if ok, _ := path.Match(pat, part); ok {
				return true
			}
		}
		if fsguard.Within(pat, rel) {
			return true
		}
	}
	return false
}

// Within joins p to dir when relative, cleans it, and reports whether the
// result stays inside dir.
func Within(dir, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	return p, fsguard.Within(dir, p)
}

// UnderAny returns the first of roots that holds p, or "".
func UnderAny(p string, roots []string) string {
	for _, r := range roots {
		if fsguard.Within(r, p) {
			return r
		}
	}
	return ""
}

// UnwrapPath returns the error inside a *fs.PathError, whose message
// would repeat the path, or err itself.
func UnwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// Class is the role a markdown file plays given the roots.
type Class struct {
	Kind    Kind
	Root    string // context or command root
	Domain  string // topic files
	Name    string // topic name within domain, or command name
	RelPath string // relative to root
}

// Classify says what role the markdown file at p plays given the roots.
func Classify(p string, contextRoots, commandRoots []string) Class {
	if r := UnderAny(p, contextRoots); r != "" {
		rel := fsguard.RelSlash(r, p)
		stem := strings.TrimSuffix(rel, path.Ext(rel))
		domain, name, found := strings.Cut(stem, "/")
		if !found {
			return Class{Kind: TopicFile, Root: r, Name: stem, RelPath: rel}
		}
		return Class{Kind: TopicFile, Root: r, Domain: domain, Name: name, RelPath: rel}
	}
	if r := UnderAny(p, commandRoots); r != "" {
		rel := fsguard.RelSlash(r, p)
		parts := strings.Split(rel, "/")
		switch {
		case len(parts) == 1:
			stem := strings.TrimSuffix(parts[0], path.Ext(parts[0]))
			if !strings.EqualFold(stem, "index") && !strings.EqualFold(stem, "readme") && !strings.HasPrefix(stem, "_") {
				return Class{Kind: CommandFile, Root: r, Name: stem, RelPath: rel}
			}
		case len(parts) == 2 && strings.EqualFold(parts[1], "COMMAND.md") && !strings.HasPrefix(parts[0], "_"):
			return Class{Kind: CommandFile, Root: r, Name: parts[0], RelPath: rel}
		}
	}
	return Class{Kind: OtherFile}
}
