package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/agentload"
)

// Each agent's session is counted in its own tokenizer, named in the text
// and the JSON, with what a real session adds beyond the files.
func TestCostCountsInTheAgentsTokenizer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args      []string
		tokenizer string
		note      string
	}{
		{[]string{"--agent", "claude"}, "claude-5", "Claude"},
		{[]string{"--agent", "codex"}, "o200k_base", "GPT-5"},
		{[]string{"--agent", "cursor"}, "estimate", "an estimate"},
		{[]string{"--agent", "claude", "--tokenizer", "cl100k_base"}, "cl100k_base", ""},
	} {
		out, stderr, err := runCLI(t, append([]string{"cost", claudeProject, "--format", "json"}, c.args...)...)
		if err != nil {
			t.Fatalf("cost %v: %v\n%s", c.args, err, stderr)
		}
		var cost agentload.Cost
		if err := json.Unmarshal([]byte(out), &cost); err != nil {
			t.Fatal(err)
		}
		if cost.Tokenizer != c.tokenizer || !strings.Contains(cost.TokenizerNote, c.note) || (c.note == "") != (cost.TokenizerNote == "") {
			t.Errorf("cost %v: tokenizer %q, note %q; want %q with a note of %q", c.args, cost.Tokenizer, cost.TokenizerNote, c.tokenizer, c.note)
		}
		if len(cost.NotCounted) < 3 || !strings.Contains(strings.Join(cost.NotCounted, "\n"), "MCP") {
			t.Errorf("cost %v: notCounted %q", c.args, cost.NotCounted)
		}
		text, _, err := runCLI(t, append([]string{"cost", claudeProject}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(text, "\n")
		if !strings.HasSuffix(first, "("+c.tokenizer+")") || !strings.Contains(text, "Not counted") {
			t.Errorf("cost %v text:\n%s", c.args, text)
		}
	}
	// Claude's tokens differ from o200k_base's: the default is not o200k.
	count := func(args ...string) int {
		out, _, err := runCLI(t, append([]string{"cost", claudeProject, "--format", "json"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var cost agentload.Cost
		if err := json.Unmarshal([]byte(out), &cost); err != nil {
			t.Fatal(err)
		}
		return cost.TotalAlwaysLoaded
	}
	if a, b := count(), count("--tokenizer", "o200k_base"); a == b {
		t.Errorf("claude and o200k_base both count %d", a)
	}
	if _, _, status := runCLIStatus(t, "", "cost", claudeProject, "--tokenizer", "nope"); status != 2 {
		t.Errorf("an unknown tokenizer exits %d", status)
	}
}

// A chain preview names the tokenizer of its figures, in text and JSON.
func TestChainPreviewNamesTokenizer(t *testing.T) {
	t.Parallel()
	dir := chainWorkspace(t)
	out, stderr, status := runCLIStatus(t, "", "chain", "preview", "plan", "implement", "--format", "json", "--dir", dir)
	if status != 0 {
		t.Fatalf("chain preview: exit %d: %s", status, stderr)
	}
	var res struct {
		Tokenizer   string `json:"tokenizer"`
		TotalTokens int    `json:"totalTokens"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Tokenizer != "o200k_base" || res.TotalTokens == 0 {
		t.Errorf("preview JSON: %+v", res)
	}
	text, _, _ := runCLIStatus(t, "", "chain", "preview", "plan", "implement", "--dir", dir)
	if !strings.Contains(text, "counted in o200k_base") || !strings.Contains(text, "prompt tokens (o200k_base) in total") {
		t.Errorf("preview text names no tokenizer:\n%s", text)
	}
}
