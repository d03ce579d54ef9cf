package library

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library/discover"
)

// Change is one file that changed.
type Change struct {
	// Path is the file's path (absolute, or relative to the workspace).
	Path string
	// Content is the file's new text when an editor holds it; nil means
	// read the disk (and a file gone from disk is removed).
	Content []byte
	// Removed says the file (or directory) is gone.
	Removed bool
	// FromDisk says Content was read from the disk rather than taken from
	// an editor: the library may drop it and read the file again.
	FromDisk bool
}

// Result says what a change touched.
type Result struct {
	// Changed lists the files whose content changed, were added or removed.
	Changed []string
	// Affected lists the files whose diagnostics may have changed: the
	// changed files and every file that refers to a changed topic.
	Affected []string
	// Reloaded is true when the whole workspace was scanned again (the
	// configuration or the set of roots changed).
	Reloaded bool
}

// SetConfig replaces the configuration (for example with the editor's
// settings laid over .ctxls.yaml) and scans again.
func (l *Library) SetConfig(ctx context.Context, cfg *config.Config, problems []config.Problem) (Result, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()
	return l.reloadWith(ctx, cfg, problems)
}

func (l *Library) reloadWith(ctx context.Context, cfg *config.Config, problems []config.Problem) (Result, error) {
	before := l.snap.Load().paths()
	if err := l.reload(ctx, cfg, problems); err != nil {
		return Result{}, err
	}
	after := l.snap.Load().paths()
	all := append(before, after...)
	slices.Sort(all)
	all = slices.Compact(all)
	return Result{Changed: all, Affected: all, Reloaded: true}, nil
}

// Apply brings the library in step with a set of changed files. Changes to
// .ctxls.yaml, or that create or remove a context or command root, scan the
// whole workspace again; anything else updates only what changed.
func (l *Library) Apply(ctx context.Context, changes []Change) (Result, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()

	cur := l.snap.Load()
	a := &applyRun{l: l, cur: cur, b: cur.builder(), cfg: cur.cfg, flt: cur.filter}

	reload, err := a.collect(changes)
	if err != nil {
		return Result{}, err
	}
	if reload != nil {
		return l.reloadWith(ctx, reload.cfg, reload.problems)
	}
	if err := a.parse(ctx); err != nil {
		return Result{}, err
	}
	// Readers go on with cur meanwhile: the next snapshot is built from
	// copies of what changes.
	a.st = cur.state()
	if !a.swap() {
		return Result{}, nil
	}
	a.relink()
	a.markDependents()
	// The files are not yet shared.
	var fromDisk []*File
	for i, u := range a.ups {
		if u.fromDisk || u.content == nil {
			fromDisk = append(fromDisk, a.built[i])
		}
	}
	l.release(fromDisk)
	return a.commit(), nil
}

// applyRun holds what one Apply works out, step by step.
type applyRun struct {
	l   *Library
	cur *Snapshot // the model the run starts from
	b   *builder
	cfg *config.Config
	flt *discover.Filter

	ups   []fileUpdate // the files to parse again or drop
	built []*File      // the new version of each, nil for a drop

	st       *state              // the next model, built from copies of cur's
	changed  map[string]bool     // files whose content changed
	affected map[string]bool     // files whose diagnostics may have changed
	before   map[string]int      // reference counts of the replaced files
	oldKeys  map[string][]string // incoming keys of the replaced files
	pairs    []filePair
	// rootsChanged says that b.roots holds new reasons for the roots.
	rootsChanged bool
}

// fileUpdate is one file that Apply parses again or drops.
type fileUpdate struct {
	path     string
	content  []byte
	removed  bool
	fromDisk bool // content is nil or was read from the disk
}

// reloadRequest says Apply must scan the whole workspace again, with cfg
// and its problems.
type reloadRequest struct {
	cfg      *config.Config
	problems []config.Problem
}

// collect turns the changes into the files to parse again or drop, or
// asks for a whole scan.
func (a *applyRun) collect(changes []Change) (*reloadRequest, error) {
	l := a.l
	for _, c := range changes {
		p, ok := discover.Within(l.dir, c.Path)
		if !ok {
			continue // outside the workspace: none of our business
		}
		rel := fsguard.RelSlash(l.dir, p)
		if rel == config.FileName {
			cfg, problems, err := config.Load(l.dir)
			if err != nil {
				return nil, err
			}
			return &reloadRequest{cfg, problems}, nil
		}
		if a.flt.SkipFile(p) {
			continue
		}
		if l.touchesRoots(p, a.b) || (c.Removed || c.Content == nil || c.FromDisk) && a.changesEvidence(p) {
			return &reloadRequest{cfg: a.cfg}, nil
		}
		if (c.Removed || c.Content == nil) && a.collectFromDisk(p, c.Removed) {
			continue
		}
		if !discover.IsMarkdown(p) {
			continue
		}
		if c.Content != nil && !l.mayHold(p) {
			// An editor's text of a file the root check refuses, as when
			// the editor opened a link out of the workspace: what it shows
			// is not the workspace's.
			a.ups = append(a.ups, fileUpdate{path: p, removed: true})
			continue
		}
		a.ups = append(a.ups, fileUpdate{path: p, content: c.Content, fromDisk: c.FromDisk || c.Content == nil})
	}
	return nil, nil
}

