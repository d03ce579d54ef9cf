package memory

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// snippet is a piece of code a memory file shows: an inline code span or
// a line of a shell code block.
type snippet struct {
	text  string
	start int // offset of text in the file
	fence bool
}

// shellInfos are the info strings of code blocks that hold commands.
var shellInfos = map[string]bool{"": true, "sh": true, "bash": true, "shell": true, "console": true, "zsh": true,
	"terminal": true, "shellsession": true, "fish": true, "cmd": true, "text": true}

// snippets returns the inline code spans of doc's body and the lines of
// its shell code blocks.
func snippets(doc *document.Doc) []snippet {
	var out []snippet
	for _, f := range doc.Fences {
		info, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(f.Info)), " ")
		if !shellInfos[info] || f.Inner.Start < doc.Body.Start {
			continue
		}
		for n := doc.Lines.LineOf(f.Inner.Start); n < doc.Lines.Count() && doc.Lines.Start(n) < f.Inner.End; n++ {
			start := doc.Lines.Start(n)
			line := string(doc.Lines.Line(n))
			trimmed := strings.TrimLeft(line, " \t")
			start += len(line) - len(trimmed)
			for _, prompt := range []string{"$ ", "> ", "% "} {
				if rest, ok := strings.CutPrefix(trimmed, prompt); ok {
					start += len(prompt)
					trimmed = rest
				}
			}
			if i := strings.Index(trimmed, " #"); i >= 0 {
				trimmed = trimmed[:i]
			}
			if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				out = append(out, snippet{text: trimmed, start: start, fence: true})
			}
		}
	}
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		if _, in := doc.InFence(start); in {
			continue
		}
		line := doc.Lines.Line(n)
		for _, s := range document.CodeSpans(doc.Text, document.Span{Start: start, End: start + len(line)}) {
			out = append(out, snippet{text: string(doc.Text[s.Start:s.End]), start: s.Start})
		}
	}
	return out
}

var (
	// commandSep splits a shell line into commands.
	commandSep = regexp.MustCompile(`&&|\|\||[;|]`)
	wordRE     = regexp.MustCompile(`\S+`)
	// placeholder matches a word meant to be replaced, or one the shell
	// expands.
	placeholder = regexp.MustCompile("[<>\\[\\]{}$*`'\"…]|\\.\\.\\.")
)

// word is a word of a command and its offset in the file.
type word struct {
	s   string
	off int
}

