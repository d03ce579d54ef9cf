package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/ctxls/ctxls/internal/testtree"
)

// The recall corpus: each seed injects one defect of one rule into a file
// of a real repository (a copy of it), and check must report that rule at
// the seeded line and nothing else new. TestRecallFixture seeds the
// committed repository under testdata/recall, where every seed must be
// found; TestRecallWild seeds the real repositories CTXLS_WILD names and
// prints recall per rule:
//
//	CTXLS_WILD=/tmp/wild go test -run TestRecallWild -v ./cmd/ctxls
//
// CTXLS_WILD is a folder of repositories, each either NAME/NAME (a
// checkout's files) or NAME.tar.gz (an archive of a NAME folder). The
// originals are never written: every repository is copied first.

// seed is one defect of one rule.
type seed struct {
	// code is the rule check must report.
	code string
	// what names the defect in the report.
	what string
	// host says whether a file (slash path relative to the repository)
	// is one the defect can go into.
	host func(rel string) bool
	// also are the codes the defect rightly brings at the same line too
	// (a name that is not kebab-case differs from its folder as well).
	also []string
	// inject returns the file's text with the defect and the line check
	// must report it at, or false when this file cannot take it.
	inject func(h *hostFile) (string, int, bool)
}

// hostFile is a file a seed may go into.
type hostFile struct {
	root string // the repository copy
	rel  string // slash path relative to root
	text string
}

// exists says whether the slash path rel (relative to the repository)
// names a file or folder.
func (h *hostFile) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(h.root, filepath.FromSlash(rel)))
	return err == nil
}

// lines splits text into lines without their line endings; a final
// newline ends the last line rather than starting an empty one.
func lines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// appendLines adds lines at the end of text, after an empty line, and
// returns the line number of the first.
func appendLines(text string, add ...string) (string, int) {
	ls := lines(text)
	out := append(slices.Clone(ls), "")
	out = append(out, add...)
	return strings.Join(out, "\n") + "\n", len(ls) + 2
}

// frontmatter returns the line indexes (0-based) of a file's opening and
// closing "---", or false when it has none.
func frontmatter(ls []string) (int, int, bool) {
	if len(ls) == 0 || strings.TrimRight(ls[0], " \r") != "---" {
		return 0, 0, false
	}
	for i := 1; i < len(ls); i++ {
		if strings.TrimRight(ls[i], " \r") == "---" {
			return 0, i, true
		}
	}
	return 0, 0, false
}

// fieldLine returns the 0-based index of the frontmatter line that sets
// key at the top level, or -1.
func fieldLine(ls []string, end int, key string) int {
	for i := 1; i < end; i++ {
		if strings.HasPrefix(ls[i], key+":") {
			return i
		}
	}
	return -1
}

// setField sets a top-level frontmatter field to the raw YAML value,
// replacing its value or adding the field as the frontmatter's first, and
// returns the field's line number. A block scalar (| or >) is left, and
// false returned.
func setField(text, key, value string) (string, int, bool) {
	ls := lines(text)
	_, end, ok := frontmatter(ls)
	if !ok {
		return "", 0, false
	}
	i := fieldLine(ls, end, key)
	if i < 0 {
		ls = slices.Insert(ls, 1, key+": "+value)
		return strings.Join(ls, "\n") + "\n", 2, true
	}
	// A value over several lines (a block list or map) is replaced whole.
	j := i + 1
	for j < end && (strings.HasPrefix(ls[j], " ") || strings.HasPrefix(ls[j], "- ")) {
		j++
	}
	if v := strings.TrimSpace(strings.TrimPrefix(ls[i], key+":")); v != "" && strings.ContainsAny(v[:1], "|>") {
		return "", 0, false
	}
	ls = slices.Delete(ls, i+1, j)
	ls[i] = key + ": " + value
	return strings.Join(ls, "\n") + "\n", i + 1, true
}

// dropField removes a one-line top-level frontmatter field, and returns
// the text and the line of the opening "---".
func dropField(text, key string) (string, int, bool) {
	ls := lines(text)
	_, end, ok := frontmatter(ls)
	if !ok {
		return "", 0, false
	}
	i := fieldLine(ls, end, key)
	if i < 0 || i+1 < end && strings.HasPrefix(ls[i+1], " ") {
		return "", 0, false
	}
	ls = slices.Delete(ls, i, i+1)
	return strings.Join(ls, "\n") + "\n", 1, true
}