// mayHold reports whether the library may take an editor's text for the
// file at p: what p leads to lies in the workspace and is a regular file,
// or nothing is there yet.
func (l *Library) mayHold(p string) bool {
	info, err := l.root.Stat(p)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) && !fsguard.IsLoop(err)
	}
	return info.Mode().IsRegular()
}

// collectFromDisk looks at the disk for a change that brought no text. It
// reports whether it dealt with p: a file gone takes every file under it
// along, and a directory brings in the markdown under it.
func (a *applyRun) collectFromDisk(p string, removed bool) bool {
	// What is missing, a dangling or looping link, a link out of the
	// workspace and a file that is not a regular file are as good as gone.
	info, err := a.l.root.Stat(p)
	switch {
	case removed || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsguard.ErrOutsideWorkspace) || err != nil && fsguard.IsLoop(err) ||
		err == nil && !info.IsDir() && !info.Mode().IsRegular():
		for _, q := range a.cur.filesUnder(p) {
			a.ups = append(a.ups, fileUpdate{path: q, removed: true})
		}
		a.ups = append(a.ups, fileUpdate{path: p, removed: true})
		return true
	case err == nil && info.IsDir():
		for _, q := range markdownUnder(a.flt, p) {
			a.ups = append(a.ups, fileUpdate{path: q})
		}
		return true
	}
	return false
}

// parse builds the new version of each file that is not dropped.
func (a *applyRun) parse(ctx context.Context) error {
	a.built = make([]*File, len(a.ups))
	inParallel(ctx, len(a.ups), func(i int) {
		if u := a.ups[i]; !u.removed {
			a.built[i] = a.b.parse(ctx, u.path, fsguard.RelSlash(a.l.dir, u.path), u.content)
		}
	})
	return ctx.Err()
}

// swap puts the new versions of the files in place of the old ones and
// reports whether anything changed.
func (a *applyRun) swap() bool {
	st := a.st
	a.changed, a.affected, a.before, a.oldKeys = map[string]bool{}, map[string]bool{}, map[string]int{}, map[string][]string{}
	for i, u := range a.ups {
		old, nf := st.files.Get(u.path), a.built[i]
		if old == nil && nf == nil {
			continue
		}
		if old != nil {
			if _, again := a.oldKeys[u.path]; !again {
				// The published version, rather than one this run built
				// from a change to the same path listed before.
				a.before[u.path] = old.Refs.Len()
				a.oldKeys[u.path] = st.keysOf(a.b, old)
			}
			st.files.Delete(u.path)
		}
		if nf != nil {
			st.files.Set(u.path, nf)
		}
		a.changed[u.path] = true
		a.pairs = append(a.pairs, filePair{old, nf})
	}
	for p, keys := range a.oldKeys {
		if st.files.Get(p) == nil {
			st.refile(p, keys, nil) // dropped; relink refiles the others
		}
	}
	return len(a.changed) > 0
}

// relink updates topics, domains and commands for the changed files, and
// scans again the references of the files whose references may now read
// differently.
func (a *applyRun) relink() {
	st := a.st
	// A change that involves a duplicate id rebuilds them from all files.
	domainsChanged, ok := st.update(a.pairs)
	if !ok {
		oldDomains := make(map[string]bool, len(st.domains))
		for name := range st.domains {
			oldDomains[name] = true
		}
		st.rebuildTopics()
		domainsChanged = !maps.Equal(oldDomains, st.view().domains)
	}
	v := st.view()
	rescan := func(p string, f *File) {
		nf := *f
		hint := f.Refs.Len()
		if a.changed[p] {
			hint = a.before[p]
		}
		nf.Refs = a.b.scanRefs(context.Background(), &nf, v, hint)
		old := a.oldKeys[p] // nil for a new file
		if !a.changed[p] {
			old = st.keysOf(a.b, f)
		}
		nf.inKeys = st.incoming.KeyIDs(st.refile(p, old, refKeys(context.Background(), a.b, &nf)))
		st.files.Set(p, &nf)
	}
	if domainsChanged {
		// A new or vanished domain changes which key forms exist anywhere.
		for p, f := range st.files.All() {
			rescan(p, f)
			a.affected[p] = true
		}
		return
	}
	for p := range a.changed {
		if f := st.files.Get(p); f != nil {
			rescan(p, f)
		}
	}
}

