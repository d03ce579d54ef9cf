package agentfiles

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/gitignore"
	"github.com/ctxls/ctxls/providers/internal/glob"
	"github.com/ctxls/ctxls/providers/listing"
	"github.com/ctxls/ctxls/providers/tokens"
)

// File is one agent file of a workspace.
type File struct {
	// Path is the absolute path.
	Path string
	// Rel is the path relative to the workspace root, with forward slashes.
	Rel string
	// Kind is what the file is.
	Kind Kind
	// Meta holds the frontmatter fields listings need.
	Meta Meta
	// Text is the content (without a byte order mark); nil when Skipped.
	Text []byte
	// Lines indexes Text.
	Lines *document.Lines
	// Doc is the parsed markdown, or nil for JSON files.
	Doc *document.Doc
	// Skipped says why the file was not read (too large, binary), or "".
	Skipped string

	quoted  [][2]int // the values Doc reads quoted; see lenient
	lax     *laxYAML // the frontmatter only Claude Code's loader reads; see lenient
	via     []string // the paths of the file through followed links; see joinLinks
	aliasOf *File    // the file this one is, reached through a followed link
	// quotedErr is the YAML error of a skill's, command's or subagent's
	// frontmatter that stays once its values are quoted as Claude Code's
	// loader quotes them; see lenient.
	quotedErr *document.YAMLError
}

// SkillName is the name a skill is invoked and listed by: the name its
// frontmatter gives, else its folder's.
func (f *File) SkillName() string {
	return cmp.Or(strings.TrimSpace(f.Meta.Name), path.Base(path.Dir(f.Rel)))
}

// Set is the agent files of a workspace, read once, with what their checks
// need to know about the rest of the workspace.
type Set struct {
	// Root is the absolute workspace root.
	Root string
	// Files are the agent files, sorted by Rel.
	Files []*File
	// IgnoredFiles and IgnoredDirs count the files and folders the walk
	// skipped because git ignores them; nothing in such a folder is read.
	IgnoredFiles, IgnoredDirs int

	cfg    *config.Config
	root   *fsguard.Root // the check every file read passes
	all    []string      // every file of the workspace, relative, slash-separated, sorted
	dirs   map[string]bool
	byPath map[string]*File
	pruned []string // the folders skipped because git ignores them
	git    *gitignore.Matcher

	skillsOnce sync.Once
	skills     map[string]bool // names and folders of skills, for subagents

	commandSkillsOnce sync.Once
	commandSkills     map[string]*File // see projectSkill

	counterOnce sync.Once
	ctr         tokens.Counter // see counter

	globOnce sync.Once
	globHits map[globKey]bool // see matchesAny

	compiledMu sync.Mutex
	compiled   map[globKey]compiledGlob // see compile

	codex       codexConfig // the project's .codex/config.toml
	geminiNames []string    // Gemini CLI's context file names
	// geminiProblem says why .gemini/settings.json gave no names, or "".
	geminiProblem string
	// instructionDirs are the folders chat.instructionsFilesLocations of
	// .vscode/settings.json adds for Copilot instructions, relative.
	instructionDirs []string

	// parsed, when not nil, keeps the parses of the files read, for the
	// next reading and for the editor's texts (see WithTexts).
	parsed *Parsed

	// partial says that the walk listed only the folders of some files
	// (see LoadFor): what it did not list is looked for on disk, and a
	// check that needs the whole workspace says nothing.
	partial bool
}

// Guard returns the check every file of the workspace passes before it is
// read: the files of the set, and those that agent files name.
func (s *Set) Guard() *fsguard.Root {
	if s.root == nil {
		return fsguard.NewRoot(s.Root)
	}
	return s.root
}

// maxWorkspaceFiles bounds the file list globs are matched against.
const maxWorkspaceFiles = 500_000

// Load finds and reads every agent file under root. cfg may be nil for the
// defaults. A file that cannot be read is kept with Skipped set; only a
// root that cannot be walked is an error.
func Load(ctx context.Context, root string, cfg *config.Config) (*Set, error) {
	return LoadListed(ctx, root, cfg, nil)
}

// LoadListed is Load with the workspace's folders read through lst (see
// package listing), for a process that walks the tree more than once.
func LoadListed(ctx context.Context, root string, cfg *config.Config, lst *listing.Listings) (*Set, error) {
	return load(ctx, root, cfg, lst, nil)
}