// insertMember puts a JSON object member (such as `"x": 1`) first in the
// object that follows the key `"in"`, or in the top-level object when in
// is empty, on a line of its own; it returns that line.
func insertMember(text, in, member string) (string, int, bool) {
	at := 0
	if in != "" {
		k := strings.Index(text, `"`+in+`"`)
		if k < 0 {
			return "", 0, false
		}
		at = k
	}
	open := strings.IndexByte(text[at:], '{')
	if open < 0 {
		return "", 0, false
	}
	open += at
	rest := strings.TrimLeft(text[open+1:], " \t\r\n")
	sep := ","
	if strings.HasPrefix(rest, "}") {
		sep = ""
	}
	out := text[:open+1] + "\n" + member + sep + "\n" + text[open+1:]
	return out, strings.Count(text[:open+1], "\n") + 2, true
}

// in is a host selector: a file whose slash path ends with one of the
// suffixes (a suffix starting with "/" names a folder the file is in).
func in(suffixes ...string) func(string) bool {
	return func(rel string) bool {
		p := "/" + rel
		for _, s := range suffixes {
			if strings.HasSuffix(s, "/") {
				if strings.Contains(p, s) && strings.HasSuffix(p, ".md") {
					return true
				}
				continue
			}
			if strings.HasSuffix(p, s) {
				return true
			}
		}
		return false
	}
}

// base is the file name of a slash path.
func base(rel string) string { return rel[strings.LastIndexByte(rel, '/')+1:] }

// plainMarkdown is markdown no agent loads: a README or docs page.
func plainMarkdown(rel string) bool {
	if !strings.HasSuffix(rel, ".md") || strings.HasPrefix(base(rel), ".") {
		return false
	}
	p := "/" + rel
	for _, s := range []string{"/.", "/node_modules/", "/fixtures/", "/testdata/", "/test/", "/tests/", "/__tests__/", "/snapshots/", "/skills/", "/agents/", "/commands/", "/rules/", "/prompts/"} {
		if strings.Contains(p, s) {
			return false
		}
	}
	switch base(rel) {
	case "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", "SKILL.md", "CHANGELOG.md":
		return false
	}
	return true
}

// memoryFile is a Claude Code memory file.
func memoryFile(rel string) bool { return base(rel) == "CLAUDE.md" }

// projectSkill is a skill of the project's own .claude/skills.
func projectSkill(rel string) bool {
	return strings.HasSuffix(rel, "/SKILL.md") && (strings.HasPrefix(rel, ".claude/skills/") || strings.HasPrefix(rel, ".agents/skills/"))
}

// anySkill is any skill.
func anySkill(rel string) bool { return strings.HasSuffix(rel, "/SKILL.md") }

// specSkill is a skill that agents following the Agent Skills
// specification read (Copilot's .github/skills), held to its limits; a
// project's own skill is held to Claude Code's rules, one under .agents
// to Codex's.
func specSkill(rel string) bool { return anySkill(rel) && strings.HasPrefix(rel, ".github/skills/") }

// specProjectSkill is a project's skill that agents following the Agent
// Skills specification load from where it lies (Codex's .agents/skills,
// Copilot's .github/skills), where a name that differs from the folder
// matters; Claude Code names a skill by its name and needs no match.
func specProjectSkill(rel string) bool {
	return strings.HasSuffix(rel, "/SKILL.md") && (strings.HasPrefix(rel, ".agents/skills/") || strings.HasPrefix(rel, ".github/skills/"))
}

// strictSkill is a skill that an agent whose frontmatter loader does not
// quote values as Claude Code's does loads from where it lies: Codex's
// .agents/skills (and .codex/skills) and OpenCode's .opencode/skills.
func strictSkill(rel string) bool {
	p := "/" + rel
	return strings.HasSuffix(rel, "/SKILL.md") && (strings.Contains(p, "/.agents/skills/") || strings.Contains(p, "/.codex/skills/") ||
		strings.Contains(p, "/.opencode/skills/") || strings.Contains(p, "/.opencode/skill/"))
}

