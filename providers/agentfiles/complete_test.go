package agentfiles

import (
	"slices"
	"strings"
	"testing"
)

// TestCompleteFrontmatter completes keys and values at the | of each text.
func TestCompleteFrontmatter(t *testing.T) {
	t.Parallel()
	set := &Set{Files: []*File{
		{Rel: ".claude/skills/deploy/SKILL.md", Kind: KindSkill, Meta: Meta{Name: "deploy", Description: "Deploys."}},
		{Rel: "skills/lint/SKILL.md", Kind: KindSkill},
		{Rel: ".claude/agents/a.md", Kind: KindSubagent, Meta: Meta{Name: "a"}},
	}}
	tests := []struct {
		name     string
		kind     Kind
		text     string
		ok       bool
		want     []string // labels, in order, or the first few
		replaced string   // the text the completion replaces
	}{
		{"skill key", KindSkill, "---\nname: x\nde|\n---\n", true, []string{"description", "license"}, "de"},
		{"key at an empty line", KindCommand, "---\n|\n---\nBody.\n", true, []string{"description", "argument-hint", "allowed-tools", "model", "disable-model-invocation"}, ""},
		{"keys present are not offered", KindCursorRule, "---\ndescription: x\n|\n---\n", true, []string{"globs", "alwaysApply"}, ""},
		{"renaming a key keeps its value", KindCursorRule, "---\nglo|bs: '*.go'\n---\n", true, []string{"description", "globs", "alwaysApply"}, "globs"},
		{"bool value", KindCursorRule, "---\nalwaysApply: t|\n---\n", true, []string{"true", "false"}, "t"},
		{"enum value", KindSubagent, "---\npermissionMode: |\n---\n", true, permissionModes, ""},
		{"skills in a flow list", KindSubagent, "---\nname: a\nskills: [deploy, l|]\n---\n", true, []string{"deploy", "lint"}, "l"},
		{"skills in a block list", KindSubagent, "---\nskills:\n  - d|\n---\n", true, []string{"deploy", "lint"}, "d"},
		{"skills of a skill are no skill names", KindSkill, "---\nskills: |\n---\n", true, nil, ""},
		{"unclosed block", KindSkill, "---\nna|", true, []string{"name"}, "na"},
		{"body", KindSkill, "---\nname: x\n---\nna|\n", false, nil, ""},
		{"first line", KindSkill, "--|-\nname: x\n---\n", false, nil, ""},
		{"no frontmatter", KindSkill, "# Title\nna|\n", false, nil, ""},
		{"nested mapping", KindSkill, "---\nmetadata:\n  ver|\n---\n", false, nil, ""},
		{"memory has no fields", KindMemory, "---\n|\n---\n", false, nil, ""},
		{"kiro inclusion", KindKiroSteering, "---\ninclusion: f|\n---\n", true, kiroInclusions, "f"},
		{"windsurf trigger", KindWindsurfRule, "---\ntrigger: |\n---\n", true, windsurfTriggers, ""},
		{"copilot agent target", KindCopilotAgent, "---\ndescription: x\ntarget: |\n---\n", true, copilotTargets, ""},
		{"cline key", KindClineRule, "---\npa|\n---\n", true, []string{"paths"}, "pa"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			off := strings.Index(tc.text, "|")
			text := []byte(strings.Replace(tc.text, "|", "", 1))
			items, rep, ok := set.CompleteFrontmatter(tc.kind, text, off)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Label)
				if it.Doc == "" && it.Detail == "" {
					t.Errorf("%s has neither doc nor detail", it.Label)
				}
			}
			if len(got) < len(tc.want) || !slices.Equal(got[:len(tc.want)], tc.want) || (tc.want == nil && got != nil) {
				t.Errorf("labels %q, want %q first", got, tc.want)
			}
			if r := string(text[rep.Start:rep.End]); r != tc.replaced {
				t.Errorf("replaces %q, want %q", r, tc.replaced)
			}
			// A key gets its colon unless its line has one already.
			rest, _, _ := strings.Cut(string(text[off:]), "\n")
			for _, it := range items {
				want := it.Label
				if !it.Value && !strings.Contains(rest, ":") {
					want += ": "
				}
				if it.Insert != want {
					t.Errorf("%s inserts %q, want %q", it.Label, it.Insert, want)
				}
			}
		})
	}
}

// Every field of every kind is documented, and a key's hover spot is the
// whole key.
func TestFieldsDocumented(t *testing.T) {
	t.Parallel()
	for k := KindSkill; k <= KindOpenCodeConfig; k++ {
		for _, f := range fieldsOf(k) {
			if f.Doc == "" || f.Type == "" {
				t.Errorf("%v field %s: doc %q, type %q", k, f.Name, f.Doc, f.Type)
			}
		}
	}
	text := []byte("---\nallowed-tools: Read\n---\n")
	spot, ok := SpotAt(text, 7)
	if !ok || spot.Value || spot.Key != "allowed-tools" || string(text[spot.KeySpan.Start:spot.KeySpan.End]) != "allowed-tools" {
		t.Errorf("spot %+v, %v", spot, ok)
	}
	if f, ok := FieldNamed(KindSkill, spot.Key); !ok || !strings.Contains(f.Doc, "without asking") {
		t.Errorf("field %+v, %v", f, ok)
	}
}
