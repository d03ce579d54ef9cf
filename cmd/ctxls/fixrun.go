package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/atomicfile"
	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/ops"
)

// maxFixPasses bounds how often the fixes are applied and the workspace
// checked again: a fix can reveal the next problem (a skill's name is
// checked once its YAML parses).
const maxFixPasses = 10

// settleFixes computes what the fixes make of the workspace of lib, pass
// after pass until a pass changes nothing, and writes nothing there: the
// passes after the first run on a copy of the workspace in a temporary
// folder. The changes it returns, sorted by path, are what --fix writes
// and --fix --dry-run prints; old is each file as it was read.
func settleFixes(ctx context.Context, lib *library.Snapshot, agents *agentfiles.Set, records []ops.Diagnostic, fixes []*fileFix, unsafe bool, stderr io.Writer) ([]change, error) {
	plan, conflicts, err := planFixes(ctx, lib.Root(), records, fixes, unsafe, newReadPaths(lib, agents))
	if err != nil {
		return nil, err
	}
	// A file left as it is stays so in every pass: in the copy, links
	// between its paths may be separate files.
	left := map[string]bool{}
	for _, c := range conflicts {
		fmt.Fprintf(stderr, "ctxls: %s left as it was: %s\n", c.rel, c.why)
		left[c.rel] = true
	}
	if len(plan) == 0 {
		return nil, nil
	}
	sh, err := newShadow(ctx, lib.Root().Real(), lib.Config().MaxFileSize)
	if err != nil {
		return nil, err
	}
	defer sh.remove()
	final := map[string]*change{}
	for pass := 1; len(plan) > 0; pass++ {
		for _, c := range plan {
			if f := final[c.rel]; f != nil {
				f.new = c.new
			} else {
				c.path = filepath.Join(lib.Root().Real(), filepath.FromSlash(c.rel))
				final[c.rel] = &c
			}
			if err := sh.write(c.rel, c.new); err != nil {
				return nil, err
			}
		}
		if pass == maxFixPasses {
			rels := make([]string, len(plan))
			for i, c := range plan {
				rels[i] = c.rel
			}
			fmt.Fprintf(stderr, "ctxls: the fixes do not settle after %d passes in %s\n", pass, strings.Join(rels, ", "))
			break
		}
		if plan, err = sh.plan(ctx, unsafe); err != nil {
			return nil, err
		}
		plan = slices.DeleteFunc(plan, func(c change) bool { return left[c.rel] })
	}
	var out []change
	for _, c := range final {
		if !slices.Equal(c.old, c.new) {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b change) int { return strings.Compare(a.rel, b.rel) })
	return out, nil
}

// shadow is a copy of a workspace in a temporary folder, where the passes
// of fixes after the first are applied and checked.
type shadow struct {
	tmp  string // the temporary folder
	root string // the copy of the workspace in it, links resolved
}

// newShadow copies the workspace at real (links resolved) but the folders
// no check reads (config.IgnoredDir). Links are copied as links, those
// leading into the workspace by an absolute path made to lead into the
// copy; a file larger than maxSize, which no check reads, is copied as
// an empty file of its size.
func newShadow(ctx context.Context, real string, maxSize int64) (*shadow, error) {
	cleanStaleShadows()
	tmp, err := os.MkdirTemp("", shadowPrefix())
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	sh := &shadow{tmp: tmp}
	root := filepath.Join(tmp, filepath.Base(real))
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			return nil // what cannot be read is not read by the check either
		}
		rel, _ := filepath.Rel(real, p)
		to := filepath.Join(root, rel)
		switch {
		case d.IsDir():
			if p != real && config.IgnoredDir(d.Name()) {
				return filepath.SkipDir
			}
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			if r, ok := fsguard.Rel(real, filepath.Clean(link)); ok && filepath.IsAbs(link) {
				link = filepath.Join(root, filepath.FromSlash(r))
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			return copyFile(p, to, maxSize)
		}
		return nil // a named pipe or device, which no check opens
	})
	if err == nil {
		sh.root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		sh.remove()
		return nil, fmt.Errorf("fix: copy the workspace: %w", err)
	}
	return sh, nil
}