// specAudience reports whether the skill h is read by agents that follow
// the Agent Skills specification, whose rules (string metadata values)
// matter to them: not a skill of .claude/skills, nor of a Claude Code
// plugin, which only Claude Code loads and which ignores metadata. A
// plugin is a folder with .claude-plugin/plugin.json, or one a
// marketplace above it names as a plugin's source.
func specAudience(h *hostFile) bool {
	if strings.HasPrefix(h.rel, ".claude/") || strings.Contains(h.rel, "/.claude/") {
		return false
	}
	for dir := path.Dir(h.rel); ; dir = path.Dir(dir) {
		if h.exists(path.Join(dir, ".claude-plugin", "plugin.json")) {
			return false
		}
		var m struct {
			Plugins []struct {
				Source any `json:"source"`
			} `json:"plugins"`
		}
		if b, err := os.ReadFile(filepath.Join(h.root, filepath.FromSlash(dir), ".claude-plugin", "marketplace.json")); err == nil && json.Unmarshal(b, &m) == nil {
			for _, p := range m.Plugins {
				if src, ok := p.Source.(string); ok {
					if root := path.Join(dir, src); root == "." || strings.HasPrefix(h.rel, root+"/") {
						return false
					}
				}
			}
		}
		if dir == "." {
			return true
		}
	}
}

// cursorRule is a Cursor rule, a .mdc file of a .cursor/rules folder.
func cursorRule(rel string) bool {
	return strings.HasSuffix(rel, ".mdc") && strings.Contains("/"+rel, "/.cursor/rules/")
}

// freeEvent returns the first of Claude Code's hook events that the
// settings text does not name yet, so that a seeded hook adds an event
// rather than giving one twice (which is a defect of its own).
func freeEvent(text string, events ...string) (string, bool) {
	for _, e := range events {
		if !strings.Contains(text, `"`+e+`"`) {
			return e, true
		}
	}
	return "", false
}

// hookEvents are events a seeded hook may go on.
var hookEvents = []string{"SessionStart", "Stop", "PreToolUse", "PostToolUse", "UserPromptSubmit", "Notification", "SubagentStop", "PreCompact", "SessionEnd"}

// seedHook puts a hook with handler (and matcher, a member written with
// its comma, or "") on the first of events, or of hookEvents when none
// are given, that the settings text does not name.
func seedHook(text, handler, matcher string, events ...string) (string, int, bool) {
	if len(events) == 0 {
		events = hookEvents
	}
	ev, ok := freeEvent(text, events...)
	if !ok {
		return "", 0, false
	}
	hook := `"` + ev + `": [{ ` + matcher + `"hooks": [` + handler + `] }]`
	if strings.Contains(text, `"hooks"`) {
		return insertMember(text, "hooks", "    "+hook)
	}
	return insertMember(text, "", `  "hooks": { `+hook+` }`)
}

// subagent is a Claude Code subagent.
func subagent(rel string) bool {
	return strings.HasPrefix(rel, ".claude/agents/") && strings.HasSuffix(rel, ".md")
}

// command is a Claude Code command.
func command(rel string) bool {
	return strings.HasPrefix(rel, ".claude/commands/") && strings.HasSuffix(rel, ".md")
}

// settingsFile is a project's Claude Code settings.
func settingsFile(rel string) bool {
	return rel == ".claude/settings.json" || rel == ".claude/settings.local.json"
}

// mcpFile is a project's MCP configuration.
func mcpFile(rel string) bool { return rel == ".mcp.json" }

