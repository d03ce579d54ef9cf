package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/tokens/tokenstest"
)

// tokenizerWorkspace is the example library with the agent files whose
// diagnostics give token counts: a paragraph CLAUDE.md loads twice and a
// skill body over the recommended tokens.
func tokenizerWorkspace(t *testing.T) string {
	t.Helper()
	dir := libtest.CopyExample(t)
	para := "Every change ships with a test that fails before the change and passes after it, and with a line in the changelog that says what users see.\n"
	testtree.WriteFiles(t, dir, map[string]string{
		"CLAUDE.md":                   "# Project\n\n" + para + "\n@docs/style.md\n",
		"docs/style.md":               "# Style\n\n" + para,
		".claude/skills/big/SKILL.md": "---\nname: big\ndescription: A skill whose body is long.\n---\n\n" + strings.Repeat("Word after word the body goes on and on, loaded whole when the skill runs. ", 900) + "\n",
	})
	return dir
}

// Every token figure of the JSON of every command names its tokenizer,
// and the text names it too.
func TestEveryFigureNamesItsTokenizer(t *testing.T) {
	t.Parallel()
	dir := tokenizerWorkspace(t)
	for _, args := range [][]string{
		{"cost"},
		{"cost", "--agent", "codex"},
		{"cost", "--agent", "all"},
		{"catalog"},
		{"search", "python"},
		{"show", "python:fastapi_patterns"},
		{"chain", "preview", "review"},
		{"tokens", filepath.Join(dir, "CLAUDE.md")},
		{"check"},
	} {
		json, stderr, status := runCLIStatus(t, "", append(args, "--format", "json", "--dir", dir)...)
		if status > 1 || json == "" {
			t.Fatalf("%v: exit %d: %s", args, status, stderr)
		}
		unnamed, err := tokenstest.Unnamed([]byte(json))
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, json)
		}
		if len(unnamed) > 0 {
			t.Errorf("%v --format json: figures without a tokenizer at %s", args, strings.Join(unnamed, ", "))
		}
		if args[0] == "check" && (!strings.Contains(json, `"code":"memory-duplicate-paragraph"`) || !strings.Contains(json, `"code":"skill-body-too-long"`)) {
			t.Errorf("check found no token-counting diagnostics:\n%s", json)
		}
		if args[0] == "show" {
			continue // piped, show prints the topic alone, no figure
		}
		text, _, _ := runCLIStatus(t, "", append(args, "--dir", dir)...)
		if !strings.Contains(text, "o200k_base") && !strings.Contains(text, "claude-5") {
			t.Errorf("%v: the text names no tokenizer:\n%s", args, text)
		}
	}
}

// The history of conversations names the tokenizer of its figures, in
// the JSON and the text of the list, a conversation and its next prompt.
func TestHistoryNamesItsTokenizer(t *testing.T) {
	t.Parallel()
	dir := historyFixture(t)
	for _, args := range [][]string{
		{"history"},
		{"history", "conv-a"},
		{"history", "conv-a", "--context"},
	} {
		json, stderr, status := runCLIStatus(t, "", append(args, "--format", "json", "--dir", dir)...)
		if status != 0 {
			t.Fatalf("%v: exit %d: %s", args, status, stderr)
		}
		if unnamed, err := tokenstest.Unnamed([]byte(json)); err != nil || len(unnamed) > 0 || !strings.Contains(json, `"tokenizer"`) {
			t.Errorf("%v --format json: %v, figures without a tokenizer at %v:\n%s", args, err, unnamed, json)
		}
		text, stderr, _ := runCLIStatus(t, "", append(args, "--dir", dir)...)
		if !strings.Contains(text+stderr, "o200k_base") {
			t.Errorf("%v: the text names no tokenizer:\n%s%s", args, text, stderr)
		}
	}
}
