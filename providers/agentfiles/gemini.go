package agentfiles

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/tokens"
)

// geminiSettingsFile is where a project configures Gemini CLI.
const geminiSettingsFile = ".gemini/settings.json"

// maxGeminiSettings bounds .gemini/settings.json.
const maxGeminiSettings = 1 << 20

// loadGeminiSettings reads the context file names of the project's
// .gemini/settings.json: context.fileName, a name or a list of names. A
// file Gemini CLI cannot use leaves GEMINI.md, with the reason kept.
func (s *Set) loadGeminiSettings(ctx context.Context) {
	p := filepath.Join(s.Root, filepath.FromSlash(geminiSettingsFile))
	data, err := s.Guard().ReadFile(ctx, p, maxGeminiSettings)
	if err != nil {
		s.geminiNames, s.geminiProblem = []string{"GEMINI.md"}, ""
		return
	}
	s.geminiNames, s.geminiProblem = parseGeminiSettings(data)
}

// parseGeminiSettings returns the context file names the text of a
// .gemini/settings.json gives, GEMINI.md when it gives none, and why it
// cannot be used, or "".
func parseGeminiSettings(data []byte) (names []string, problem string) {
	names = []string{"GEMINI.md"}
	// Gemini CLI reads its settings as JSON with comments.
	root, off, err := parseJSON(data)
	if err != nil {
		if r2, _, err2 := parseJSON(stripJSONC(data)); err2 == nil {
			root, err = r2, nil
		}
	}
	if err != nil {
		return names, fmt.Sprintf("line %d is not valid JSON (%v)", lineAt(data, off), err)
	}
	if p, ok := geminiFileNameProblem(root); ok {
		return names, fmt.Sprintf("line %d: %s", lineAt(data, p.span.Start), p.msg)
	}
	v, _ := root.get("context")
	given, _ := v.get("fileName")
	var many []string
	switch {
	case given == nil:
	case given.kind == '"':
		many = []string{given.str}
	default:
		for _, it := range given.items {
			many = append(many, it.str)
		}
	}
	many = slices.DeleteFunc(many, func(n string) bool { return n == "" || strings.ContainsAny(n, `/\`) })
	if len(many) > 0 {
		names = many
	}
	return names, ""
}

// geminiFileNameProblem reports a context.fileName of Gemini CLI's
// settings that is not what its configuration reference documents: a
// file name or a list of file names.
func geminiFileNameProblem(root *jnode) (tomlProblem, bool) {
	v, _ := root.get("context")
	names, k := v.get("fileName")
	if k == nil || names.kind == '"' || names.kind == 'n' {
		return tomlProblem{}, false
	}
	if names.kind != '[' {
		return tomlProblem{names.span, fmt.Sprintf("context.fileName must be a file name or a list of file names, as [\"AGENTS.md\", \"GEMINI.md\"], not %s", kindName(names.kind))}, true
	}
	for _, it := range names.items {
		if it.kind != '"' {
			return tomlProblem{it.span, fmt.Sprintf("each entry of context.fileName must be a file name in quotes, not %s", kindName(it.kind))}, true
		}
	}
	return tomlProblem{}, false
}

// GeminiSettingsProblem says why the project's .gemini/settings.json
// cannot be used for the context file names, with the line, or "" when it
// can (or there is none): GEMINI.md is then the name.
func (s *Set) GeminiSettingsProblem() string {
	if s.geminiProblem == "" {
		return ""
	}
	return geminiSettingsFile + " " + s.geminiProblem
}

// GeminiNames returns the names of Gemini CLI's context files: GEMINI.md,
// or those of context.fileName in .gemini/settings.json.
func (s *Set) GeminiNames() []string { return s.geminiNames }

// isGeminiName reports whether Gemini CLI reads files of that name.
func (s *Set) isGeminiName(base string) bool { return slices.Contains(s.geminiNames, base) }

// GeminiTree returns what loading a Gemini CLI context file brings in, as
// Gemini CLI follows @file imports: relative to the importing file, each
// file once, a cycle skipped, up to limits.geminiImportDepth hops, nothing
// inside code. counter may be nil.
func (s *Set) GeminiTree(ctx context.Context, f *File, counter tokens.Counter) (*imports.Tree, error) {
	opt := s.GeminiOptions(counter)
	opt.Read = func(p string) ([]byte, error) {
		if p == f.Path {
			return f.Text, nil
		}
		return imports.ReadFile(opt.Guard, p)
	}
	return imports.Build(ctx, f.Path, opt)
}

// GeminiOptions returns the options of import trees as Gemini CLI
// follows them (see GeminiTree), reading files from disk; counter may be
// nil.
func (s *Set) GeminiOptions(counter tokens.Counter) imports.Options {
	return imports.Options{Root: s.Root, Guard: s.Guard(), MaxHops: s.cfg.Limits.GeminiImportDepth, Counter: counter}
}

// IsGeminiFile reports whether the file at p is one of Gemini CLI's
// context files: GEMINI.md, or a name of context.fileName, in any folder.
func (s *Set) IsGeminiFile(p string) bool {
	f, ok := s.File(p)
	return ok && f.Skipped == "" && f.Kind == KindAgentsMd && s.isGeminiName(filepath.Base(p))
}

// GeminiFiles returns Gemini CLI's context files of the set, by path.
func (s *Set) GeminiFiles() []*File {
	var out []*File
	for _, f := range s.Files {
		if s.IsGeminiFile(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

// geminiImports reports the imports of a Gemini CLI context file that
// load nothing: a file that is not there, or one that leads back to a file
// importing it.
func (c *checker) geminiImports() {
	t, err := c.s.GeminiTree(context.Background(), c.f, nil)
	if err != nil {
		return
	}
	root := t.Root()
	for _, e := range root.Imports {
		switch e.Status {
		case imports.Missing:
			c.add(e.Span, diag.GeminiImportMissing, "@%s names no file (looked for %s); Gemini CLI puts an error comment in its place", e.Path, c.s.show(e.Target))
		case imports.Cycle:
			c.add(e.Span, diag.GeminiImportCycle, "@%s leads back to %s, which imports it; Gemini CLI skips it", e.Path, c.s.show(e.Target))
		}
	}
	// A problem of an imported file is reported at the import of this file
	// that leads to it: the imported file is no agent file of its own.
	var loaded []imports.Edge
	for _, e := range root.Imports {
		if e.Status == imports.Loaded {
			loaded = append(loaded, e)
		}
	}
	top := -1
	for _, f := range t.Files[1:] {
		if f.Hop == 1 {
			top++
		}
		if top < 0 || top >= len(loaded) {
			break
		}
		for _, e := range f.Imports {
			switch e.Status {
			case imports.Missing:
				c.add(loaded[top].Span, diag.GeminiImportMissing, "@%s loads %s, whose @%s names no file (looked for %s)", loaded[top].Path, c.s.show(f.Path), e.Path, c.s.show(e.Target))
			case imports.Cycle:
				c.add(loaded[top].Span, diag.GeminiImportCycle, "@%s loads %s, whose @%s leads back to %s; Gemini CLI skips it", loaded[top].Path, c.s.show(f.Path), e.Path, c.s.show(e.Target))
			}
		}
	}

}

// show returns an absolute path relative to the workspace root, with
// forward slashes, when it lies inside.
func (s *Set) show(p string) string {
	if r, ok := fsguard.Rel(s.Root, p); ok {
		return r
	}
	return p
}
