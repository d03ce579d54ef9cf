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

	"github.com/ctxls/ctxls/providers/context/config"
	"github.com/ctxls/ctxls/providers/context/fsguard"
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

// Reload scans the workspace again, re-reading .ctxls.yaml.
func (l *Library) Reload(ctx context.Context) (Result, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()
	cfg, problems, err := config.Load(l.dir)
	if err != nil {
		return Result{}, err
	}
	return l.reloadWith(ctx, cfg, problems)
}

// SetConfig replaces the configuration (for example with the editor's
// settings laid over .ctxls.yaml) and scans again.
func (l *Library) SetConfig(ctx context.Context, cfg *config.Config, problems []config.Problem) (Result, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()
	return l.reloadWith(ctx, cfg, problems)
}

func (l *Library) reloadWith(ctx context.Context, cfg *config.Config, problems []config.Problem) (Result, error) {
	before := l.paths()
	if err := l.reload(ctx, cfg, problems); err != nil {
		return Result{}, err
	}
	after := l.paths()
	all := append(before, after...)
	slices.Sort(all)
	all = slices.Compact(all)
	return Result{Changed: all, Affected: all, Reloaded: true}, nil
}

func (l *Library) paths() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return slices.Collect(maps.Keys(l.files))
}

// Apply brings the library in step with a set of changed files. Changes to
// .ctxls.yaml, or that create or remove a context or command root, scan the
// whole workspace again; anything else updates only what changed.
func (l *Library) Apply(ctx context.Context, changes []Change) (Result, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()

	l.mu.RLock()
	b := l.builder()
	cfg, flt := l.cfg, l.filter
	l.mu.RUnlock()

	type upd struct {
		path    string
		content []byte
		removed bool
	}
	var ups []upd
	for _, c := range changes {
		p, ok := within(l.dir, c.Path)
		if !ok {
			continue // outside the workspace: none of our business
		}
		rel := relSlash(l.dir, p)
		if rel == config.FileName {
			cfg, problems, err := config.Load(l.dir)
			if err != nil {
				return Result{}, err
			}
			return l.reloadWith(ctx, cfg, problems)
		}
		if flt.SkipFile(p) {
			continue
		}
		if l.touchesRoots(p, b) {
			return l.reloadWith(ctx, cfg, nil)
		}
		if c.Removed || c.Content == nil {
			// What is missing, a dangling or looping link, a link out of
			// the workspace and a file that is not a regular file are as
			// good as gone.
			info, err := l.root.Stat(p)
			switch {
			case c.Removed || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fsguard.ErrOutsideWorkspace) || err != nil && fsguard.IsLoop(err) ||
				err == nil && !info.IsDir() && !info.Mode().IsRegular():
				// A removed directory takes every file under it along.
				for _, q := range l.filesUnder(p) {
					ups = append(ups, upd{path: q, removed: true})
				}
				ups = append(ups, upd{path: p, removed: true})
				continue
			case err == nil && info.IsDir():
				for _, q := range markdownUnder(flt, p) {
					ups = append(ups, upd{path: q})
				}
				continue
			}
		}
		if !isMarkdown(p) {
			continue
		}
		ups = append(ups, upd{path: p, content: c.Content})
	}

	// Parse outside the lock: a slow file must not stall readers.
	built := make([]*File, len(ups))
	parallel(ctx, len(ups), func(i int) {
		if !ups[i].removed {
			built[i] = b.parse(ctx, ups[i].path, relSlash(l.dir, ups[i].path), ups[i].content)
		}
	})
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	st := &state{files: l.files, topics: l.topics, aliases: l.aliases, byStem: l.byStem, domains: l.domains, commands: l.commands,
		incoming: l.incoming, dupTopics: l.dupTopics, dupCommands: l.dupCommands, warnings: l.dupWarnings}
	changed := map[string]bool{}
	affected := map[string]bool{}
	before := map[string]int{} // reference counts of the replaced files
	var pairs []filePair
	for i, u := range ups {
		old, nf := st.files[u.path], built[i]
		if old == nil && nf == nil {
			continue
		}
		if old != nil {
			before[u.path] = old.Refs.Len()
			st.unlink(b, old)
			delete(st.files, u.path)
		}
		if nf != nil {
			st.files[u.path] = nf
		}
		changed[u.path] = true
		pairs = append(pairs, filePair{old, nf})
	}
	if len(changed) == 0 {
		return Result{}, nil
	}
	// Update topics, domains and commands for the changed files only; a
	// change that involves a duplicate id rebuilds them from all files.
	domainsChanged, ok := st.update(pairs)
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
		if changed[p] {
			hint = before[p]
		}
		nf.Refs = b.scanRefs(&nf, v, hint)
		if !changed[p] {
			st.unlink(b, f)
		}
		st.files[p] = &nf
		st.link(&nf, refKeys(b, &nf))
	}
	if domainsChanged {
		// A new or vanished domain changes which key forms exist anywhere.
		for p, f := range st.files {
			rescan(p, f)
			affected[p] = true
		}
	} else {
		for p := range changed {
			if f := st.files[p]; f != nil {
				rescan(p, f)
			}
		}
	}
	for p := range changed {
		affected[p] = true
	}
	for _, pr := range pairs {
		// Editing a topic in place keeps its id: files that only refer to
		// its domain (or to other topics of it) see no difference, unless
		// it is the domain's index. Creating or removing one may change
		// the suggestions offered for broken references into the domain.
		edit := pr.old != nil && pr.new != nil && pr.old.Topic != nil && pr.new.Topic != nil && pr.old.Topic.ID == pr.new.Topic.ID
		for _, f := range []*File{pr.old, pr.new} {
			if f != nil {
				for _, p := range dependents(st, f, edit) {
					affected[p] = true
				}
			}
		}
	}
	l.files, l.topics, l.byStem, l.domains, l.commands, l.incoming = st.files, st.topics, st.byStem, st.domains, st.commands, st.incoming
	l.aliases = st.aliases
	l.dupTopics, l.dupCommands, l.dupWarnings = st.dupTopics, st.dupCommands, st.warnings
	l.warnings = slices.DeleteFunc(l.warnings, func(w Warning) bool { return changed[w.Path] })
	l.version++
	return Result{Changed: sortedKeys(changed), Affected: sortedKeys(affected), Reloaded: false}, nil
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
				if cur := st.topics[t.ID]; f == pr.new && cur != nil && (pr.old == nil || pr.old.Topic == nil || cur != pr.old.Topic) {
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
			if t := pr.old.Topic; t != nil && st.topics[t.ID] == t {
				delete(st.topics, t.ID)
				if a := alias(t); a != "" && st.aliases[a] == t {
					delete(st.aliases, a)
				}
				stem := path.Base(t.Name)
				st.byStem[stem] = slices.DeleteFunc(st.byStem[stem], func(x *Topic) bool { return x == t })
				if len(st.byStem[stem]) == 0 {
					delete(st.byStem, stem)
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
				st.topics[t.ID] = t
				if a := alias(t); a != "" && st.aliases[a] == nil {
					st.aliases[a] = t
				}
				stem := path.Base(t.Name)
				list := st.byStem[stem]
				i, _ := slices.BinarySearchFunc(list, t.Path, func(x *Topic, p string) int { return strings.Compare(x.Path, p) })
				st.byStem[stem] = slices.Insert(list, i, t)
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
		for p := range st.incoming.paths(k) {
			out = append(out, p)
		}
	}
	if d := st.domains[t.Domain]; d != nil && d.Index != nil {
		out = append(out, d.Index.Path)
	}
	// Files with a same-named topic see a duplicate appear or go.
	if cur := st.topics[t.ID]; cur != nil {
		out = append(out, cur.Path)
	}
	return out
}

// touchesRoots reports whether a change at p creates or removes a context
// or command root, which requires a full scan.
func (l *Library) touchesRoots(p string, b *builder) bool {
	for _, r := range append(slices.Clone(b.contextRoots), b.commandRoots...) {
		if p == r || strings.HasPrefix(r, p+string(filepath.Separator)) {
			return true // the root itself or a parent of it changed
		}
	}
	rel := relSlash(l.dir, p)
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		if part != ContextDirName && part != CommandDirName {
			continue
		}
		dir := filepath.Join(l.dir, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
		if underAny(dir, b.contextRoots) != "" || underAny(dir, b.commandRoots) != "" {
			continue
		}
		if part == CommandDirName && underAny(dir, b.contextRoots) != "" {
			continue
		}
		return true
	}
	return false
}

func (l *Library) filesUnder(dir string) []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []string
	for p := range l.files {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) {
			out = append(out, p)
		}
	}
	return out
}

// markdownUnder lists the markdown files under dir that the scan reads.
func markdownUnder(flt *Filter, dir string) []string {
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
		if d.Type().IsRegular() && isMarkdown(d.Name()) && !flt.SkipFile(p) {
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
