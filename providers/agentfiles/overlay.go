package agentfiles

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
)

// WithTexts returns the set with the files at the absolute paths of texts
// read from those texts instead of the disk: an editor's unsaved text of
// the files it has open. A path that is no agent file is left out; one
// that is an agent file the set does not hold yet (created in the editor,
// not saved) joins it. The files of s are shared, not copied, and s is
// unchanged. With no texts it returns s.
func (s *Set) WithTexts(ctx context.Context, texts map[string][]byte) *Set {
	if len(texts) == 0 {
		return s
	}
	n := &Set{Root: s.Root, cfg: s.cfg, root: s.root, all: s.all, dirs: s.dirs, partial: s.partial, git: s.git, parsed: s.parsed,
		codex: s.codex, geminiNames: s.geminiNames, geminiProblem: s.geminiProblem, instructionDirs: s.instructionDirs,
		Files: make([]*File, 0, len(s.Files)), byPath: make(map[string]*File, len(s.byPath))}
	texts = cleanKeys(texts)
	// The editor's text of a settings file that says which files load is
	// what the files are read with.
	at := func(rel string) ([]byte, bool) {
		text, ok := texts[filepath.Join(s.Root, filepath.FromSlash(rel))]
		return text, ok
	}
	if text, ok := at(codexConfigFile); ok {
		n.codex = parseCodexConfig(text)
	}
	if text, ok := at(geminiSettingsFile); ok {
		n.geminiNames, n.geminiProblem = parseGeminiSettings(text)
	}
	if text, ok := at(vscodeSettingsFile); ok {
		n.instructionDirs = parseVSCodeSettings(text)
	}
	for _, f := range s.Files {
		if text, ok := texts[f.Path]; ok {
			g := &File{Path: f.Path, Rel: f.Rel, Kind: f.Kind, via: f.via, aliasOf: f.aliasOf}
			n.read(ctx, g, text)
			f = g
			delete(texts, f.Path)
		}
		n.Files = append(n.Files, f)
		n.byPath[f.Path] = f
	}
	added := false
	for p, text := range texts {
		rel, ok := fsguard.Rel(s.Root, p)
		if !ok {
			continue
		}
		k := n.classify(rel)
		if k == KindUnknown {
			continue
		}
		f := &File{Path: p, Rel: rel, Kind: k}
		n.read(ctx, f, text)
		n.Files = append(n.Files, f)
		n.byPath[p] = f
		added = true
	}
	if added {
		slices.SortFunc(n.Files, func(a, b *File) int { return strings.Compare(a.Rel, b.Rel) })
	}
	return n
}

// cleanKeys returns texts keyed by clean paths, a copy that may be
// changed.
func cleanKeys(texts map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(texts))
	for p, t := range texts {
		if t == nil {
			t = []byte{}
		}
		out[filepath.Clean(p)] = t
	}
	return out
}
