package agentfiles

import (
	"bytes"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/mdlink"
)

// FileRef is a place in an agent file that names another file of the
// project, one that is there: a markdown link, a Kiro #[[file:…]]
// reference, an entry of OpenCode's instructions, the custom agent a
// Copilot prompt runs with.
type FileRef struct {
	// Span covers what names the file, as written.
	Span document.Span
	// Target is the file's absolute path.
	Target string
	// What says how the file is named: "link", "file reference",
	// "instructions entry" or "custom agent".
	What string

	// path covers the path as written, when moving the file can be
	// followed by writing another: not a link written with escapes, and
	// a custom agent's name only when it is the file's. base is the
	// folder it is relative to.
	path document.Span
	base string
}

// maxFileRefs bounds the references of one file looked for on disk,
// which a generated file may hold by the hundred thousand.
const maxFileRefs = 5000

// kiroFileRef is Kiro's reference to a file of the workspace in a
// steering file, which Kiro reads into the steering file's place.
var kiroFileRef = regexp.MustCompile(`#\[\[file:([^\]\n]+)\]\]`)

// FileRefs returns the places in text, the editor's text of the agent
// file at the absolute path p, that name files of the project which are
// there, in order. The @imports of memory and Gemini CLI context files
// are the import trees' (see GeminiTree), not listed here.
func (s *Set) FileRefs(p string, text []byte) []FileRef {
	rel, ok := fsguard.Rel(s.Root, p)
	if !ok {
		return nil
	}
	k := s.kindOf(p, rel)
	if k == KindUnknown {
		return nil
	}
	var out []FileRef
	tried := 0 // each try looks at the disk: a file of many links is cut
	add := func(span document.Span, target, what string) {
		if tried++; tried <= maxFileRefs && s.isFile(target) {
			out = append(out, FileRef{Span: span, Target: target, What: what})
		}
	}
	// written marks the last reference added as one whose path, at span
	// and relative to base, a move can rewrite.
	written := func(n int, span document.Span, base string) {
		if len(out) > n {
			out[n].path, out[n].base = span, base
		}
	}
	switch {
	case k == KindOpenCodeConfig:
		root, _, err := parseJSON(text)
		if err != nil {
			return nil
		}
		v, _ := root.get("instructions")
		if v == nil || v.kind != '[' {
			return nil
		}
		for _, it := range v.items {
			q := strings.TrimPrefix(it.str, "./")
			if it.kind != '"' || strings.ContainsAny(q, "*?[{") || strings.Contains(q, "://") || path.IsAbs(q) || fsguard.Climbs(q) {
				continue
			}
			n := len(out)
			add(it.span, filepath.Join(s.Root, filepath.FromSlash(q)), "instructions entry")
			if inner := (document.Span{Start: it.span.Start + 1, End: it.span.End - 1}); inner.End > inner.Start && string(text[inner.Start:inner.End]) == it.str {
				written(n, inner, s.Root)
			}
		}
		return out
	case k.isJSON():
		return nil
	}
	doc := document.Parse(p, text)
	if k == KindCopilotPrompt {
		if root := doc.Frontmatter.Root(); root.Exists() {
			if name, _, v := str(root, "agent"); v.Exists() && isString(v) {
				if f := s.copilotAgentNamed(name); f != nil {
					n := len(out)
					add(doc.ValueSpan(v), f.Path, "custom agent")
					if sp := doc.ValueSpan(v); f.Meta.Name != name && string(text[sp.Start:sp.End]) == name {
						// Named by its file: a new file name is a new name.
						written(n, sp, "")
					}
				}
			}
		}
	}
	dir := filepath.Dir(p)
	if k == KindKiroSteering {
		for _, r := range kiroRefs(doc) {
			// Kiro documents the path from the workspace root; one from the
			// steering file's folder is tried after it.
			for _, base := range []string{s.Root, dir} {
				target := filepath.Join(base, filepath.FromSlash(r.path))
				if s.isFile(target) {
					n := len(out)
					add(r.span, target, "file reference")
					if r.path == string(text[r.span.Start:r.span.End]) {
						written(n, r.span, base)
					}
					break
				}
			}
		}
	}
	for _, l := range mdlink.Links(doc) {
		if l.Path == "" {
			continue
		}
		n := len(out)
		add(l.Span, filepath.Join(dir, filepath.FromSlash(l.Path)), "link")
		if raw := string(text[l.Span.Start:l.Span.End]); strings.HasPrefix(raw, l.Path) {
			written(n, document.Span{Start: l.Span.Start, End: l.Span.Start + len(l.Path)}, dir)
		}
	}
	return sortRefs(out)
}

// kiroRef is a #[[file:…]] reference of a Kiro steering file.
type kiroRef struct {
	span document.Span // the path as written
	path string        // the path, trimmed
}

