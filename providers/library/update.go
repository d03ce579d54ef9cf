package library

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
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
	out := make([]string, 0, len(l.files))
	for p := range l.files {
		out = append(out, p)
	}
	return out
}

// Apply brings the library in step with a set of changed files. Changes to
// .ctxls.yaml, or that create or remove a context or command root, scan the
// whole workspace again; anything else updates only what changed.
func (l *Library) Apply(ctx context.Context, changes []Change) (Result, error) {
	l.applyMu.Lock()
	defer l.applyMu.Unlock()

	l.mu.RLock()
	b := l.builder()
	cfg := l.cfg
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
		if l.ignored(rel, cfg.Ignore) {
			continue
		}
		if l.touchesRoots(p, b) {
			return l.reloadWith(ctx, cfg, nil)
		}
		if c.Removed || c.Content == nil {
			info, err := os.Stat(p)
			switch {
			case c.Removed || errors.Is(err, fs.ErrNotExist):
				// A removed directory takes every file under it along.
				for _, q := range l.filesUnder(p) {
					ups = append(ups, upd{path: q, removed: true})
				}
				ups = append(ups, upd{path: p, removed: true})
				continue
			case err == nil && info.IsDir():
				for _, q := range markdownUnder(p) {
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
			built[i] = b.parse(ups[i].path, relSlash(l.dir, ups[i].path), ups[i].content)
		}
	})
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	st := &state{files: l.files, topics: l.topics, byStem: l.byStem, domains: l.domains, commands: l.commands, incoming: l.incoming}
	oldDomains := st.view().domains
	changed := map[string]bool{}
	affected := map[string]bool{}
	var touched []*File // old and new versions, to find dependents
	for i, u := range ups {
		old := st.files[u.path]
		if old != nil {
			st.unlink(b, old)
			touched = append(touched, old)
			delete(st.files, u.path)
			changed[u.path] = true
		}
		if nf := built[i]; nf != nil {
			st.files[u.path] = nf
			touched = append(touched, nf)
			changed[u.path] = true
		}
	}
	if len(changed) == 0 {
		return Result{}, nil
	}
	st.rebuildTopics()
	v := st.view()
	domainsChanged := !sameSet(oldDomains, v.domains)
	for p, f := range st.files {
		// A new or vanished domain changes which key forms exist anywhere.
		if changed[p] || domainsChanged {
			nf := *f
			nf.Refs = b.scanRefs(&nf, v)
			if !changed[p] {
				st.unlink(b, f)
			}
			st.files[p] = &nf
			st.link(b, &nf)
		}
	}
	for p := range changed {
		affected[p] = true
	}
	if domainsChanged {
		for p := range st.files {
			affected[p] = true
		}
	}
	for _, f := range touched {
		for _, p := range dependents(st, f) {
			affected[p] = true
		}
	}
	l.files, l.topics, l.byStem, l.domains, l.commands, l.incoming = st.files, st.topics, st.byStem, st.domains, st.commands, st.incoming
	l.warnings = slices.DeleteFunc(l.warnings, func(w Warning) bool { return changed[w.Path] })
	l.warnings = append(l.warnings, st.warnings...)
	l.version++
	return Result{Changed: sortedKeys(changed), Affected: sortedKeys(affected), Reloaded: false}, nil
}

// dependents lists the files whose diagnostics depend on file f: those
// referring to its topic, its domain or its file name, and its domain's
// index.
func dependents(st *state, f *File) []string {
	if f.Topic == nil {
		return nil
	}
	t := f.Topic
	keys := []string{t.ID, "*/" + filepath.Base(t.Name), "@" + t.Domain}
	var out []string
	for _, k := range keys {
		for p := range st.incoming[k] {
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

func (l *Library) ignored(rel string, patterns []string) bool {
	for _, part := range strings.Split(rel, "/") {
		if IgnoredDir(part) {
			return true
		}
	}
	return ignoredPath(rel, patterns)
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

// markdownUnder lists the markdown files below dir, skipping ignored
// directories and links.
func markdownUnder(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != dir && IgnoredDir(d.Name()) {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && isMarkdown(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