// seeds is every defect the corpus injects, one or more per rule that a
// repository's own files can have.
var seeds = []seed{
	{code: "markdown-link-broken", what: "broken link", host: plainMarkdown, inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "See [the notes](recall-missing-notes.md).")
		return t, n, true
	}},
	{code: "markdown-link-broken", what: "broken anchor", host: plainMarkdown, inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "See [the notes](#recall-missing-heading).")
		return t, n, true
	}},
	{code: "import-missing", what: "missing @import", host: memoryFile, inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "@docs/recall-missing.md")
		return t, n, true
	}},
	{code: "memory-path-missing", what: "missing path in a code span", host: in("CLAUDE.md", "AGENTS.md"), inject: func(h *hostFile) (string, int, bool) {
		dir := strings.TrimSuffix(strings.TrimSuffix(h.rel, base(h.rel)), "/")
		top := "src"
		for _, d := range []string{"src", "packages", "docs", "scripts", "crates", "lib"} {
			if h.exists(filepath.Join(dir, d)) {
				top = d
				break
			}
		}
		if !h.exists(filepath.Join(dir, top)) {
			return "", 0, false
		}
		t, n := appendLines(h.text, "The entry point is `"+top+"/recall-missing-entry.ts`.")
		return t, n, true
	}},
	{code: "skill-name-mismatch", what: "skill name differs from its folder", host: specProjectSkill, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "name", "recall-other-name")
	}},
	{code: "skill-name-invalid", what: "skill name not kebab-case", also: []string{"skill-name-mismatch"}, host: anySkill, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "name", "Recall_Skill")
	}},
	{code: "skill-description-too-long", what: "skill description over 1,024 characters", host: specSkill, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "description", strings.Repeat("Explain the release steps. ", 40))
	}},
	{code: "skill-link-broken", what: "skill link to a missing file", host: anySkill, inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "Read [the checklist](references/recall-missing-checklist.md) first.")
		return t, n, true
	}},
	{code: "skill-metadata-invalid", what: "skill metadata value not a string", host: anySkill, inject: func(h *hostFile) (string, int, bool) {
		if !specAudience(h) {
			return "", 0, false
		}
		return setField(h.text, "metadata", "{version: [1, 2]}")
	}},
	// Claude Code's loader quotes a value starting with "[" and reads the
	// skill, so only where a strict loader reads it is this an error.
	{code: "frontmatter-parse-error", what: "unclosed flow sequence in frontmatter", host: strictSkill, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "allowed-tools", "[Read, Grep")
	}},
	{code: "frontmatter-parse-error", what: "description continued on an unindented line", host: anySkill, inject: func(h *hostFile) (string, int, bool) {
		ls := lines(h.text)
		_, end, ok := frontmatter(ls)
		if !ok {
			return "", 0, false
		}
		i := fieldLine(ls, end, "description")
		if i < 0 || i+1 < end && strings.HasPrefix(ls[i+1], " ") {
			return "", 0, false
		}
		v := strings.TrimSpace(strings.TrimPrefix(ls[i], "description:"))
		cut := strings.LastIndexByte(v, ' ')
		if v == "" || strings.ContainsAny(v[:1], "|>\"'[{&*!%@`") || cut < 0 || strings.Contains(v[cut+1:], ":") {
			return "", 0, false
		}
		ls = slices.Insert(ls, i+1, v[cut+1:])
		ls[i] = "description: " + v[:cut]
		return strings.Join(ls, "\n") + "\n", i + 2, true
	}},
	{code: "subagent-field-missing", what: "subagent without description", host: subagent, inject: func(h *hostFile) (string, int, bool) {
		return dropField(h.text, "description")
	}},
	{code: "subagent-name-invalid", what: "subagent name not lowercase", host: subagent, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "name", "Recall_Reviewer")
	}},
	{code: "subagent-skill-missing", what: "subagent preloads a missing skill", host: subagent, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "skills", "[recall-missing-skill]")
	}},
	{code: "frontmatter-missing", what: "subagent without frontmatter", host: subagent, inject: func(h *hostFile) (string, int, bool) {
		ls := lines(h.text)
		_, end, ok := frontmatter(ls)
		if !ok {
			return "", 0, false
		}
		return strings.Join(ls[end+1:], "\n") + "\n", 1, true
	}},
	{code: "command-file-missing", what: "command @file names no file", host: command, inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "Compare with @src/recall-missing.ts.")
		return t, n, true
	}},
	{code: "json-syntax-error", what: "settings JSON with a stray comma", host: settingsFile, inject: func(h *hostFile) (string, int, bool) {
		return insertMember(h.text, "", `  "model": "sonnet",`)
	}},
	{code: "hook-event-unknown", what: "hook on a misspelled event", host: settingsFile, inject: func(h *hostFile) (string, int, bool) {
		if strings.Contains(h.text, `"hooks"`) {
			return insertMember(h.text, "hooks", `    "PreToolUs": [{ "hooks": [{ "type": "command", "command": "true" }] }]`)
		}
		return insertMember(h.text, "", `  "hooks": { "PreToolUs": [{ "hooks": [{ "type": "command", "command": "true" }] }] }`)
	}},
	{code: "hook-handler-invalid", what: "hook handler of an unknown type", host: settingsFile, inject: func(h *hostFile) (string, int, bool) {
		return seedHook(h.text, `{ "type": "shell", "command": "true" }`, "")
	}},
	{code: "hook-matcher-invalid", what: "hook matcher not a regular expression", host: settingsFile, inject: func(h *hostFile) (string, int, bool) {
		return seedHook(h.text, `{ "type": "command", "command": "true" }`, `"matcher": "Bash(", `, "PreToolUse", "PostToolUse")
	}},
	{code: "hook-script-missing", what: "hook runs a missing script", host: settingsFile, inject: func(h *hostFile) (string, int, bool) {
		return seedHook(h.text, `{ "type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/recall-missing.sh" }`, "")
	}},
	{code: "mcp-server-field-missing", what: "MCP server without command", host: mcpFile, inject: func(h *hostFile) (string, int, bool) {
		return insertMember(h.text, "mcpServers", `    "recall": { "args": ["serve"] }`)
	}},
	{code: "mcp-server-type-unknown", what: "MCP server of an unknown type", host: mcpFile, inject: func(h *hostFile) (string, int, bool) {
		return insertMember(h.text, "mcpServers", `    "recall": { "type": "websocket", "url": "https://mcp.example.com/mcp" }`)
	}},
	{code: "mcp-server-transport-conflict", what: "MCP server with command and url", host: mcpFile, inject: func(h *hostFile) (string, int, bool) {
		return insertMember(h.text, "mcpServers", `    "recall": { "command": "npx", "url": "https://mcp.example.com/mcp" }`)
	}},
	{code: "mcp-key-misspelled", what: "MCP server key misspelled", host: mcpFile, inject: func(h *hostFile) (string, int, bool) {
		return insertMember(h.text, "mcpServers", `    "recall": { "command": "npx", "arg": ["serve"] }`)
	}},
	{code: "json-duplicate-key", what: "MCP server given twice", host: mcpFile, inject: func(h *hostFile) (string, int, bool) {
		return insertMember(h.text, "mcpServers", `    "recall": { "command": "npx" }, "recall": { "command": "uvx" }`)
	}},
	{code: "cursor-field-invalid", what: "Cursor alwaysApply not a boolean", host: cursorRule, inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "alwaysApply", "sometimes")
	}},
	{code: "copilot-applyto-unmatched", what: "applyTo matching no file", host: in(".instructions.md"), inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "applyTo", `"recall-missing/**/*.zz"`)
	}},
	{code: "copilot-applyto-invalid", what: "applyTo with an unclosed brace", host: in(".instructions.md"), inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "applyTo", `"src/**/*.{ts,tsx"`)
	}},
	{code: "copilot-applyto-missing", what: "instructions file without applyTo", host: in(".instructions.md"), inject: func(h *hostFile) (string, int, bool) {
		return dropField(h.text, "applyTo")
	}},
	{code: "copilot-agent-field-missing", what: "Copilot agent without description", host: in(".agent.md"), inject: func(h *hostFile) (string, int, bool) {
		return dropField(h.text, "description")
	}},
	{code: "rule-paths-invalid", what: ".claude/rules paths matching no file", host: in("/.claude/rules/"), inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "paths", `["recall-missing/**/*.zz"]`)
	}},
	{code: "cline-paths-invalid", what: "Cline paths not a list", host: in("/.clinerules/"), inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "paths", "42")
	}},
	{code: "windsurf-field-invalid", what: "Windsurf trigger unknown", host: in("/.windsurf/rules/"), inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "trigger", "sometimes")
	}},
	{code: "kiro-field-invalid", what: "Kiro inclusion unknown", host: in("/.kiro/steering/"), inject: func(h *hostFile) (string, int, bool) {
		return setField(h.text, "inclusion", "sometimes")
	}},
	{code: "kiro-file-reference-missing", what: "Kiro file reference names no file", host: in("/.kiro/steering/"), inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "See #[[file:docs/recall-missing.md]].")
		return t, n, true
	}},
	{code: "gemini-import-missing", what: "GEMINI.md import names no file", host: in("GEMINI.md"), inject: func(h *hostFile) (string, int, bool) {
		t, n := appendLines(h.text, "@./docs/recall-missing.md")
		return t, n, true
	}},
	{code: "opencode-instructions-missing", what: "opencode instructions entry names no file", host: func(rel string) bool { return rel == "opencode.json" }, inject: func(h *hostFile) (string, int, bool) {
		// A second "instructions" would be dropped for the one that
		// follows, so an existing list takes the entry.
		if k := strings.Index(h.text, `"instructions"`); k >= 0 {
			if open := strings.IndexByte(h.text[k:], '['); open >= 0 {
				at := k + open + 1
				rest := strings.TrimLeft(h.text[at:], " \t\r\n")
				entry := `"docs/recall-missing.md"`
				if !strings.HasPrefix(rest, "]") {
					entry += ", "
				}
				return h.text[:at] + entry + h.text[at:], strings.Count(h.text[:at], "\n") + 1, true
			}
		}
		return insertMember(h.text, "", `  "instructions": ["docs/recall-missing.md"]`)
	}},
	{code: "toml-syntax-error", what: "Codex config.toml with a bare key", host: in(".codex/config.toml"), inject: func(h *hostFile) (string, int, bool) {
		ls := lines(h.text)
		ls = slices.Insert(ls, 0, "recall =")
		return strings.Join(ls, "\n") + "\n", 1, true
	}},
	{code: "codex-config-invalid", what: "Codex project_doc_max_bytes a string", host: in(".codex/config.toml"), inject: func(h *hostFile) (string, int, bool) {
		if strings.Contains(h.text, "project_doc_max_bytes") {
			return "", 0, false
		}
		return "project_doc_max_bytes = \"65536\"\n" + h.text, 1, true
	}},
	{code: "plugin-name-invalid", what: "plugin name not kebab-case", host: in(".claude-plugin/plugin.json"), inject: func(h *hostFile) (string, int, bool) {
		k := strings.Index(h.text, `"name"`)
		if k < 0 {
			return insertMember(h.text, "", `  "name": "Recall Plugin"`)
		}
		end := strings.IndexByte(h.text[k:], '\n')
		if end < 0 {
			return "", 0, false
		}
		comma := ""
		if strings.HasSuffix(strings.TrimSpace(h.text[k:k+end]), ",") {
			comma = ","
		}
		return h.text[:k] + `"name": "Recall Plugin"` + comma + h.text[k+end:], strings.Count(h.text[:k], "\n") + 1, true
	}},
	{code: "plugin-path-missing", what: "marketplace plugin source missing", host: in(".claude-plugin/marketplace.json"), inject: func(h *hostFile) (string, int, bool) {
		k := strings.Index(h.text, `"plugins"`)
		if k < 0 {
			return "", 0, false
		}
		open := strings.IndexByte(h.text[k:], '[')
		if open < 0 {
			return "", 0, false
		}
		open += k
		entry := `    { "name": "recall-missing", "source": "./plugins/recall-missing", "description": "Missing" },`
		out := h.text[:open+1] + "\n" + entry + "\n" + h.text[open+1:]
		return out, strings.Count(h.text[:open+1], "\n") + 2, true
	}},
}