// markDependents adds to the affected files the changed files and those
// that refer to them.
func (a *applyRun) markDependents() {
	for p := range a.changed {
		a.affected[p] = true
	}
	for _, pr := range a.pairs {
		// Editing a topic in place keeps its id: files that only refer to
		// its domain (or to other topics of it) see no difference, unless
		// it is the domain's index. Creating or removing one may change
		// the suggestions offered for broken references into the domain.
		edit := pr.old != nil && pr.new != nil && pr.old.Topic != nil && pr.new.Topic != nil && pr.old.Topic.ID == pr.new.Topic.ID
		for _, f := range []*File{pr.old, pr.new} {
			if f != nil {
				for _, p := range dependents(a.st, f, edit) {
					a.affected[p] = true
				}
			}
		}
	}
}

// commit publishes the next snapshot and says what changed.
func (a *applyRun) commit() Result {
	next := a.cur.withState(a.st)
	if a.rootsChanged {
		next.roots = a.b.roots
	}
	next.warnings = slices.DeleteFunc(slices.Clone(a.cur.warnings), func(w discover.Warning) bool { return a.changed[w.Path] })
	next.diags = a.cur.diags.next(next.files, a.affected)
	a.l.snap.Store(next)
	return Result{Changed: sortedKeys(a.changed), Affected: sortedKeys(a.affected), Reloaded: false}
}

// filePair is the old and new version of one changed file; either may be
// nil (created or removed).
type filePair struct{ old, new *File }

// update applies changed files to topics, byStem, domains and commands in
// time proportional to the change. It reports false, having changed
// nothing, when a pair involves a topic id or command name defined by more
// than one file: which definition wins then depends on all files. Domains
// handed out earlier are never modified: a touched domain is copied.
func (st *state) update(pairs []filePair) (domainsChanged, ok bool) {
	for _, pr := range pairs {
		for _, f := range []*File{pr.old, pr.new} {
			if f == nil {
				continue
			}
			if t := f.Topic; t != nil {
				if st.dupTopics[t.ID] {
					return false, false
				}
				if cur := st.topics.Get(t.ID); f == pr.new && cur != nil && (pr.old == nil || pr.old.Topic == nil || cur != pr.old.Topic) {
					return false, false // a new definition of an existing id
				}
			}
			if c := f.Command; c != nil {
				if st.dupCommands[c.Name] {
					return false, false
				}
				if cur := st.commands[c.Name]; f == pr.new && cur != nil && (pr.old == nil || pr.old.Command == nil || cur != pr.old.Command) {
					return false, false
				}
			}
		}
	}
	copied := map[string]bool{}
	domain := func(name string) *Domain {
		d := st.domains[name]
		if d == nil {
			d = &Domain{Name: name}
			st.domains[name] = d
			copied[name] = true
			domainsChanged = true
			return d
		}
		if !copied[name] {
			nd := *d
			nd.Dirs = slices.Clone(d.Dirs)
			nd.Topics = slices.Clone(d.Topics)
			d = &nd
			st.domains[name] = d
			copied[name] = true
		}
		return d
	}
	for _, pr := range pairs {
		if pr.old != nil {
			if t := pr.old.Topic; t != nil && st.topics.Get(t.ID) == t {
				st.topics.Delete(t.ID)
				if a := alias(t); a != "" && st.aliases[a] == t {
					delete(st.aliases, a)
				}
				stem := path.Base(t.Name)
				// Copies: the lists belong to the published snapshot too.
				if list := slices.DeleteFunc(slices.Clone(st.byStem.Get(stem)), func(x *Topic) bool { return x == t }); len(list) > 0 {
					st.byStem.Set(stem, list)
				} else {
					st.byStem.Delete(stem)
				}
				if t.Domain != "" {
					d := domain(t.Domain)
					d.Topics = slices.DeleteFunc(d.Topics, func(x *Topic) bool { return x == t })
					if d.Index == t {
						d.Index = nil
					}
					if d.Detection == t {
						d.Detection = nil
					}
					if len(d.Topics) == 0 {
						delete(st.domains, t.Domain)
						domainsChanged = true
					}
				}
			}
			if c := pr.old.Command; c != nil && st.commands[c.Name] == c {
				delete(st.commands, c.Name)
			}
		}
		if pr.new != nil {
			if t := pr.new.Topic; t != nil {
				st.topics.Set(t.ID, t)
				if a := alias(t); a != "" && st.aliases[a] == nil {
					st.aliases[a] = t
				}
				stem := path.Base(t.Name)
				list := st.byStem.Get(stem)
				i, _ := slices.BinarySearchFunc(list, t.Path, func(x *Topic, p string) int { return strings.Compare(x.Path, p) })
				st.byStem.Set(stem, slices.Insert(slices.Clip(list), i, t))
				if t.Domain != "" {
					d := domain(t.Domain)
					if dir := filepath.Join(t.Root, t.Domain); !slices.Contains(d.Dirs, dir) {
						d.Dirs = append(d.Dirs, dir)
					}
					j, _ := slices.BinarySearchFunc(d.Topics, t.Name, func(x *Topic, name string) int { return strings.Compare(x.Name, name) })
					d.Topics = slices.Insert(d.Topics, j, t)
					switch t.Name {
					case "index":
						d.Index = t
					case "context_detection":
						d.Detection = t
					}
				}
			}
			if c := pr.new.Command; c != nil {
				st.commands[c.Name] = c
			}
		}
	}
	return domainsChanged, true
}

