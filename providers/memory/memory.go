// Package memory knows Claude Code memory files: CLAUDE.md,
// CLAUDE.local.md and .claude/CLAUDE.md in any folder, and the rules
// under .claude/rules, which load at start unless `paths` globs attach
// them to the files they match. It checks them (imports, size, rule
// globs) with codes of the rules table, and says which load at the start
// of a session. It also checks what they and AGENTS.md promise about the
// repository: the scripts, make targets and just recipes they tell the
// agent to run, the paths they name, and paragraphs a session loads twice.
package memory

import (
	"os"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/config"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/imports"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Kind is a kind of memory file.
type Kind int

// Kinds of memory files.
const (
	// NotMemory is any other file.
	NotMemory Kind = iota
	// Project is CLAUDE.md or .claude/CLAUDE.md at the project root.
	Project
	// Local is CLAUDE.local.md at the project root (personal, not
	// committed).
	Local
	// Nested is a CLAUDE.md or CLAUDE.local.md in a subfolder, which
	// loads when the agent reads files there.
	Nested
	// Rule is a markdown file under .claude/rules.
	Rule
)

var kindNames = [...]string{"not memory", "project memory", "local memory", "nested memory", "rule"}

func (k Kind) String() string { return kindNames[k] }

// Classify returns the kind of the file at rel, slash-separated and
// relative to the project root.
func Classify(rel string) Kind {
	rel = path.Clean(rel)
	base, dir := path.Base(rel), path.Dir(rel)
	top := dir == "." || dir == ".claude"
	switch {
	case base == "CLAUDE.md" && top:
		return Project
	case base == "CLAUDE.local.md" && dir == ".":
		return Local
	case base == "CLAUDE.md", base == "CLAUDE.local.md" && path.Base(dir) != ".claude":
		return Nested
	case strings.HasSuffix(base, ".md") && (strings.HasPrefix(rel, ".claude/rules/") || strings.Contains(rel, "/.claude/rules/")):
		return Rule
	}
	return NotMemory
}

// IsMemory reports whether rel names a memory file or a rule.
func IsMemory(rel string) bool { return Classify(rel) != NotMemory }

// Counter returns the tokenizer memory files are counted in: Claude Code
// loads them, and Claude Code runs Claude models, so the newest Claude
// family's, as ctxls cost --agent claude counts them.
func Counter() tokens.Counter {
	c, err := tokens.New(tokens.Claude)
	if err != nil {
		c, _ = tokens.New(tokens.Default)
	}
	return c
}

// Options returns the import tree options a configuration sets, for the
// project at root.
func Options(cfg *config.Config, root string, counter tokens.Counter) imports.Options {
	home, _ := os.UserHomeDir()
	opt := imports.Options{Root: root, Home: home, Counter: counter}
	if cfg != nil {
		opt.MaxHops = cfg.Limits.ImportDepth
		opt.MaxChars = cfg.Limits.MemoryChars
	}
	return opt
}

// pathPrefixAt returns where the path being typed at off starts, when off
// is in the path of an @import or of a markdown link target "](...".
func pathPrefixAt(doc *document.Doc, off int) (int, bool) {
	if off < doc.Body.Start || off > len(doc.Text) {
		return 0, false
	}
	if _, in := doc.InFence(off); in {
		return 0, false
	}
	lineStart := doc.Lines.Start(doc.Lines.LineOf(off))
	i := off
	for i > lineStart {
		r, w := utf8.DecodeLastRune(doc.Text[lineStart:i])
		if unicode.IsSpace(r) || r == '@' || r == '(' || r == '`' {
			break
		}
		i -= w
	}
	if i == lineStart {
		return 0, false
	}
	switch doc.Text[i-1] {
	case '@':
		at := i - 1
		if at == lineStart || isSpaceBefore(doc.Text[lineStart:at]) {
			if strings.Count(string(doc.Text[lineStart:at]), "`")%2 == 0 {
				return i, true
			}
		}
	case '(':
		if i >= lineStart+2 && doc.Text[i-2] == ']' {
			return i, true
		}
	}
	return 0, false
}

func isSpaceBefore(b []byte) bool {
	r, _ := utf8.DecodeLastRune(b)
	return unicode.IsSpace(r)
}
