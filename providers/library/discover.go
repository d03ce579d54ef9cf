package library

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Directory names that hold context and commands by convention.
const (
	ContextDirName = "context"
	CommandDirName = "commands"
)

// IgnoredDir reports whether a directory with this base name is never read:
// version control, dependencies, our own database folder and hidden
// directories.
func IgnoredDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "__pycache__":
		return true
	}
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// entry is a markdown file found by the walk.
type entry struct {
	path string
	rel  string
}

// scan is what a walk of the workspace found.
type scan struct {
	contextRoots []string
	commandRoots []string
	files        []entry
	warnings     []Warning
}

// walk lists the workspace's markdown files and its context and command
// roots. It never follows symbolic links to directories (they may loop or
// leave the workspace) and skips unreadable directories with a warning.
func walk(ctx context.Context, dir string, ignore []string, extraContext, extraCommands []string) (*scan, error) {
	s := &scan{}
	for _, r := range extraContext {
		if p, ok := within(dir, r); ok {
			s.contextRoots = append(s.contextRoots, p)
		} else {
			s.warnings = append(s.warnings, Warning{r, "configured context root is outside the workspace; ignored"})
		}
	}
	for _, r := range extraCommands {
		if p, ok := within(dir, r); ok {
			s.commandRoots = append(s.commandRoots, p)
		} else {
			s.warnings = append(s.warnings, Warning{r, "configured command root is outside the workspace; ignored"})
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			s.warnings = append(s.warnings, Warning{p, fmt.Sprintf("cannot read: %v; skipped", unwrapPath(err))})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel := relSlash(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			return s.symlink(dir, p, rel)
		}
		if d.IsDir() {
			if p != dir && (IgnoredDir(d.Name()) || ignoredPath(rel, ignore)) {
				return fs.SkipDir
			}
			if d.Name() == ContextDirName && p != dir && underAny(p, s.contextRoots) == "" {
				s.contextRoots = append(s.contextRoots, p)
			} else if d.Name() == CommandDirName && underAny(p, s.contextRoots) == "" && underAny(p, s.commandRoots) == "" {
				s.commandRoots = append(s.commandRoots, p)
			}
			return nil
		}
		if isMarkdown(d.Name()) && !ignoredPath(rel, ignore) {
			s.files = append(s.files, entry{p, rel})
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if dirName := filepath.Base(dir); dirName == ContextDirName && underAny(dir, s.contextRoots) == "" {
		s.contextRoots = append(s.contextRoots, dir)
	} else if len(s.contextRoots) == 0 && looksLikeContextRoot(dir) {
		s.contextRoots = append(s.contextRoots, dir)
	}
	slices.Sort(s.contextRoots)
	slices.Sort(s.commandRoots)
	return s, nil
}

// symlink decides about a symbolic link met by the walk.
func (s *scan) symlink(dir, p, rel string) error {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		s.warnings = append(s.warnings, Warning{p, fmt.Sprintf("broken or looping symbolic link (%v); skipped", unwrapPath(err))})
		return nil
	}
	info, err := os.Stat(target)
	if err != nil {
		s.warnings = append(s.warnings, Warning{p, fmt.Sprintf("cannot read link target: %v; skipped", unwrapPath(err))})
		return nil
	}
	if info.IsDir() {
		s.warnings = append(s.warnings, Warning{p, "symbolic link to a directory is not followed (it could loop or leave the workspace)"})
		return nil
	}
	if !isMarkdown(p) {
		return nil
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		realDir = dir
	}
	if _, ok := within(realDir, target); !ok {
		s.warnings = append(s.warnings, Warning{p, "symbolic link points outside the workspace; skipped"})
		return nil
	}
	s.files = append(s.files, entry{p, rel})
	return nil
}

// looksLikeContextRoot reports whether dir is itself laid out as a context
// root: it holds a loading protocol or cross-domain file, or an index.md
// beside sub-directories that hold index.md files.
func looksLikeContextRoot(dir string) bool {
	for _, name := range []string{"loading_protocol.md", "cross_domain.md"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	domains := 0
	for _, e := range ents {
		if e.IsDir() && !IgnoredDir(e.Name()) {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "index.md")); err == nil {
				domains++
			}
		}
	}
	return domains >= 2
}

func isMarkdown(name string) bool {
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
		if strings.HasPrefix(rel, pat+"/") {
			return true
		}
	}
	return false
}

// within joins p to dir when relative, cleans it, and reports whether the
// result stays inside dir.
func within(dir, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	return p, p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// underAny returns the first of roots that holds p, or "".
func underAny(p string, roots []string) string {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}

func relSlash(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if e, ok := err.(*fs.PathError); ok {
		pe = e
		return pe.Err
	}
	return err
}

// classify says what role a markdown file plays given the roots.
type class struct {
	kind    Kind
	root    string // context or command root
	domain  string // topic files
	name    string // topic name within domain, or command name
	relPath string // relative to root
}

func classify(p string, contextRoots, commandRoots []string) class {
	if r := underAny(p, contextRoots); r != "" {
		rel := relSlash(r, p)
		stem := strings.TrimSuffix(rel, path.Ext(rel))
		domain, name, found := strings.Cut(stem, "/")
		if !found {
			return class{kind: TopicFile, root: r, name: stem, relPath: rel}
		}
		return class{kind: TopicFile, root: r, domain: domain, name: name, relPath: rel}
	}
	if r := underAny(p, commandRoots); r != "" {
		rel := relSlash(r, p)
		parts := strings.Split(rel, "/")
		switch {
		case len(parts) == 1:
			stem := strings.TrimSuffix(parts[0], path.Ext(parts[0]))
			if !strings.EqualFold(stem, "index") && !strings.EqualFold(stem, "readme") && !strings.HasPrefix(stem, "_") {
				return class{kind: CommandFile, root: r, name: stem, relPath: rel}
			}
		case len(parts) == 2 && strings.EqualFold(parts[1], "COMMAND.md") && !strings.HasPrefix(parts[0], "_"):
			return class{kind: CommandFile, root: r, name: parts[0], relPath: rel}
		}
	}
	return class{kind: OtherFile}
}