// jsonDiag is one diagnostic of check's JSON output.
type jsonDiag struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

func (d jsonDiag) String() string {
	return fmt.Sprintf("%s:%d %s %s %s", d.File, d.Line, d.Severity, d.Code, d.Message)
}

// where is the diagnostic without its message: a seed that grows a file
// changes the figures in the messages of what was there before (the size
// of an AGENTS.md over its limit) but not where or what they are.
func (d jsonDiag) where() string {
	return fmt.Sprintf("%s:%d %s %s", d.File, d.Line, d.Severity, d.Code)
}

// checkJSON runs ctxls check on dir and returns its diagnostics.
func checkJSON(t *testing.T, dir string) []jsonDiag {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"check", "--no-cache", "--format", "json", "--show", "hint", "--fail-on", "never", dir}, strings.NewReader(""), &out, &errOut)
	if err != nil {
		t.Fatalf("check %s: %v\n%s", dir, err, errOut.String())
	}
	var ds []jsonDiag
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d jsonDiag
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("check %s: line %q: %v", dir, sc.Text(), err)
		}
		ds = append(ds, d)
	}
	return ds
}

// trial is one seed put into one file.
type trial struct {
	seed *seed
	rel  string
	old  string
	new  string
	line int
	// found says check reported the seed's rule at its line.
	found bool
	// extra are the other new diagnostics of the trial's file.
	extra []jsonDiag
}