// promises returns the diagnostics of what the memory file f says of the
// repository: commands it runs that nothing defines, and paths in code
// spans that name nothing.
func promises(r *repo, file, rel string, doc *document.Doc) []diag.Diagnostic {
	base := path.Dir(rel)
	var out []diag.Diagnostic
	add := func(s document.Span, sev diag.Severity, code, format string, args ...any) {
		out = append(out, diag.Diagnostic{Path: file, Span: s, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	for _, sn := range snippets(doc) {
		dir := base
		cmds := splitCommands(sn)
		for _, ws := range cmds {
			if len(ws) == 0 {
				continue
			}
			if ws[0].s == "cd" {
				if len(ws) != 2 || placeholder.MatchString(ws[1].s) || strings.HasPrefix(ws[1].s, "/") || strings.HasPrefix(ws[1].s, "~") || strings.HasPrefix(ws[1].s, "-") {
					break // somewhere this check cannot follow
				}
				dir = path.Join(dir, ws[1].s)
				if !r.exists(dir) {
					break
				}
				continue
			}
			if p, ok := r.undefined(dir, ws); ok {
				add(document.Span{Start: p.at.off, End: p.at.off + len(p.at.s)}, diag.Default(diag.MemoryCommandUndefined), diag.MemoryCommandUndefined, "%s", p.msg)
			}
		}
		if !sn.fence && len(cmds) == 1 && len(cmds[0]) == 1 {
			if d, ok := r.missingPath(base, sn); ok {
				d.Path = file
				out = append(out, d)
			}
		}
	}
	return out
}

// splitCommands splits a snippet into its commands' words.
func splitCommands(sn snippet) [][]word {
	var out [][]word
	prev := 0
	idx := append(commandSep.FindAllStringIndex(sn.text, -1), []int{len(sn.text), len(sn.text)})
	for _, m := range idx {
		part := sn.text[prev:m[0]]
		var ws []word
		for _, w := range wordRE.FindAllStringIndex(part, -1) {
			ws = append(ws, word{part[w[0]:w[1]], sn.start + prev + w[0]})
		}
		// Leading VAR=value assignments and sudo are not the command.
		for len(ws) > 0 && (strings.Contains(ws[0].s, "=") && !strings.HasPrefix(ws[0].s, "-") || ws[0].s == "sudo") {
			ws = ws[1:]
		}
		out = append(out, ws)
		prev = m[1]
	}
	return out
}

// problem is a command that runs what nothing defines.
type problem struct {
	at  word
	msg string
}

// undefined reports a command run in dir that names a script, target or
// recipe nothing defines. It says nothing when it cannot be sure: a flag
// it does not know, a placeholder, a name a tool runs without a script.
func (r *repo) undefined(dir string, ws []word) (problem, bool) {
	tool := ws[0].s
	switch tool {
	case "npm", "pnpm", "yarn", "bun":
		return r.script(dir, tool, ws[1:])
	case "make", "gmake":
		return r.makeTarget(dir, ws[1:])
	case "just":
		return r.justRecipe(dir, ws[1:])
	}
	return problem{}, false
}

// script checks a package manager's command that runs a script of
// package.json.
func (r *repo) script(dir, tool string, args []word) (problem, bool) {
	if len(args) == 0 || strings.HasPrefix(args[0].s, "-") {
		return problem{}, false // a flag (a workspace filter, a folder) before the command
	}
	var name word
	sub := args[0].s
	switch {
	case sub == "run" || (tool == "npm" && sub == "run-script"):
		if len(args) < 2 || strings.HasPrefix(args[1].s, "-") {
			return problem{}, false
		}
		name = args[1]
		// yarn run and bun run also run the package's binaries and files.
		if (tool == "yarn" || tool == "bun") && !strings.Contains(name.s, ":") {
			return problem{}, false
		}
	case sub == "test" || sub == "t" && tool == "npm":
		if tool == "bun" {
			return problem{}, false // bun's own test runner
		}
		name = word{"test", args[0].off}
	case sub == "start" && tool != "bun":
		name = args[0]
	case tool != "npm" && strings.Contains(sub, ":"):
		name = args[0] // pnpm test:e2e, yarn lint:fix: a script, no command has a colon
	default:
		return problem{}, false
	}
	for _, a := range args[1:] {
		switch a.s {
		case "-w", "--workspace", "--workspaces", "-ws", "--if-present", "-r", "--recursive", "--filter", "-F", "--prefix", "-C", "--dir":
			return problem{}, false
		}
		if strings.HasPrefix(a.s, "--workspace=") || strings.HasPrefix(a.s, "--filter=") || strings.HasPrefix(a.s, "--prefix=") {
			return problem{}, false
		}
	}
	if placeholder.MatchString(name.s) {
		return problem{}, false
	}
	scripts, ok := r.nearestScripts(dir)
	if !ok || scripts[name.s] {
		return problem{}, false
	}
	if name.s == "start" {
		if r.exists(path.Join(dir, "server.js")) {
			return problem{}, false // npm start runs node server.js without a script
		}
	}
	if r.someScript(name.s) {
		return problem{}, false // a script of one package of the workspace, run there
	}
	return problem{name, fmt.Sprintf("%s runs the script %q, which no package.json of the repository defines (the nearest is %s)",
		commandText(tool, args), name.s, path.Join(r.nearestPkgDir(dir), "package.json"))}, true
}

func (r *repo) nearestPkgDir(dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if _, ok := r.scripts(d); ok || d == "." || d == "/" {
			return d
		}
	}
}

func commandText(tool string, args []word) string {
	s := tool
	for i, a := range args {
		if i == 2 {
			break
		}
		s += " " + a.s
	}
	return s
}

// makeTarget checks the targets of a make command against the Makefile
// of the folder it runs in.
func (r *repo) makeTarget(dir string, args []word) (problem, bool) {
	var targets []word
	for i := 0; i < len(args); i++ {
		a := args[i].s
		switch {
		case a == "-C" && i+1 < len(args):
			if placeholder.MatchString(args[i+1].s) {
				return problem{}, false
			}
			dir = path.Join(dir, args[i+1].s)
			i++
		case a == "-f" || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "--makefile"):
			return problem{}, false
		case strings.HasPrefix(a, "-"):
			if a == "-j" || a == "-l" || a == "-o" || a == "-W" || a == "-I" {
				i++ // a flag with a value
			}
		case strings.Contains(a, "="):
		default:
			targets = append(targets, args[i])
		}
	}
	m := r.makeTargets(dir)
	if m == nil || m.open {
		return problem{}, false
	}
	for _, t := range targets {
		// A target with a dot or a slash may be a file an implicit rule
		// makes.
		if placeholder.MatchString(t.s) || strings.ContainsAny(t.s, "./") || m.names[t.s] {
			continue
		}
		return problem{t, fmt.Sprintf("make %s names a target that %s does not define", t.s, path.Join(dir, "Makefile"))}, true
	}
	return problem{}, false
}

// justRecipe checks the recipe of a just command against the justfile
// just finds.
func (r *repo) justRecipe(dir string, args []word) (problem, bool) {
	if len(args) == 0 || strings.HasPrefix(args[0].s, "-") || placeholder.MatchString(args[0].s) || strings.Contains(args[0].s, "::") {
		return problem{}, false
	}
	j := r.justRecipes(dir)
	if j == nil || j.open || j.names[args[0].s] {
		return problem{}, false
	}
	return problem{args[0], fmt.Sprintf("just %s names a recipe that the justfile does not define", args[0].s)}, true
}

// repoPathRE matches a code span that is a relative path of two segments
// or more.
var repoPathRE = regexp.MustCompile(`^(?:\./)?[A-Za-z0-9_@][A-Za-z0-9_.@+-]*(?:/[A-Za-z0-9_.@+-]+)+/?$`)

// missingPath reports a code span that clearly is a path of the
// repository (two segments or more, the first of which exists next to
// the memory file or at the root) and names nothing. It is a warning when
// the only file of that name lies elsewhere (it moved), a hint otherwise.
func (r *repo) missingPath(base string, sn snippet) (diag.Diagnostic, bool) {
	p := sn.text
	if !repoPathRE.MatchString(p) || strings.Contains(p, "..") || strings.Contains(p, "//") || strings.HasPrefix(path.Base(p), ".env") {
		return diag.Diagnostic{}, false
	}
	p = strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
	first, _, _ := strings.Cut(p, "/")
	var rel string
	switch {
	case r.exists(path.Join(base, first)):
		rel = path.Join(base, p)
	case r.exists(first):
		rel = p
	default:
		return diag.Diagnostic{}, false
	}
	if r.exists(rel) || (base != "." && r.exists(p)) || r.mayBeGenerated(rel) {
		return diag.Diagnostic{}, false
	}
	name := path.Base(rel)
	msg := fmt.Sprintf("%s names nothing in the repository (looked for %s)", sn.text, rel)
	sev := diag.Hint
	// One file of that name elsewhere: it moved. A name many files have
	// (index.ts, main.c) or a dotfile (.env) says nothing of where.
	if others := r.sameName(name); len(others) == 1 && strings.Contains(name, ".") && !strings.HasPrefix(name, ".") {
		sev = diag.Warning
		msg += fmt.Sprintf("; the only file of that name is %s", others[0])
	}
	return diag.Diagnostic{Span: document.Span{Start: sn.start, End: sn.start + len(sn.text)}, Severity: sev, Code: diag.MemoryPathMissing, Message: msg}, true
}