// dependents lists the files whose diagnostics depend on file f: those
// referring to its topic or its file name, and its domain's index; unless
// edit says the topic was only edited in place (or f is the domain's
// index), also those referring to its domain.
func dependents(st *state, f *File, edit bool) []string {
	if f.Topic == nil {
		return nil
	}
	t := f.Topic
	keys := []string{t.ID, "*/" + filepath.Base(t.Name)}
	if !edit || t.Name == "index" {
		keys = append(keys, "@"+t.Domain)
	}
	if a := alias(t); a != "" {
		keys = append(keys, a)
	}
	var out []string
	for _, k := range keys {
		for p := range st.incoming.Paths(k) {
			out = append(out, p)
		}
	}
	if d := st.domains[t.Domain]; d != nil && d.Index != nil {
		out = append(out, d.Index.Path)
	}
	// Files with a same-named topic see a duplicate appear or go.
	if cur := st.topics.Get(t.ID); cur != nil {
		out = append(out, cur.Path)
	}
	return out
}

// touchesRoots reports whether a change at p creates or removes a context
// or command root, which requires a full scan.
func (l *Library) touchesRoots(p string, b *builder) bool {
	for _, r := range append(slices.Clone(b.contextRoots), b.commandRoots...) {
		if fsguard.Within(p, r) {
			return true // the root itself or a parent of it changed
		}
	}
	rel := fsguard.RelSlash(l.dir, p)
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		if part != discover.ContextDirName && part != discover.CommandDirName {
			continue
		}
		dir := filepath.Join(l.dir, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
		if discover.UnderAny(dir, b.contextRoots) != "" || discover.UnderAny(dir, b.commandRoots) != "" {
			continue
		}
		if part == discover.CommandDirName && discover.UnderAny(dir, b.contextRoots) != "" {
			continue
		}
		if part == discover.ContextDirName && i < len(parts)-1 && discover.IsMarkdown(p) {
			continue // a file of a folder that is no library: see changesEvidence
		}
		return true
	}
	return false
}

// changesEvidence reports whether a change on disk at p may change what
// showed a context root to be one, or show one among the directories
// passed over; a full scan then decides again. Evidence is what the files
// on disk show, so an editor's unsaved text changes none.
func (a *applyRun) changesEvidence(p string) bool {
	l, b := a.l, a.b
	for i, r := range b.roots.Roots {
		if r.Evidence != p {
			continue
		}
		// Most often the root still shows what it is by another file:
		// then only its reason changes.
		why, ev, ok := discover.EvidenceOnDisk(l.root, r.Dir, b.commandRoots, a.flt)
		if !ok {
			return true
		}
		roots := slices.Clone(b.roots.Roots)
		roots[i].Why, roots[i].Evidence = why, ev
		b.roots.Roots = roots
		a.rootsChanged = true
		return false
	}
	if discover.UnderAny(p, b.contextRoots) != "" || !discover.IsMarkdown(p) {
		return false
	}
	rel := fsguard.RelSlash(l.dir, p)
	parts := strings.Split(rel, "/")
	for i, part := range parts[:len(parts)-1] {
		if part == discover.ContextDirName && discover.ShowsRoot(l.root, filepath.Join(l.dir, filepath.FromSlash(strings.Join(parts[:i+1], "/"))), p) {
			return true
		}
	}
	if slices.Contains(b.roots.Passed, l.dir) && discover.ShowsRoot(l.root, l.dir, p) {
		return true
	}
	// A command may name a topic of a directory passed over.
	return len(b.roots.Passed) > 0 && discover.UnderAny(p, b.commandRoots) != ""
}

// markdownUnder lists the markdown files under dir that the scan reads.
func markdownUnder(flt *discover.Filter, dir string) []string {
	if flt.SkipDir(dir) {
		return nil
	}
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != dir && flt.SkipDir(p) {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && discover.IsMarkdown(d.Name()) && !flt.SkipFile(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