// load is LoadListed with the files parsed through parsed, when it is not
// nil.
func load(ctx context.Context, root string, cfg *config.Config, lst *listing.Listings, parsed *Parsed) (*Set, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("agent files of %s: %w", root, err)
	}
	s := &Set{Root: abs, cfg: cfg, root: fsguard.NewRoot(abs), dirs: map[string]bool{".": true}, byPath: map[string]*File{}, parsed: parsed}
	if lst != nil {
		// The listings serve one command, and so does the set: its reads
		// of the files the walk listed need not look at their folders.
		s.root = s.root.Listed(lst)
	}
	ignore := newIgnore(cfg.Ignore)
	git := gitignore.NewListed(abs, cfg.Include, lst)
	s.git = git
	var candidates []string
	links := map[string]string{} // a followed link's path → the path it leads to, both relative
	// visit records one entry of the walk at rel; a folder it returns
	// false for is skipped.
	visit := func(rel string, name string, dir bool) bool {
		if dir {
			if rel != "." && (config.IgnoredDir(name) || ignore.match(rel)) {
				return false
			}
			// The agents load their folders whether or not git tracks
			// them (many keep .claude out of the repository).
			if rel != "." && !AgentDir(name) && git.Ignored(rel, true) {
				s.IgnoredDirs++
				s.pruned = append(s.pruned, rel)
				return false
			}
			s.dirs[rel] = true
			return true
		}
		if ignore.match(rel) {
			return true
		}
		if len(s.all) < maxWorkspaceFiles {
			if len(s.all) == cap(s.all) {
				// Double the room: append grows a long slice by a
				// quarter, copying the paths of a large tree many times
				// over on the way.
				s.all = slices.Grow(s.all, max(len(s.all), 1024))
			}
			s.all = append(s.all, rel)
		}
		if !maybeAgentFile(name) {
			return true
		}
		// An agent file git ignores (CLAUDE.local.md,
		// .claude/settings.local.json) is loaded all the same; any other
		// is not read.
		if git.Ignored(rel, false) && Classify(rel, func(string) bool { return false }) == KindUnknown {
			s.IgnoredFiles++
			return true
		}
		candidates = append(candidates, rel)
		return true
	}
	err = lst.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			if p == abs {
				return err
			}
			return nil // an unreadable folder is skipped, as the agents do
		}
		rel, _ := fsguard.Rel(abs, p)
		if d.Type()&fs.ModeSymlink != 0 && skillLinkPlace(rel) {
			if to, ok := s.followSkillLink(ctx, p, rel, visit); ok {
				links[rel] = to
				return nil
			}
		}
		if !visit(rel, d.Name(), d.IsDir()) {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("agent files of %s: %w", root, err)
	}
	slices.Sort(s.all)
	s.readCandidates(ctx, abs, candidates)
	s.joinLinks(links)
	return s, nil
}

// classify is Classify with what the set knows of the project: its
// plugin folders, the fallback names of its Codex configuration, the
// context file names of Gemini CLI's and the instructions folders of VS
// Code's.
func (s *Set) classify(rel string) Kind {
	k := Classify(rel, func(dir string) bool { return s.hasDir(path.Join(dir, ".claude-plugin")) })
	if k == KindUnknown && (slices.Contains(s.codex.Fallbacks, path.Base(rel)) || slices.Contains(s.geminiNames, path.Base(rel))) {
		return KindAgentsMd
	}
	if k == KindUnknown && s.copilotPluginAgent(rel) {
		return KindCopilotAgent
	}
	if k == KindUnknown && s.inInstructionsDir(rel) {
		return KindCopilotInstructions
	}
	return k
}

// copilotPluginAgent reports whether rel is a custom agent of a Copilot
// CLI plugin: agents/NAME.agent.md in a folder whose plugin.json (at its
// root, or under .github/plugin) makes it a plugin.
func (s *Set) copilotPluginAgent(rel string) bool {
	dir := path.Dir(rel)
	if !strings.HasSuffix(rel, ".agent.md") || path.Base(dir) != "agents" {
		return false
	}
	root := path.Dir(dir)
	return s.exists(path.Join(root, "plugin.json")) || s.exists(path.Join(root, ".github/plugin/plugin.json"))
}

// skillLinkPlace reports whether a symbolic link at rel is one the agents
// follow to find skills: a skills folder of an agent's folder
// (.claude/skills itself), or a skill's folder in it.
func skillLinkPlace(rel string) bool {
	segs := strings.Split(rel, "/")
	n := len(segs)
	for _, dir := range []string{".claude", ".agents", ".github", ".codex", ".cursor"} {
		if n >= 2 && segs[n-2] == dir && segs[n-1] == "skills" {
			return true
		}
		if n >= 3 && segs[n-3] == dir && segs[n-2] == "skills" {
			return true
		}
	}
	return false
}

