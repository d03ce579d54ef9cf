// Package gitignore says which paths of a workspace git ignores: the
// patterns of the global excludes file (core.excludesFile, by default
// $XDG_CONFIG_HOME/git/ignore), of the repository's .git/info/exclude and
// of every .gitignore from the repository's top down to the path, read
// with git's precedence (a later pattern and a deeper file win) and its
// rule that nothing inside an ignored folder comes back.
//
// The patterns themselves are matched by go-git's gitignore package; this
// one adds what git does around them: which files are read and in what
// order, that a pattern without a slash matches only a path's last name,
// and git's readings of "**" and "[!...]" that go-git reads otherwise.
//
// A workspace outside any repository still has its .gitignore files
// honoured, so that a copy of a checkout is read as the checkout is.
package gitignore

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	gi "github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/glob"
	"github.com/ctxls/ctxls/providers/listing"
)

// maxIgnoreFile bounds the size of one ignore file read.
const maxIgnoreFile = 1 << 20

// Matcher answers whether git ignores a path of one workspace. It reads
// each folder's .gitignore the first time a path in it is asked about. A
// Matcher is safe for concurrent use.
type Matcher struct {
	root    string   // the workspace, absolute and clean
	base    []string // the workspace's folder relative to the repository's top
	include []include

	lst *listing.Listings // the walk's listings, which say where no .gitignore is

	mu   sync.Mutex
	dirs map[string]*dir // by workspace-relative slash path, "." the root
}

// dir is what is known of one folder: whether git ignores it, and the
// patterns that apply to the paths in it, lowest precedence first. The
// folder's own .gitignore is read the first time a path in it is asked
// about, by when a walk has listed the folder.
type dir struct {
	ignored  bool
	loaded   bool // patterns includes the folder's own .gitignore
	parent   *dir
	patterns []pattern
}

// pattern is one parsed line of an ignore file.
type pattern struct {
	p      gi.Pattern
	domain []string // the folder of its file, relative to the repository's top
	simple bool     // no slash but a trailing one: matches a last name only
	// A simple pattern without wildcards or escapes is its name, or a
	// "*" and the end of its names (suffix): those are matched without
	// the general matcher, which most patterns of a .gitignore are.
	name, suffix string
	dirOnly      bool // a trailing slash: matches folders only
	negated      bool // a leading "!": includes back what it matches
}

// plain reports whether a simple pattern is matched by name or suffix.
func (p *pattern) plain() bool { return p.name != "" || p.suffix != "" }

// matchPlain is the answer of a plain pattern for a path whose last name
// is last: Exclude, Include or NoMatch, as the general matcher gives it.
func (p *pattern) matchPlain(last string, isDir bool) gi.MatchResult {
	switch {
	case p.name != "" && last != p.name, p.suffix != "" && !strings.HasSuffix(last, p.suffix), p.dirOnly && !isDir:
		return gi.NoMatch
	case p.negated:
		return gi.Include
	}
	return gi.Exclude
}

// include is one entry of the workspace's list of paths read although
// git ignores them: a path, or a glob of paths.
type include struct {
	path string     // a plain path, or the part of a glob before its first wildcard
	glob *glob.Glob // nil for a plain path
}

// New returns the matcher of the workspace at root. includes are
// workspace-relative paths or globs of paths that are never ignored,
// nor the folders on the way to them.
func New(root string, includes []string) *Matcher {
	return NewListed(root, includes, nil)
}

// NewListed is New for a walk that reads its folders through lst: a
// folder whose listing lst holds is not looked into for a .gitignore it
// does not list.
func NewListed(root string, includes []string, lst *listing.Listings) *Matcher {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	m := &Matcher{root: abs, dirs: map[string]*dir{}, lst: lst}
	for _, e := range includes {
		e = strings.Trim(path.Clean(filepath.ToSlash(e)), "/")
		if e == "" || e == "." {
			continue
		}
		if !strings.ContainsAny(e, "*?[{") {
			m.include = append(m.include, include{path: e})
			continue
		}
		g, err := glob.Compile(e)
		if err != nil {
			continue // config reports a bad glob
		}
		lit := e[:strings.IndexAny(e, "*?[{")]
		m.include = append(m.include, include{path: strings.TrimSuffix(path.Dir(lit+"x"), "."), glob: g})
	}
	top, gitDir := findRepository(abs)
	if top == "" {
		top = abs
	}
	if r, err := filepath.Rel(top, abs); err == nil && r != "." {
		m.base = strings.Split(filepath.ToSlash(r), "/")
	}
	// Lowest precedence first: the global excludes file, the repository's
	// exclude file, then each .gitignore from the top down to the root.
	var ps []pattern
	ps = append(ps, readFile(excludesFile(gitDir), nil)...)
	if gitDir != "" {
		ps = append(ps, readFile(filepath.Join(commonDir(gitDir), "info", "exclude"), nil)...)
	}
	for i := 0; i <= len(m.base); i++ {
		d := filepath.Join(top, filepath.Join(m.base[:i]...))
		ps = append(ps, readFile(filepath.Join(d, ".gitignore"), m.base[:i])...)
	}
	root0 := &dir{patterns: ps, loaded: true}
	// A workspace inside an ignored folder of its repository is read all
	// the same: it is what the user opened.
	m.dirs["."] = root0
	return m
}

