package agentfiles

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/gitignore"
)

// maxPartialEntries bounds the entries a partial set lists for its files:
// a skill folder holding a generated tree is listed in part.
const maxPartialEntries = 20_000

// errPartialFull ends the listing of a partial set at maxPartialEntries.
var errPartialFull = errors.New("partial listing full")

// LoadFor reads the agent files at the absolute paths given, listing only
// their folders: a skill's whole folder, the folder of any other file.
// It answers what those files name in a fraction of the time Load takes
// on a large workspace: what the listing does not hold is looked for on
// disk, and the checks that need every file of the workspace (globs that
// match nothing, skills and styles no file defines) say nothing. A path
// that is no agent file, or lies outside root, is left out.
func LoadFor(ctx context.Context, root string, cfg *config.Config, paths []string) (*Set, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("agent files of %s: %w", root, err)
	}
	s := &Set{Root: abs, cfg: cfg, root: fsguard.NewRoot(abs), dirs: map[string]bool{".": true}, byPath: map[string]*File{}, partial: true,
		git: gitignore.New(abs, cfg.Include)}
	ignore := newIgnore(cfg.Ignore)
	listed := map[string]bool{}
	var rels []string
	for _, p := range paths {
		rel, ok := fsguard.Rel(abs, filepath.Clean(p))
		if !ok || rel == "." {
			continue
		}
		rels = append(rels, rel)
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			s.dirs[d] = true
		}
	}
	entries := 0
	for _, rel := range rels {
		dir := path.Dir(rel)
		deep := path.Base(rel) == "SKILL.md"
		if listed[dir] {
			continue
		}
		listed[dir] = true
		top := filepath.Join(abs, filepath.FromSlash(dir))
		err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err != nil {
				return nil // unreadable: looked for on disk
			}
			if entries >= maxPartialEntries {
				return errPartialFull
			}
			r, _ := fsguard.Rel(abs, p)
			if d.IsDir() {
				if p == top {
					return nil
				}
				if config.IgnoredDir(d.Name()) || ignore.match(r) {
					return filepath.SkipDir
				}
				s.dirs[r] = true
				entries++
				if !deep {
					return filepath.SkipDir
				}
				return nil
			}
			if !ignore.match(r) {
				s.all = append(s.all, r)
				entries++
			}
			return nil
		})
		if err != nil && !errors.Is(err, errPartialFull) {
			return nil, fmt.Errorf("agent files of %s: %w", root, err)
		}
	}
	slices.Sort(s.all)
	s.all = slices.Compact(s.all)
	s.readCandidates(ctx, abs, rels)
	return s, nil
}

// Partial reports whether the set lists only the folders of some files
// (see LoadFor).
func (s *Set) Partial() bool { return s.partial }