// followSkillLink walks the folder the link at p (rel in the workspace)
// leads to, as if it lay at rel, when the workspace's root check lets it
// (it leads to a folder inside the workspace) and the folder does not
// hold the link, which would loop. Links inside it are not followed. It
// returns the workspace path the link leads to.
func (s *Set) followSkillLink(ctx context.Context, p, rel string, visit func(rel, name string, dir bool) bool) (string, bool) {
	fi, err := s.root.Stat(p)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	target, to, err := s.root.Target(p)
	if err != nil {
		return "", false
	}
	if under(rel, to) {
		return "", false // the folder holds the link: following it loops
	}
	err = filepath.WalkDir(target, func(q string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil || d.Type()&fs.ModeSymlink != 0 && d.IsDir() {
			return nil
		}
		sub, _ := fsguard.Rel(target, q)
		at := path.Join(rel, sub)
		if !visit(at, d.Name(), d.IsDir()) {
			return filepath.SkipDir
		}
		return nil
	})
	return to, err == nil
}

// joinLinks ties each agent file found through a followed link to the
// file it is when the walk found that one too: the linked copy is kept,
// so that listings and session costs see the skill where the agent finds
// it, but its diagnostics are the original's, which knows every place it
// is loaded from.
func (s *Set) joinLinks(links map[string]string) {
	for _, f := range s.Files {
		for from, to := range links {
			rest, ok := strings.CutPrefix(f.Rel, from+"/")
			if !ok {
				continue
			}
			if orig, ok := s.byPath[filepath.Join(s.Root, filepath.FromSlash(path.Join(to, rest)))]; ok && orig != f {
				f.aliasOf = orig
				orig.via = append(orig.via, f.Rel)
			}
		}
	}
}

// read fills f's text, document and metadata from content, or from disk
// when content is nil.
// readCandidates loads the agents' own settings, which decide how some
// files are classified, then reads every candidate of a known kind once, in
// path order.
func (s *Set) readCandidates(ctx context.Context, abs string, rels []string) {
	s.loadCodexConfig(ctx)
	s.loadGeminiSettings(ctx)
	s.loadVSCodeSettings(ctx)
	for _, rel := range rels {
		k := s.classify(rel)
		if k == KindUnknown {
			continue
		}
		f := &File{Path: filepath.Join(abs, filepath.FromSlash(rel)), Rel: rel, Kind: k}
		if _, dup := s.byPath[f.Path]; dup {
			continue
		}
		s.read(ctx, f, nil)
		s.Files = append(s.Files, f)
		s.byPath[f.Path] = f
	}
	slices.SortFunc(s.Files, func(a, b *File) int { return strings.Compare(a.Rel, b.Rel) })
}

func (s *Set) read(ctx context.Context, f *File, content []byte) {
	if content == nil {
		// The workspace's root check, as for the library: a link out of the
		// workspace is not followed, and a named pipe is not opened for
		// reading, which would block.
		var err error
		content, err = s.Guard().ReadFile(ctx, f.Path, s.cfg.MaxFileSize)
		var big *fsguard.TooLargeError
		switch {
		case errors.As(err, &big):
			f.Skipped = fmt.Sprintf("is %d bytes, over maxFileSize (%d); not checked", big.Size, s.cfg.MaxFileSize)
		case err != nil:
			// The diagnostic is on the file: its path would only repeat it.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			f.Skipped = fmt.Sprintf("cannot be read: %v", err)
		}
		if f.Skipped != "" {
			f.Lines = document.NewLines(nil)
			return
		}
	}
	s.parsed.parse(f, content)
}

// parseInto fills f's text, document and metadata from content.
func parseInto(f *File, content []byte) {
	if document.IsBinary(content) {
		f.Skipped = "is binary; not checked"
		f.Lines = document.NewLines(nil)
		return
	}
	if f.Kind.isJSON() {
		f.Text = content
		f.Lines = document.NewLines(content)
		return
	}
	f.Doc = document.Parse(f.Path, content)
	f.Text, f.Lines = f.Doc.Text, f.Doc.Lines
	f.lenient()
	f.Meta = metaOf(f.Doc)
}

