package library

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/library/internal/cowmap"
	"github.com/ctxls/ctxls/providers/library/internal/incoming"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Snapshot is the library's model at one moment. Once published it never
// changes, nor does anything it reaches (files, topics, domains, commands,
// the sets of the incoming index): Apply builds the next snapshot from
// copies of what it changes, so a reader that took one keeps a consistent
// model for as long as it needs, without a lock.
//
// The diagnostics of a file are worked out when first asked for, once per
// snapshot, and handed on to the next snapshot unless the change affects
// the file: checking again costs only the files a change affected.
//
// Its methods take the receiver name l: they are the library's reads.
type Snapshot struct {
	dir          string
	root         *fsguard.Root
	cfg          *config.Config
	filter       *discover.Filter // cfg's directory rules
	cfgProblems  []config.Problem
	counter      tokens.Counter
	contextRoots []string
	commandRoots []string
	roots        discover.RootInfo // what showed each context root, and the candidates passed over
	beside       map[string]map[string]bool
	readings     *pathMemo // readings of path references under these roots
	files        cowmap.Map[*File]
	topics       cowmap.Map[*Topic]
	aliases      map[string]*Topic // frontmatter ids of root files
	byStem       cowmap.Map[[]*Topic]
	domains      map[string]*Domain
	commands     map[string]*Command
	incoming     incoming.Index     // target key → referring file paths
	warnings     []discover.Warning // from the scan
	dupWarnings  []discover.Warning // duplicate topics and commands
	dupTopics    map[string]bool
	dupCommands  map[string]bool
	version      uint64
	diags        diagTable   // every file's, by path
	texts        *textSource // reads back the released texts; nil for a preview
}

// withState returns a copy of l whose model is st's.
func (l *Snapshot) withState(st *state) *Snapshot {
	next := *l
	next.files, next.topics, next.byStem, next.domains, next.commands, next.incoming = st.files, st.topics, st.byStem, st.domains, st.commands, st.incoming
	next.aliases = st.aliases
	next.dupTopics, next.dupCommands, next.dupWarnings = st.dupTopics, st.dupCommands, st.warnings
	next.version++
	return &next
}

// state returns the model as a state that Apply may change
// without changing the snapshot: the maps are copies, and what they hold
// is copied before it changes (see state.update and state.own).
func (l *Snapshot) state() *state {
	return &state{
		files: l.files.Fork(), topics: l.topics.Fork(), aliases: maps.Clone(l.aliases), byStem: l.byStem.Fork(),
		domains: maps.Clone(l.domains), commands: maps.Clone(l.commands), incoming: l.incoming.Fork(),
		dupTopics: l.dupTopics, dupCommands: l.dupCommands, warnings: l.dupWarnings,
		owned: map[string]bool{}, root: l.root,
	}
}

// sortedFiles returns every file, sorted by path.
func (l *Snapshot) sortedFiles() []*File {
	return slices.SortedFunc(l.files.Values(), func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
}

func (l *Snapshot) topic(id string) (*Topic, bool) {
	if t, ok := l.topics.Lookup(id); ok {
		return t, true
	}
	t, ok := l.aliases[id]
	return t, ok
}

func (l *Snapshot) isDomain(name string) bool {
	_, ok := l.domains[name]
	return ok
}

func (l *Snapshot) paths() []string {
	out := make([]string, 0, l.files.Len())
	for p := range l.files.All() {
		out = append(out, p)
	}
	return out
}

func (l *Snapshot) filesUnder(dir string) []string {
	var out []string
	for p := range l.files.All() {
		if p != dir && fsguard.Within(dir, p) {
			out = append(out, p)
		}
	}
	return out
}

// own makes the incoming set under key k the state's own before it
// changes, copying the one the state shares with a published snapshot.
// Only the sets an Apply touches are copied: one edit in a library of
// ten thousand topics copies a few.
func (st *state) own(k string) {
	if st.owned == nil || st.owned[k] {
		return // a fresh index owns every set
	}
	st.owned[k] = true
	st.incoming.Own(k)
}

// keysOf returns the keys f is filed under in the incoming index.
func (st *state) keysOf(b *builder, f *File) []string {
	if f.inKeys != nil {
		return st.incoming.KeyNames(f.inKeys)
	}
	return refKeys(context.Background(), b, f)
}

// refile files the file at p, filed under the keys old, under keys
// instead (both sorted, as refKeys returns them), and returns keys with
// the index's copies of them. Only the keys that differ change the index:
// an edit that keeps the targets of a file copies none of the sets it is
// in, such as the thousands of files naming one domain.
func (st *state) refile(p string, old, keys []string) []string {
	i := 0
	drop := func(k string) {
		st.own(k)
		st.incoming.Remove(k, p)
	}
	for j, k := range keys {
		for i < len(old) && old[i] < k {
			drop(old[i])
			i++
		}
		if i < len(old) && old[i] == k {
			keys[j] = old[i] // the index's copy
			i++
			continue
		}
		st.own(k)
		keys[j] = st.incoming.Add(k, p)
	}
	for _, k := range old[i:] {
		drop(k)
	}
	return keys
}

// ContextRootsTaken returns the context roots with what showed each to be
// one, sorted by directory.
func (l *Snapshot) ContextRootsTaken() []discover.ContextRoot { return slices.Clone(l.roots.Roots) }

// PassedOver returns the directories that looked like context roots (a
// folder named context, a workspace laid out as one) but whose files
// showed none, sorted.
func (l *Snapshot) PassedOver() []string { return slices.Clone(l.roots.Passed) }
