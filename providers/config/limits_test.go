package config

import (
	"slices"
	"strings"
	"testing"
)

func TestDisableAndLimits(t *testing.T) {
	t.Parallel()
	cfg, problems := Parse([]byte("disable: [token-drift, skill-body-too-long]\nlimits: {skillDescription: 2000, importDepth: 0}\n"))
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "limits.importDepth") {
		t.Fatalf("problems = %v", problems)
	}
	if !cfg.Disabled("token-drift") || !cfg.Disabled("skill-body-too-long") || cfg.Disabled("skill-name-missing") {
		t.Errorf("disable = %v", cfg.Disable)
	}
	want := defaultLimits()
	want.SkillDescription = 2000
	if cfg.Limits != want {
		t.Errorf("limits = %+v, want %+v (unset and invalid limits keep their defaults)", cfg.Limits, want)
	}
	if c := cfg.clone(); &c.Disable[0] == &cfg.Disable[0] {
		t.Error("Clone shares the disable list")
	}
}

func TestDisableMustBeAList(t *testing.T) {
	t.Parallel()
	cfg, problems := Parse([]byte("disable: {a: b}\n"))
	if len(problems) != 1 || problems[0].Line != 0 || cfg.Disable != nil {
		t.Fatalf("problems = %v, disable = %v", problems, cfg.Disable)
	}
}

func TestSettingsDisable(t *testing.T) {
	t.Parallel()
	cfg, _ := Parse([]byte("disable: [token-drift]\n"))
	s, err := ParseSettings([]byte(`{"ctxls": {"disable": ["agent-unknown-field"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cfg.Apply(s)
	if !out.Disabled("token-drift") || !out.Disabled("agent-unknown-field") || cfg.Disabled("agent-unknown-field") {
		t.Errorf("disable = %v (file: %v)", out.Disable, cfg.Disable)
	}
}

func TestDisableUnknownCode(t *testing.T) {
	t.Parallel()
	cfg, problems := Parse([]byte("disable: [token-drift, tokendrift]\n"))
	if len(problems) != 1 || problems[0].Severity != "warning" || !strings.Contains(problems[0].Message, `"tokendrift"`) {
		t.Fatalf("problems = %v", problems)
	}
	if !cfg.Disabled("token-drift") {
		t.Error("the known code was dropped")
	}
}

func TestAgentsSetting(t *testing.T) {
	t.Parallel()
	cfg, problems := Parse([]byte("agents:\n  claude: {version: \"2.1.300\"}\n  codex:\n    version: latest\n  zed: {version: \"1\"}\n"))
	if got := cfg.AgentVersion("claude"); got != "2.1.300" {
		t.Errorf("claude version = %q", got)
	}
	if got := cfg.AgentVersion("codex"); got != "" {
		t.Errorf("a version that is not one must fall back to the newest, got %q", got)
	}
	var lines []int
	for _, p := range problems {
		lines = append(lines, p.Line)
	}
	if len(problems) != 2 || !slices.Contains(lines, 3) || !slices.Contains(lines, 4) {
		t.Errorf("problems = %v, want one at the codex version (line 4) and one at zed (line 5)", problems)
	}
	if Default().AgentVersion("claude") != "" {
		t.Error("the default must be the newest documented behaviour")
	}
}