func copyFile(from, to string, maxSize int64) error {
	fi, err := os.Stat(from)
	if err != nil {
		return nil
	}
	if fi.Size() > maxSize {
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if err != nil {
			return err
		}
		return errors.Join(f.Truncate(fi.Size()), f.Close())
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return nil
	}
	return os.WriteFile(to, data, fi.Mode().Perm()|0o600)
}

// write gives the file rel of the copy the content data.
func (s *shadow) write(rel string, data []byte) error {
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	return nil
}

// plan checks the copy and returns what its fixes change in it.
func (s *shadow) plan(ctx context.Context, unsafe bool) ([]change, error) {
	lib, err := openLibrary(ctx, s.root, false, io.Discard)
	if err != nil {
		return nil, err
	}
	snap := ops.Static(lib)()
	agents, err := snap.AgentFiles(ctx)
	if err != nil {
		return nil, err
	}
	records, fixes, _, err := collect(ctx, snap)
	if err != nil {
		return nil, err
	}
	plan, _, err := planFixes(ctx, lib.Root(), records, fixes, unsafe, newReadPaths(lib, agents))
	return plan, err
}

// readPaths is the paths by which the check reads files: those of the
// library and of the agent files.
type readPaths struct {
	lib    *library.Snapshot
	agents *agentfiles.Set
	// links maps the workspace-relative path of a file to the paths the
	// check reads it by that are links to it (or lie in linked folders);
	// nil until linksTo first asks.
	links map[string][]string
}

func newReadPaths(lib *library.Snapshot, agents *agentfiles.Set) *readPaths {
	return &readPaths{lib: lib, agents: agents}
}

// known reports whether the check reads a file at p, by that path.
func (r *readPaths) known(p string) bool {
	if _, ok := r.lib.File(p); ok {
		return true
	}
	if r.agents != nil {
		if _, ok := r.agents.File(p); ok {
			return true
		}
	}
	return false
}

// linksTo returns the paths the check reads that lead, through links, to
// the file at rel, sorted.
func (r *readPaths) linksTo(root *fsguard.Root, rel string) []string {
	if r.links == nil {
		r.links = map[string][]string{}
		add := func(p string) {
			if target, trel, err := root.Target(p); err == nil && target != p && !slices.Contains(r.links[trel], p) {
				r.links[trel] = append(r.links[trel], p)
			}
		}
		for _, f := range r.lib.Files() {
			add(f.Path)
		}
		if r.agents != nil {
			for _, f := range r.agents.Files {
				add(f.Path)
			}
		}
		for _, ps := range r.links {
			slices.Sort(ps)
		}
	}
	return r.links[rel]
}

func (s *shadow) remove() { os.RemoveAll(s.tmp) }

// writeFixes writes each change to the workspace at real, each file
// whole or not at all (atomicfile), and reports on stderr every file left
// as it was and why, in the order of changes. It returns how many files
// it wrote and how many it left. A few files are written at once: most of
// the time of a write is the wait for the disk to sync it.
func writeFixes(changes []change, real string, stderr io.Writer) (written, left int) {
	errs := make([]error, len(changes))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(writers, len(changes)) {
		wg.Go(func() {
			for i := range next {
				c := changes[i]
				errs[i] = atomicfile.Replace(filepath.Join(real, filepath.FromSlash(c.rel)), c.old, c.new)
			}
		})
	}
	for i := range changes {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(stderr, "ctxls: %s left as it was: %v\n", changes[i].rel, reason(err))
			left++
			continue
		}
		written++
	}
	return written, left
}

// writers is how many files writeFixes writes at once.
const writers = 8

// cleanTemps removes the temporary files that a run killed while it wrote
// left beside the files of the workspace.
func cleanTemps(lib *library.Snapshot, agents *agentfiles.Set) {
	dirs := map[string]bool{}
	add := func(p string) {
		dirs[filepath.Dir(p)] = true
		if t, err := filepath.EvalSymlinks(p); err == nil {
			dirs[filepath.Dir(t)] = true
		}
	}
	for _, f := range lib.Files() {
		add(f.Path)
	}
	if agents != nil {
		for _, f := range agents.Files {
			add(f.Path)
		}
	}
	root := lib.Root()
	for d := range dirs {
		if fi, err := root.Stat(d); err == nil && fi.IsDir() {
			atomicfile.Clean(d)
		}
	}
}

// reason is err without the path of the file, which the report names
// relative to the workspace.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