// shift maps a line of a file's old text to its line in new text, where
// the two differ in one run of lines; a line of that run maps to 0.
func shift(old, new string, line int) int {
	a, b := lines(old), lines(new)
	pre, suf := commonEnds(a, b)
	switch {
	case line <= pre:
		return line
	case line > len(a)-suf:
		return line + len(b) - len(a)
	}
	return 0
}

// seedRepo puts every seed that has a host in root into one, in rounds in
// which no file takes two, runs check for each round and returns the
// trials and the new diagnostics of files no seed went into.
func seedRepo(t *testing.T, root string) ([]*trial, []jsonDiag) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var rounds [][]*trial
	for i := range seeds {
		s := &seeds[i]
		for _, rel := range files {
			if !s.host(rel) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil || len(b) == 0 {
				continue
			}
			h := &hostFile{root: root, rel: rel, text: string(b)}
			text, line, ok := s.inject(h)
			if !ok {
				continue
			}
			tr := &trial{seed: s, rel: rel, old: h.text, new: text, line: line}
			placed := false
			for r, round := range rounds {
				if !slices.ContainsFunc(round, func(o *trial) bool { return o.rel == rel }) {
					rounds[r] = append(round, tr)
					placed = true
					break
				}
			}
			if !placed {
				rounds = append(rounds, []*trial{tr})
			}
			break
		}
	}
	before := checkJSON(t, root)
	var others []jsonDiag
	var trials []*trial
	for _, round := range rounds {
		byFile := map[string]*trial{}
		for _, tr := range round {
			byFile[tr.rel] = tr
			testtree.WriteAt(t, root, tr.rel, tr.new)
		}
		// The diagnostics check gave before, each moved to its line in
		// the seeded text.
		known := map[string]int{}
		for _, d := range before {
			if tr, ok := byFile[d.File]; ok {
				d.Line = shift(tr.old, tr.new, d.Line)
			}
			known[d.where()]++
		}
		for _, d := range checkJSON(t, root) {
			if known[d.where()] > 0 {
				known[d.where()]--
				continue
			}
			tr, ok := byFile[d.File]
			switch {
			case !ok:
				others = append(others, d)
			case d.Code == tr.seed.code && d.Line == tr.line && !tr.found:
				tr.found = true
			case d.Line == tr.line && slices.Contains(tr.seed.also, d.Code):
			default:
				tr.extra = append(tr.extra, d)
			}
		}
		for _, tr := range round {
			testtree.WriteAt(t, root, tr.rel, tr.old)
		}
		trials = append(trials, round...)
	}
	return trials, others
}

