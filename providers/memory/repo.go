package memory

import (
	"encoding/json"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
)

// repo answers what memory files promise about the repository: which
// scripts, make targets and just recipes exist, and which paths. It reads
// each file once per check, on first need.
type repo struct {
	root  string
	guard *fsguard.Root
	files []string // the workspace's files, relative, sorted
	// pkgs maps a folder holding a package.json to its scripts, nil when
	// it does not parse.
	pkgs map[string]map[string]bool
	// anyScript holds the scripts of every package.json of the workspace.
	anyScript map[string]bool
	makes     map[string]*recipes
	justs     map[string]*recipes
	// ignored reports whether git ignores a path: the workspace walk's
	// matcher.
	ignored   func(rel string, isDir bool) bool
	baseNames map[string][]string // a file's name → where files of that name are
}

// recipes are the targets of a Makefile or the recipes of a justfile.
// open says that others may exist that a simple reading cannot see
// (includes, pattern rules, imported modules), so a missing one is not
// reported.
type recipes struct {
	names map[string]bool
	open  bool
}

func newRepo(root string, guard *fsguard.Root, files []string, ignored func(rel string, isDir bool) bool) *repo {
	return &repo{root: root, guard: guard, files: files, ignored: ignored, pkgs: map[string]map[string]bool{}, makes: map[string]*recipes{}, justs: map[string]*recipes{}}
}

// listed reports whether rel is a file of the workspace's list or a
// folder holding one, and whether the list can tell: it leaves out the
// folders every walk skips (node_modules, …), and stops at a bound.
func (r *repo) listed(rel string) (found, sure bool) {
	// The list is sorted, so a file is found by its path and a folder by
	// the first path that starts with it and a slash; no index of every
	// folder of a large tree is built for the few paths a check asks about.
	if _, ok := slices.BinarySearch(r.files, rel); ok {
		return true, true
	}
	prefix := rel + "/"
	if i, _ := slices.BinarySearch(r.files, prefix); i < len(r.files) && strings.HasPrefix(r.files[i], prefix) {
		return true, true
	}
	if len(r.files) >= maxListed {
		return false, false
	}
	for _, seg := range strings.Split(rel, "/") {
		if config.IgnoredDir(seg) {
			return false, false
		}
	}
	return false, true
}

// maxListed is where the workspace's file list may have stopped.
const maxListed = 400_000

// read returns the content of the file at rel, when there is one: the
// list answers for the files it holds, the disk for the others.
func (r *repo) read(rel string) ([]byte, bool) {
	if found, sure := r.listed(rel); sure && !found {
		return nil, false
	}
	b, err := imports.ReadFile(r.guard, filepath.Join(r.root, filepath.FromSlash(rel)))
	return b, err == nil
}

// exists reports whether rel, slash-separated and relative, names a file
// or folder.
func (r *repo) exists(rel string) bool {
	if rel == "." || rel == "" {
		return true
	}
	if found, _ := r.listed(rel); found {
		return true
	}
	// Not listed: an empty folder, or a file the configuration ignores.
	_, err := r.guard.Stat(filepath.Join(r.root, filepath.FromSlash(rel)))
	return err == nil
}

// scripts returns the scripts of the package.json in dir, and whether
// one is there and parses.
func (r *repo) scripts(dir string) (map[string]bool, bool) {
	if s, ok := r.pkgs[dir]; ok {
		return s, s != nil
	}
	var s map[string]bool
	if b, ok := r.read(path.Join(dir, "package.json")); ok {
		var pkg struct {
			Scripts map[string]any `json:"scripts"`
		}
		if json.Unmarshal(b, &pkg) == nil {
			s = map[string]bool{}
			for k := range pkg.Scripts {
				s[k] = true
			}
		}
	}
	r.pkgs[dir] = s
	return s, s != nil
}

// nearestScripts returns the scripts of the package.json nearest to dir,
// walking up to the root, and whether there is one.
func (r *repo) nearestScripts(dir string) (map[string]bool, bool) {
	for d := dir; ; d = path.Dir(d) {
		if s, ok := r.scripts(d); ok {
			return s, true
		}
		if d == "." || d == "/" {
			return nil, false
		}
	}
}

