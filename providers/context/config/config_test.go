package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	data := `
tokenizer: cl100k_base
driftThreshold: 0.3
budget: {files: 4, tokens: 9000}
executor:
  kind: exec
  command: ["claude", "-p"]
  timeout: 5m
chains:
  feature: [brainstorm, implement, test]
  review: [review]
models:
  small: {contextWindow: 8192, historyShare: 0.25}
defaultModel: small
colour: blue
`
	cfg, problems := Parse([]byte(data))
	if len(problems) != 1 || !strings.Contains(problems[0].Message, `"colour"`) || problems[0].Line != 14 {
		t.Fatalf("problems = %v", problems)
	}
	if cfg.Tokenizer != "cl100k_base" || cfg.DriftThreshold != 0.3 || cfg.Budget != (Budget{4, 9000}) {
		t.Errorf("scalars: %+v", cfg)
	}
	if cfg.Executor.Kind != "exec" || cfg.Executor.Timeout.Duration != 5*time.Minute || len(cfg.Executor.Command) != 2 {
		t.Errorf("executor: %+v", cfg.Executor)
	}
	if len(cfg.Chains) != 2 || cfg.Chains[0].Name != "feature" || cfg.Chains[1].Name != "review" {
		t.Errorf("chains keep file order: %+v", cfg.Chains)
	}
	name, m, ok := cfg.Model("")
	if !ok || name != "small" || m.HistoryBudget() != 2048 {
		t.Errorf("model: %s %+v %v", name, m, ok)
	}
}

func TestParseBadValues(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
		ok   func(*Config) bool
	}{
		{"bad tokenizer", "tokenizer: gpt9", "unknown tokenizer", func(c *Config) bool { return c.Tokenizer == "o200k_base" }},
		{"bad threshold type", "driftThreshold: lots", "driftThreshold", func(c *Config) bool { return c.DriftThreshold == 0.25 }},
		{"negative budget", "budget: {files: 0, tokens: 5}", "budget.files", func(c *Config) bool { return c.Budget.Files == 6 && c.Budget.Tokens == 5 }},
		{"exec without command", "executor: {kind: exec}", "executor.command", func(c *Config) bool { return c.Executor.Kind == "preview" }},
		{"history share whole window", "models: {m: {contextWindow: 100, historyShare: 1}}", "below 1", func(c *Config) bool { return len(c.Models) == 0 }},
		{"history tokens over window", "models: {m: {contextWindow: 100, historyTokens: 100}}", "below the context window", func(c *Config) bool { return len(c.Models) == 0 }},
		{"bad chain", "chains: {x: 3}", "non-empty list", func(c *Config) bool { return len(c.Chains) == 0 }},
		{"not yaml", "a: [", "cannot parse", func(c *Config) bool { return c.Tokenizer == "o200k_base" }},
		{"bad duration", "executor: {kind: preview, timeout: soon}", "invalid duration", func(c *Config) bool { return c.Executor.Timeout.Duration == DefaultExecTimeout }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, problems := Parse([]byte(tc.data))
			var msgs []string
			for _, p := range problems {
				msgs = append(msgs, p.String())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
				t.Errorf("problems %q do not mention %q", msgs, tc.want)
			}
			if !tc.ok(cfg) {
				t.Errorf("config after bad value: %+v", cfg)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	cfg, problems, err := Load(t.TempDir())
	if err != nil || problems != nil || cfg.Tokenizer != "o200k_base" {
		t.Fatalf("Load: %+v %v %v", cfg, problems, err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("tokenizer: estimate\n"), 0o644)
	cfg, _, _ = Load(dir)
	if cfg.Tokenizer != "estimate" {
		t.Fatalf("tokenizer = %s", cfg.Tokenizer)
	}
}

func TestApplySettings(t *testing.T) {
	base, _ := Parse([]byte("tokenizer: cl100k_base\nbudget: {files: 4, tokens: 900}\n"))
	s, err := ParseSettings(json.RawMessage(`{"ctxls": {"tokenizer": "estimate", "budget": {"files": 3}, "executor": {"timeout": "30s"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg, problems := base.Apply(s)
	if len(problems) != 0 || cfg.Tokenizer != "estimate" || cfg.Budget != (Budget{3, 900}) || cfg.Executor.Timeout.Duration != 30*time.Second {
		t.Fatalf("applied: %+v %v", cfg, problems)
	}
	if base.Tokenizer != "cl100k_base" {
		t.Error("Apply modified its receiver")
	}
	if _, err := ParseSettings(json.RawMessage(`{"ctxls": {"budget": "x"}}`)); err == nil {
		t.Error("bad settings: want error")
	}
}