// copyTree copies the regular files, folders and symbolic links under src
// to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, info.Mode().Perm())
		}
		return nil
	})
}

// untar extracts the gzipped tar archive at path into dst, refusing any
// entry that would land outside it.
func untar(path, dst string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("%s: entry %q leaves the folder", path, h.Name)
		}
		to := filepath.Join(dst, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(to, 0o755)
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
				err = os.Symlink(h.Linkname, to)
			}
		case tar.TypeReg:
			if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
				var b []byte
				if b, err = io.ReadAll(io.LimitReader(tr, 64<<20)); err == nil {
					err = os.WriteFile(to, b, fs.FileMode(h.Mode).Perm())
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// tally is recall per rule: trials and how many check found.
type tally map[string]*[2]int

func (c tally) add(tr *trial) {
	k := tr.seed.code
	if c[k] == nil {
		c[k] = &[2]int{}
	}
	c[k][0]++
	if tr.found {
		c[k][1]++
	}
}

// print writes recall per rule and overall.
func (c tally) print(w io.Writer) (found, total int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rule\tfound\tseeded\trecall")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range c {
			if !yield(k) {
				return
			}
		}
	}) {
		n := c[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f %%\n", k, n[1], n[0], 100*float64(n[1])/float64(n[0]))
		found += n[1]
		total += n[0]
	}
	if total > 0 {
		fmt.Fprintf(tw, "all\t%d\t%d\t%.1f %%\n", found, total, 100*float64(found)/float64(total))
	}
	tw.Flush()
	return found, total
}