// Ignored reports whether git ignores the file or folder at rel, a
// workspace-relative slash path, and the workspace does not include it
// back: it, or a folder it is in, matches an ignore pattern.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	if m == nil {
		return false
	}
	return !m.included(rel, isDir) && m.GitIgnored(rel, isDir)
}

// GitIgnored reports whether git itself ignores rel, whatever the
// workspace includes back.
func (m *Matcher) GitIgnored(rel string, isDir bool) bool {
	if m == nil {
		return false
	}
	rel = path.Clean(rel)
	if rel == "." || rel == "" || fsguard.Climbs(rel) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if isDir {
		return m.dir(rel).ignored
	}
	parent := m.dir(path.Dir(rel))
	return parent.ignored || m.match(m.patterns(path.Dir(rel), parent), rel, false)
}

// dir returns what is known of the folder at rel, reading the .gitignore
// files on the way the first time. m.mu is held.
func (m *Matcher) dir(rel string) *dir {
	if d, ok := m.dirs[rel]; ok {
		return d
	}
	parent := m.dir(path.Dir(rel))
	d := &dir{parent: parent}
	d.ignored = parent.ignored || m.match(m.patterns(path.Dir(rel), parent), rel, true)
	m.dirs[rel] = d
	return d
}

// patterns returns the patterns that apply in the folder rel, d, reading
// its .gitignore the first time. m.mu is held.
func (m *Matcher) patterns(rel string, d *dir) []pattern {
	if d.loaded {
		return d.patterns
	}
	d.loaded = true
	d.patterns = m.patterns(path.Dir(rel), d.parent)
	// Git reads no .gitignore inside an ignored folder; a folder included
	// back is read as if git did not ignore it.
	if d.ignored && !m.leadsToInclude(rel) {
		return d.patterns
	}
	abs := filepath.Join(m.root, filepath.FromSlash(rel))
	if has, known := m.lst.Has(abs, ".gitignore"); known && !has {
		return d.patterns
	}
	if own := readFile(filepath.Join(abs, ".gitignore"), m.comps(rel)); len(own) > 0 {
		d.patterns = append(append([]pattern(nil), d.patterns...), own...)
	}
	return d.patterns
}

// comps returns rel's names counted from the repository's top.
func (m *Matcher) comps(rel string) []string {
	out := make([]string, 0, len(m.base)+strings.Count(rel, "/")+1)
	out = append(out, m.base...)
	return append(out, strings.Split(rel, "/")...)
}

// included reports whether the workspace includes rel back: rel is one
// of its include paths or lies in one, matches or lies in a match of one
// of its globs, or is a folder on the way to one of them.
func (m *Matcher) included(rel string, isDir bool) bool {
	for _, in := range m.include {
		if in.glob == nil && fsguard.Within(in.path, rel) {
			return true
		}
		if in.glob != nil {
			for p := rel; p != "."; p = path.Dir(p) {
				if in.glob.Match(p) {
					return true
				}
			}
		}
		if isDir && (in.path == "" || strings.HasPrefix(in.path, rel+"/") || in.glob != nil && in.path == rel) {
			return true
		}
	}
	return false
}

// leadsToInclude reports whether an include lies at or below the folder rel.
func (m *Matcher) leadsToInclude(rel string) bool {
	return m.included(rel, true)
}

// match reports whether the last pattern of ps that matches rel, a
// clean workspace-relative path, excludes it.
func (m *Matcher) match(ps []pattern, rel string, isDir bool) bool {
	depth := len(m.base) + strings.Count(rel, "/") + 1
	last := rel[strings.LastIndexByte(rel, '/')+1:]
	var comps []string // rel's names from the repository's top, when a pattern needs them
	for i := len(ps) - 1; i >= 0; i-- {
		p := &ps[i]
		if depth <= len(p.domain) {
			continue
		}
		if p.plain() {
			switch p.matchPlain(last, isDir) {
			case gi.Exclude:
				return true
			case gi.Include:
				return false
			}
			continue
		}
		if comps == nil {
			comps = m.comps(rel)
		}
		target := comps
		if p.simple {
			// Git matches a pattern without a slash against the last name;
			// go-git would match it against every name on the way.
			target = append(append(make([]string, 0, len(p.domain)+1), p.domain...), comps[len(comps)-1])
		} else if len(comps)-1 > len(p.domain) && p.p.Match(comps[:len(comps)-1], true) != gi.NoMatch {
			// go-git's anchored match also takes the folders a pattern
			// names for their contents; the folder's own answer was given
			// when the folder was asked about.
			continue
		}
		switch p.p.Match(target, isDir) {
		case gi.Exclude:
			return true
		case gi.Include:
			return false
		}
	}
	return false
}