// lenient reads values the agents accept although they are not valid
// YAML. When the frontmatter does not parse and quoting such values makes
// it parse, Doc is the parse of the quoted text, and fileOffset maps its
// offsets back to the file's.
//
//   - Cursor and Copilot read a glob written without quotes ("globs: *.ts",
//     "applyTo: **/*.py": a leading * is an alias in YAML).
//   - Claude Code's loader, when the YAML does not parse, quotes the value
//     of every top-level "key: value" line that holds ": " or one of
//     {}[]*&#!|>%@` and tries again (claudeQuoted), for skills, commands
//     and subagents. The lines it quotes are kept in lax, so that the file
//     is reported as not portable rather than as ignored; Claude Code's own
//     documented argument-hint: [file] [mode] is not.
func (f *File) lenient() {
	fm := f.Doc.Frontmatter
	if fm == nil || fm.Err == nil {
		return
	}
	claude := false
	switch f.Kind {
	case KindCursorRule, KindCopilotInstructions, KindWindsurfRule:
	case KindCommand, KindSkill, KindSubagent:
		claude = true
	default:
		return
	}
	lines := f.Doc.Lines
	var quoted [][2]int
	var lax []int
	for n := lines.LineOf(fm.Content.Start); n < lines.Count() && lines.Start(n) < fm.Content.End; n++ {
		line := lines.Line(n)
		if !claude {
			if m := globLine.FindSubmatchIndex(line); m != nil {
				quoted = append(quoted, [2]int{lines.Start(n) + m[2], lines.Start(n) + m[3]})
			}
			continue
		}
		if m := claudeQuoted(line); m != nil {
			quoted = append(quoted, [2]int{lines.Start(n) + m[0], lines.Start(n) + m[1]})
			key := string(line[:bytes.IndexByte(line, ':')])
			if !hintLine.Match(line) && !document.FieldParses(key, string(line[m[0]:m[1]])) {
				lax = append(lax, n) // a value strict YAML rejects
			}
		}
	}
	if len(quoted) == 0 {
		return
	}
	text := make([]byte, 0, len(f.Text)+2*len(quoted))
	at := 0
	for _, q := range quoted {
		value := f.Text[q[0]:q[1]]
		text = append(text, f.Text[at:q[0]]...)
		text = append(text, yamlQuote(string(value))...)
		at = q[1]
	}
	text = append(text, f.Text[at:]...)
	doc := document.Parse(f.Path, text)
	if doc.Frontmatter == nil || doc.Frontmatter.Err != nil {
		if claude && doc.Frontmatter != nil {
			// What Claude Code's loader fails on once it has quoted: quoting
			// keeps every line where it was.
			f.quotedErr = doc.Frontmatter.Err
		}
		return
	}
	doc.HasBOM = f.Doc.HasBOM // the quoted text is parsed without it
	f.Doc, f.quoted = doc, quoted
	if len(lax) > 0 {
		f.lax = &laxYAML{err: fm.Err, lines: lax}
	}
}

// laxYAML records a frontmatter that is not valid YAML but that Claude
// Code reads once it has quoted some values.
type laxYAML struct {
	err   *document.YAMLError // what strict YAML says
	lines []int               // the zero-based lines whose value it quotes
}

var (
	// globLine matches a glob field whose plain value starts with "*".
	globLine = regexp.MustCompile(`^(?:globs|applyTo):[ \t]+(\*[^'"\n]*?)[ \t]*$`)
	// hintLine matches an argument hint written as bracketed words.
	hintLine = regexp.MustCompile(`^argument-hint:[ \t]+(\[[^\n]*?)[ \t]*$`)
	// claudeLine is the "key: value" line Claude Code's loader may quote.
	claudeLine = regexp.MustCompile(`^[a-zA-Z_-]+:\s+(.+)$`)
	// claudeSpecial is what makes Claude Code's loader quote a value.
	claudeSpecial = regexp.MustCompile("[{}\\[\\]*&#!|>%@`]|: ")
)

// claudeQuoted returns the start and end of the value Claude Code's
// frontmatter loader quotes on this line when the YAML does not parse, or
// nil: the value of a top-level "key: value" line, not already between
// quotes, that holds ": " or a character YAML reserves.
func claudeQuoted(line []byte) []int {
	m := claudeLine.FindSubmatchIndex(line)
	if m == nil {
		return nil
	}
	v := line[m[2]:m[3]]
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return nil
	}
	if !claudeSpecial.Match(v) {
		return nil
	}
	return []int{m[2], m[3]}
}

// fileSpan maps a span of f.Doc's text to the file's text.
func (f *File) fileSpan(s document.Span) document.Span {
	return document.Span{Start: f.fileOffset(s.Start), End: f.fileOffset(s.End)}
}

// fileOffset maps an offset of f.Doc's text to the file's text. Quoting
// a value may escape characters in it; an offset inside a quoted value
// maps to the value's start.
func (f *File) fileOffset(off int) int {
	shift := 0
	for _, q := range f.quoted {
		grown := len(yamlQuote(string(f.Text[q[0]:q[1]]))) - (q[1] - q[0])
		start := q[0] + shift
		switch {
		case off <= start:
			return off - shift
		case off < start+(q[1]-q[0])+grown:
			if off == start+(q[1]-q[0])+grown-1 {
				return q[1]
			}
			return min(max(off-shift-1, q[0]), q[1])
		}
		shift += grown
	}
	return off - shift
}