// TestRecallFixture seeds every defect into the committed repository,
// which has a file of every kind: check must find each at its line and
// report nothing else new.
func TestRecallFixture(t *testing.T) {
	t.Setenv("CTXLS_CACHE_DIR", t.TempDir())
	root := t.TempDir()
	if err := copyTree(filepath.Join("..", "..", "testdata", "recall"), root); err != nil {
		t.Fatal(err)
	}
	if ds := checkJSON(t, root); len(ds) > 0 {
		t.Fatalf("the unseeded fixture has diagnostics: %v", ds)
	}
	trials, others := seedRepo(t, root)
	seeded := map[*seed]bool{}
	c := tally{}
	for _, tr := range trials {
		seeded[tr.seed] = true
		c.add(tr)
		if !tr.found {
			t.Errorf("%s (%s) in %s:%d: not reported", tr.seed.code, tr.seed.what, tr.rel, tr.line)
		}
		for _, d := range tr.extra {
			t.Errorf("%s (%s) in %s:%d: also reported %v", tr.seed.code, tr.seed.what, tr.rel, tr.line, d)
		}
	}
	for i := range seeds {
		if !seeded[&seeds[i]] {
			t.Errorf("%s (%s): no file of the fixture takes it", seeds[i].code, seeds[i].what)
		}
	}
	for _, d := range others {
		t.Errorf("new in a file no seed went into: %v", d)
	}
	var b strings.Builder
	c.print(&b)
	t.Log("\n" + b.String())
}

// wildRepos returns the repositories under dir, each as a folder to copy
// or an archive to extract.
func wildRepos(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir():
			if fi, err := os.Stat(filepath.Join(dir, name, name)); err == nil && fi.IsDir() {
				out = append(out, filepath.Join(dir, name, name))
			}
		case strings.HasSuffix(name, ".tar.gz"):
			if fi, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(name, ".tar.gz"))); err == nil && fi.IsDir() {
				continue // the folder of the same name is the repository
			}
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// TestRecallWild seeds every defect into each real repository under
// CTXLS_WILD that has a file to take it, and reports recall per rule; a
// seed check misses, or a diagnostic a seed brings that is not its own,
// fails the test.
func TestRecallWild(t *testing.T) {
	dir := os.Getenv("CTXLS_WILD")
	if dir == "" {
		t.Skip("CTXLS_WILD names no folder of real repositories")
	}
	repos := wildRepos(dir)
	if len(repos) == 0 {
		t.Skipf("no repositories in %s", dir)
	}
	if testing.Short() {
		t.Skip("seeds every real repository")
	}
	t.Setenv("CTXLS_CACHE_DIR", t.TempDir())
	c := tally{}
	for _, src := range repos {
		name := strings.TrimSuffix(filepath.Base(src), ".tar.gz")
		tmp := t.TempDir()
		root := filepath.Join(tmp, name)
		var err error
		if strings.HasSuffix(src, ".tar.gz") {
			err = untar(src, tmp)
		} else {
			err = copyTree(src, root)
		}
		if err != nil {
			t.Fatal(err)
		}
		trials, others := seedRepo(t, root)
		for _, tr := range trials {
			c.add(tr)
			if !tr.found {
				t.Errorf("%s: %s (%s) in %s:%d: not reported", name, tr.seed.code, tr.seed.what, tr.rel, tr.line)
			}
			for _, d := range tr.extra {
				t.Errorf("%s: %s (%s) in %s:%d: also reported %v", name, tr.seed.code, tr.seed.what, tr.rel, tr.line, d)
			}
		}
		for _, d := range others {
			t.Errorf("%s: new in a file no seed went into: %v", name, d)
		}
		t.Logf("%s: %d seeds", name, len(trials))
		os.RemoveAll(tmp)
	}
	var b strings.Builder
	found, total := c.print(&b)
	t.Logf("recall per rule over %d repositories:\n%s", len(repos), b.String())
	if total > 0 && float64(found) < 0.98*float64(total) {
		t.Errorf("recall %d of %d, under 98 %%", found, total)
	}
}