// kiroRefs returns the #[[file:…]] references of a steering file's body,
// outside code blocks and code spans, where they describe the syntax.
func kiroRefs(doc *document.Doc) []kiroRef {
	text := doc.Text
	var out []kiroRef
	for _, m := range kiroFileRef.FindAllSubmatchIndex(text[doc.Body.Start:], maxFileRefs) {
		open, start, end := doc.Body.Start+m[0], doc.Body.Start+m[2], doc.Body.Start+m[3]
		if _, in := doc.InFence(open); in {
			continue
		}
		lineStart := bytes.LastIndexByte(text[:open], '\n') + 1
		if bytes.Count(text[lineStart:open], []byte("`"))%2 == 1 {
			continue // inside a code span
		}
		q := strings.TrimSpace(string(text[start:end]))
		if q == "" {
			continue
		}
		out = append(out, kiroRef{span: document.Span{Start: start, End: end}, path: q})
	}
	return out
}

func sortRefs(refs []FileRef) []FileRef {
	slices.SortStableFunc(refs, func(a, b FileRef) int { return a.Span.Start - b.Span.Start })
	return refs
}

// kindOf is the kind of the file at p: the set's when it holds the file,
// else what its path says.
func (s *Set) kindOf(p, rel string) Kind {
	if f, ok := s.File(p); ok {
		return f.Kind
	}
	return Classify(rel, nil)
}

// isFile reports whether p is a regular file ctxls may read: in the
// workspace, links included.
func (s *Set) isFile(p string) bool {
	_, err := s.Guard().Check(p)
	return err == nil
}

// copilotAgentNamed returns the custom agent (or chat mode) a prompt's
// agent names: by its name field, else by its file name.
func (s *Set) copilotAgentNamed(name string) *File {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	var byFile *File
	for _, f := range s.Files {
		if f.Kind != KindCopilotAgent && f.Kind != KindCopilotChatMode {
			continue
		}
		if f.Meta.Name == name {
			return f
		}
		if byFile == nil && copilotAgentName(f.Rel) == name {
			byFile = f
		}
	}
	return byFile
}

// copilotAgentName is a custom agent's name by its file: the file name
// without .agent.md, .chatmode.md or .md.
func copilotAgentName(rel string) string {
	base := path.Base(rel)
	for _, ext := range []string{".agent.md", ".chatmode.md", ".md"} {
		if b, ok := strings.CutSuffix(base, ext); ok {
			return b
		}
	}
	return base
}

// copilotAgentCompletions lists the project's custom agents by the names
// a prompt's agent takes, with their descriptions.
func (s *Set) copilotAgentCompletions() []Completion {
	var out []Completion
	seen := map[string]bool{}
	for _, f := range s.Files {
		if f.Kind != KindCopilotAgent && f.Kind != KindCopilotChatMode {
			continue
		}
		name := f.Meta.Name
		if name == "" {
			name = copilotAgentName(f.Rel)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, Completion{Label: name, Insert: name, Detail: "custom agent · " + f.Rel, Doc: f.Meta.Description, Value: true})
	}
	slices.SortFunc(out, func(a, b Completion) int { return strings.Compare(a.Label, b.Label) })
	return out
}

// Move is a file or folder moving, by absolute paths.
type Move struct{ Old, New string }

// movedTo returns where p is once the moves are done: p itself when no
// move concerns it.
func movedTo(p string, moves []Move) string {
	for _, m := range moves {
		if p == m.Old {
			return m.New
		}
		if rest, ok := strings.CutPrefix(p, m.Old+string(filepath.Separator)); ok {
			return filepath.Join(m.New, rest)
		}
	}
	return p
}

// RenameEdits returns, by file, the edits that keep the references of the
// set's agent files to files of the project (see FileRefs) leading to the
// same files once the moves are done: references to a moved file, and the
// relative references a moved file makes. read gives a file's text, the
// editor's when it has one. A path written from the project root stays
// so; one written with ./ keeps it.
func (s *Set) RenameEdits(moves []Move, read func(p string) ([]byte, error)) map[string][]diag.Edit {
	if len(moves) == 0 {
		return nil
	}
	out := map[string][]diag.Edit{}
	for _, f := range s.Files {
		if f.Skipped != "" || (f.Kind.isJSON() && f.Kind != KindOpenCodeConfig) {
			continue
		}
		text, err := read(f.Path)
		if err != nil {
			continue
		}
		dir, newDir := filepath.Dir(f.Path), filepath.Dir(movedTo(f.Path, moves))
		for _, r := range s.FileRefs(f.Path, text) {
			if r.path.End <= r.path.Start {
				continue
			}
			if r.What == "custom agent" {
				if name := copilotAgentName(filepath.ToSlash(movedTo(r.Target, moves))); movedTo(r.Target, moves) != r.Target && name != string(text[r.path.Start:r.path.End]) {
					out[f.Path] = append(out[f.Path], diag.Edit{Span: r.path, NewText: name})
				}
				continue
			}
			newBase := r.base
			if r.base == dir {
				newBase = newDir
			}
			newTarget := movedTo(r.Target, moves)
			if newTarget == r.Target && newBase == r.base {
				continue
			}
			rel, err := filepath.Rel(newBase, newTarget)
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(rel)
			old := string(text[r.path.Start:r.path.End])
			if strings.HasPrefix(old, "./") && !strings.HasPrefix(rel, "../") {
				rel = "./" + rel
			}
			if rel == old || strings.ContainsAny(rel, " ()<>") {
				continue
			}
			out[f.Path] = append(out[f.Path], diag.Edit{Span: r.path, NewText: rel})
		}
	}
	return out
}
