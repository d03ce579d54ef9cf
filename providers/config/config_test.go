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
	t.Parallel()
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
	t.Parallel()
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
			t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func TestParseProblemLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want string // the message's substring
		line int    // 1-based
	}{
		{"tokenizer", "budget: {files: 2}\ntokenizer: gpt9\n", "unknown tokenizer", 2},
		{"drift threshold", "tokenizer: estimate\n\ndriftThreshold: -1\n", "driftThreshold", 3},
		{"budget files", "budget:\n  tokens: 100\n  files: 0\n", "budget.files", 3},
		{"exec without command", "executor:\n  kind: exec\n", "executor.command", 1},
		{"bad executor kind", "executor:\n  timeout: 5m\n  kind: shell\n", "executor.kind", 3},
		{"model window", "models:\n  small:\n    historyShare: 0.5\n    contextWindow: 0\n", "contextWindow", 4},
		{"model share", "models:\n  big:\n    contextWindow: 100\n    historyShare: 2\n", "historyShare", 4},
		{"default model", "models: {m: {contextWindow: 9}}\ndefaultModel: other\n", "defaultModel", 2},
		{"max file size", "tokenizer: estimate\nmaxFileSize: lots\n", "maxFileSize", 2},
		{"max file size zero", "maxFileSize: 0\n", "maxFileSize", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, problems := Parse([]byte(tc.data))
			for _, p := range problems {
				if strings.Contains(p.Message, tc.want) {
					if p.Line+1 != tc.line {
						t.Errorf("%q at line %d, want %d", p.Message, p.Line+1, tc.line)
					}
					return
				}
			}
			t.Errorf("no problem mentions %q: %v", tc.want, problems)
		})
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "16MB", want: 16_000_000},
		{in: "16 MiB", want: 16 << 20},
		{in: "512kib", want: 512 << 10},
		{in: "1.5GB", want: 1_500_000_000},
		{in: "4096", want: 4096},
		{in: "100B", want: 100},
		{in: "16XB", bad: true},
		{in: "MB", bad: true},
		{in: "", bad: true},
		{in: "-3MB", bad: true},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	cfg, problems := Parse([]byte("maxFileSize: 16MB\n"))
	if len(problems) != 0 || cfg.MaxFileSize != 16_000_000 {
		t.Errorf("maxFileSize: 16MB gives %d, %v", cfg.MaxFileSize, problems)
	}
}

func TestUnknownChainCommands(t *testing.T) {
	t.Parallel()
	cfg, _ := Parse([]byte("chains:\n  ok: [implement, /test]\n  bad: [implement, deploy]\n  nested: [ok]\n"))
	isCmd := func(n string) bool { return n == "implement" || n == "test" }
	var got []string
	for _, p := range cfg.UnknownChainCommands(isCmd) {
		got = append(got, p.String())
	}
	want := []string{
		`.ctxls.yaml:3: chain "bad" names "deploy", which is no command of the workspace`,
		`.ctxls.yaml:4: chain "nested" names "ok", which is no command of the workspace`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTokenizerFor(t *testing.T) {
	t.Parallel()
	cfg, problems := Parse([]byte("tokenizer: cl100k_base\nmodels:\n  claude-opus-4-6: {contextWindow: 200000}\n  mine: {contextWindow: 1000, tokenizer: claude-4.7}\n  other: {contextWindow: 1000}\n  typo: {contextWindow: 1000, tokenizer: claude-9}\n"))
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "claude-9") {
		t.Fatalf("problems = %v, want one naming claude-9", problems)
	}
	for model, want := range map[string]string{
		"claude-opus-4-6": "claude-3",
		"mine":            "claude-4.7",
		"other":           "cl100k_base",
		"typo":            "cl100k_base",
		"claude-opus-5":   "claude-5",
	} {
		if got := cfg.TokenizerFor(model); got != want {
			t.Errorf("TokenizerFor(%q) = %q, want %q", model, got, want)
		}
	}
}