// readFile parses the ignore file at name, whose folder is domain (names
// from the repository's top); a missing or unreadable file has no
// patterns.
func readFile(name string, domain []string) []pattern {
	if name == "" {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []pattern
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	read := 0
	for sc.Scan() {
		read += len(sc.Bytes()) + 1
		if read > maxIgnoreFile {
			break
		}
		if p, ok := parseLine(sc.Text(), domain); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// parseLine parses one line of an ignore file.
func parseLine(line string, domain []string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	if strings.HasPrefix(line, "#") {
		return pattern{}, false
	}
	line = trimTrailingSpace(line)
	if line == "" {
		return pattern{}, false
	}
	neg := strings.HasPrefix(line, "!")
	body := strings.TrimPrefix(line, "!")
	if body == "" || body == "/" {
		return pattern{}, false
	}
	dirOnly := strings.HasSuffix(body, "/") && !strings.HasSuffix(body, "\\/")
	core := strings.TrimSuffix(body, "/")
	if dirOnly && core == "" {
		return pattern{}, false
	}
	simple := !strings.Contains(core, "/")
	p := pattern{domain: append([]string(nil), domain...), simple: simple, dirOnly: dirOnly, negated: neg}
	if simple {
		// Without wildcards or escapes, a name matches only itself, and
		// "*" with such an end every name that ends so.
		switch rest, star := strings.CutPrefix(core, "*"); {
		case !strings.ContainsAny(core, `*?[\`):
			p.name = core
		case star && rest != "" && !strings.ContainsAny(rest, `*?[\`):
			p.suffix = rest
		}
	}
	core = gitGlob(core)
	if dirOnly {
		core += "/"
	}
	if neg {
		core = "!" + core
	}
	p.p = gi.ParsePattern(core, domain)
	return p, true
}

// trimTrailingSpace removes the spaces at the end of a line that a
// backslash does not escape.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// gitGlob rewrites a pattern (without its "!" and trailing "/") so that
// go-git reads it as git does: "[!...]" is a negated class, "**" that is
// not a whole name is "*", and a trailing "/**" matches everything inside
// the folder but not the folder itself.
func gitGlob(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if s != "**" && strings.Contains(s, "**") {
			for strings.Contains(s, "**") {
				s = strings.ReplaceAll(s, "**", "*")
			}
		}
		segs[i] = strings.ReplaceAll(s, "[!", "[^")
	}
	if n := len(segs); n > 1 && segs[n-1] == "**" {
		segs = append(segs, "*")
	}
	return strings.Join(segs, "/")
}

// findRepository returns the top of the git repository holding dir and
// its git folder, or "" when dir is in none.
func findRepository(dir string) (top, gitDir string) {
	for d := dir; ; {
		g := filepath.Join(d, ".git")
		if fi, err := os.Stat(g); err == nil {
			if fi.IsDir() {
				return d, g
			}
			// A worktree or submodule: .git names the git folder.
			if data, err := os.ReadFile(g); err == nil {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
					to := strings.TrimSpace(rest)
					if !filepath.IsAbs(to) {
						to = filepath.Join(d, to)
					}
					return d, to
				}
			}
			return d, ""
		}
		up := filepath.Dir(d)
		if up == d {
			return "", ""
		}
		d = up
	}
}

// commonDir returns the folder a worktree's git folder shares with the
// main one, where info/exclude lives.
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	to := strings.TrimSpace(string(data))
	if !filepath.IsAbs(to) {
		to = filepath.Join(gitDir, to)
	}
	return to
}

// excludesFile returns the global excludes file: core.excludesFile of the
// repository's or the user's git configuration, else
// $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore).
func excludesFile(gitDir string) string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	// Later files win, as git reads them: the user's, then the repository's.
	var files []string
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if gitDir != "" {
		files = append(files, filepath.Join(commonDir(gitDir), "config"))
	}
	value := ""
	for _, f := range files {
		if v := coreExcludesFile(f); v != "" {
			value = v
		}
	}
	switch {
	case value == "" && xdg != "":
		return filepath.Join(xdg, "git", "ignore")
	case value == "":
		return ""
	case strings.HasPrefix(value, "~/") && home != "":
		return filepath.Join(home, value[2:])
	}
	return value
}

// coreExcludesFile returns core.excludesFile of the git configuration
// file name, or "".
func coreExcludesFile(name string) string {
	data, err := os.ReadFile(name)
	if err != nil || len(data) > maxIgnoreFile {
		return ""
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return ""
	}
	return cfg.Section("core").Options.Get("excludesfile")
}