// someScript reports whether any package.json of the workspace has a
// script of that name: a command written for one package of a monorepo.
func (r *repo) someScript(name string) bool {
	if r.anyScript == nil {
		r.anyScript = map[string]bool{}
		for _, f := range r.files {
			if path.Base(f) != "package.json" {
				continue
			}
			if s, ok := r.scripts(path.Dir(f)); ok {
				for k := range s {
					r.anyScript[k] = true
				}
			}
		}
	}
	return r.anyScript[name]
}

var (
	// makeRuleRE matches a rule line of a Makefile: targets, a colon, and
	// no = right after it (which would make an assignment).
	makeRuleRE = regexp.MustCompile(`^([^\s:#=][^:#=]*?)\s*(?:::?|&:)(?:[^=:]|$)`)
	makeOpenRE = regexp.MustCompile(`^\s*(?:-?include|sinclude)\s`)
	justRuleRE = regexp.MustCompile(`^@?([A-Za-z_][A-Za-z0-9_-]*)\b[^:]*:(?:[^=]|$)`)
	justAlias  = regexp.MustCompile(`^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=`)
	justOpenRE = regexp.MustCompile(`^(?:import|mod)\s|^set\s+fallback`)
)

// makeTargets returns the targets of the Makefile make reads in dir, or
// nil when there is none.
func (r *repo) makeTargets(dir string) *recipes {
	if m, ok := r.makes[dir]; ok {
		return m
	}
	var m *recipes
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		b, ok := r.read(path.Join(dir, name))
		if !ok {
			continue
		}
		m = &recipes{names: map[string]bool{}}
		inDefine := false
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(strings.TrimSpace(line), "define "):
				inDefine = true
			case strings.TrimSpace(line) == "endef":
				inDefine = false
			case inDefine || strings.HasPrefix(line, "\t"):
			case makeOpenRE.MatchString(line):
				m.open = true
			default:
				sm := makeRuleRE.FindStringSubmatch(line)
				if sm == nil {
					continue
				}
				for _, t := range strings.Fields(sm[1]) {
					if strings.ContainsAny(t, "%$(") {
						m.open = true
					}
					m.names[t] = true
				}
			}
		}
		break
	}
	r.makes[dir] = m
	return m
}

// justRecipes returns the recipes of the justfile just finds from dir,
// searching up to the root as just does, or nil when there is none.
func (r *repo) justRecipes(dir string) *recipes {
	if j, ok := r.justs[dir]; ok {
		return j
	}
	var j *recipes
	for _, name := range []string{"justfile", "Justfile", ".justfile", "JUSTFILE"} {
		b, ok := r.read(path.Join(dir, name))
		if !ok {
			continue
		}
		j = &recipes{names: map[string]bool{}}
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case justOpenRE.MatchString(line):
				j.open = true
			case justAlias.MatchString(line):
				j.names[justAlias.FindStringSubmatch(line)[1]] = true
			case justRuleRE.MatchString(line):
				j.names[justRuleRE.FindStringSubmatch(line)[1]] = true
			}
		}
		break
	}
	if j == nil && dir != "." {
		j = r.justRecipes(path.Dir(dir))
	}
	r.justs[dir] = j
	return j
}

// generatedDirs are folders that builds and installs fill: a path in them
// may be missing from a fresh clone and still be right.
var generatedDirs = map[string]bool{
	"out": true, "_build": true, "build": true, "dist": true, "target": true, "generated": true, "gen": true,
	"lib": true, "node_modules": true, "coverage": true, ".next": true, "site": true, "public": true, "tmp": true,
	"vendor": true, ".venv": true, "venv": true, "bin": true, "obj": true, ".turbo": true, ".cache": true,
}

// mayBeGenerated reports whether rel lies where a build, an install or
// the user writes files the repository does not hold: a folder such as
// dist or node_modules, or a path git ignores (rel names nothing, so it
// is asked about as a file and as a folder).
func (r *repo) mayBeGenerated(rel string) bool {
	for _, s := range strings.Split(rel, "/") {
		if generatedDirs[s] {
			return true
		}
	}
	return r.ignored != nil && (r.ignored(rel, false) || r.ignored(rel, true))
}

// sameName returns the files of the workspace named base.
func (r *repo) sameName(base string) []string {
	if r.baseNames == nil {
		r.baseNames = map[string][]string{}
		for _, f := range r.files {
			b := path.Base(f)
			r.baseNames[b] = append(r.baseNames[b], f)
		}
	}
	return r.baseNames[base]
}