// File returns the agent file at the absolute path p.
func (s *Set) File(p string) (*File, bool) {
	f, ok := s.byPath[filepath.Clean(p)]
	return f, ok
}

// WorkspaceFiles returns every file of the workspace, relative to the root
// with forward slashes, sorted. Globs are matched against it.
func (s *Set) WorkspaceFiles() []string { return s.all }

// GitIgnored reports whether git ignores the file or folder at rel, a
// workspace-relative slash path, whatever the workspace includes back:
// the walk's own answer, from the same ignore files.
func (s *Set) GitIgnored(rel string, isDir bool) bool { return s.git.GitIgnored(rel, isDir) }

// exists reports whether the relative slash path names a file or folder.
func (s *Set) exists(rel string) bool {
	rel = path.Clean(rel)
	if s.dirs[rel] {
		return true
	}
	if _, found := slices.BinarySearch(s.all, rel); found {
		return true
	}
	if s.partial {
		_, err := s.Guard().Lstat(filepath.Join(s.Root, filepath.FromSlash(rel)))
		return err == nil
	}
	return false
}

// hasDir reports whether the relative slash path names a folder.
func (s *Set) hasDir(rel string) bool {
	rel = path.Clean(rel)
	if s.dirs[rel] {
		return true
	}
	if s.partial {
		fi, err := s.Guard().Lstat(filepath.Join(s.Root, filepath.FromSlash(rel)))
		return err == nil && fi.IsDir()
	}
	return false
}

// caseTwin returns the name of a file in folder dir that equals name but
// for case, or "".
func (s *Set) caseTwin(dir, name string) string {
	prefix := dir + "/"
	i, _ := slices.BinarySearch(s.all, prefix)
	for ; i < len(s.all) && strings.HasPrefix(s.all[i], prefix); i++ {
		base := s.all[i][len(prefix):]
		if !strings.Contains(base, "/") && strings.EqualFold(base, name) {
			return base
		}
	}
	return ""
}

// maybeAgentFile filters file names before classifying their paths.
func maybeAgentFile(name string) bool {
	switch name {
	case ".cursorrules", ".windsurfrules", ".clinerules", "config.toml":
		return true
	}
	return strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".mdc") || strings.HasSuffix(name, ".json")
}

// MaybeFile reports whether a file of that name or path can be an agent
// file: a filter for file watchers, cheaper than [Classify].
func MaybeFile(name string) bool {
	if !maybeAgentFile(filepath.Base(name)) {
		return false
	}
	// In the folders of other tools' settings, only their MCP
	// configurations are agent files.
	p := filepath.ToSlash(name)
	switch path.Base(path.Dir(p)) {
	case ".vscode", ".gemini", ".codex":
		return mcpConfigOf(p) != nil
	}
	return true
}

// HiddenDirs returns the hidden folders at a project's root where agents
// keep skills, rules, commands and instructions. A watcher that skips
// hidden folders, as the library's does, watches these besides.
func HiddenDirs() []string {
	return []string{".claude", ".cursor", ".github", ".agents", ".claude-plugin", ".vscode", ".gemini", ".codex", ".windsurf", ".clinerules", ".kiro"}
}

// AgentDir reports whether a folder of this name holds an agent's files
// (see HiddenDirs): the walk enters it even when git ignores it.
func AgentDir(name string) bool {
	return slices.Contains(HiddenDirs(), name)
}

// UnderIgnored reports whether the relative slash path lies in a folder
// the walk skipped because git ignores it: whether it exists is not known
// from the listing.
func (s *Set) UnderIgnored(rel string) bool {
	for _, d := range s.pruned {
		if fsguard.Within(d, rel) {
			return true
		}
	}
	return false
}

// ignoreSet holds the configured ignore entries: folder names, or globs
// of relative paths.
type ignoreSet struct {
	names map[string]bool
	globs []*glob.Glob
}

func newIgnore(entries []string) ignoreSet {
	is := ignoreSet{names: map[string]bool{}}
	for _, e := range entries {
		if !strings.ContainsAny(e, "/*?[{") {
			is.names[e] = true
			continue
		}
		if g, err := glob.Compile(strings.TrimSuffix(e, "/")); err == nil {
			is.globs = append(is.globs, g)
		}
	}
	return is
}

func (is ignoreSet) match(rel string) bool {
	if is.names[path.Base(rel)] {
		return true
	}
	for _, g := range is.globs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}
