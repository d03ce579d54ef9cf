package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// agentWorkspace writes a workspace with a skill whose frontmatter does
// not parse (safe fix), a skill named unlike its folder (safe fix), a
// topic whose reference has a did-you-mean (unsafe fix) and a broken
// plugin manifest (no fix).
func agentWorkspace(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".agents/skills/colon/SKILL.md":  "---\nname: colon\ndescription: Use when: shipping\n---\nBody.\n",
		".agents/skills/deploy/SKILL.md": "---\nname: deploy-app\ndescription: Deploys.\n---\nBody.\n",
		"context/python/fastapi.md":      "# FastAPI\n\nSee python:fastapy.\n",
		"context/loading_protocol.md":    "# Loading protocol\n",
		".claude-plugin/plugin.json":     "{\n  \"name\": \"p\",\n  \"version\": 1\n}\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	testtree.WriteFiles(t, dir, files)
	return dir
}

func codesOf(recs []ops.Diagnostic) map[string]string {
	m := map[string]string{}
	for _, r := range recs {
		m[r.Code] = r.File
	}
	return m
}

func TestCheckReportsAgentFiles(t *testing.T) {
	t.Parallel()
	recs := decodeRecords(t, runExit(t, 1, "check", agentWorkspace(t, nil), "--format", "json"))
	got := codesOf(recs)
	for code, file := range map[string]string{
		"frontmatter-parse-error": ".agents/skills/colon/SKILL.md",
		"skill-name-mismatch":     ".agents/skills/deploy/SKILL.md",
		"unresolved-reference":    "context/python/fastapi.md",
		"plugin-field-invalid":    ".claude-plugin/plugin.json",
	} {
		if got[code] != file {
			t.Errorf("%s reported on %q, want %q (records %+v)", code, got[code], file, recs)
		}
	}
	for _, r := range recs {
		if r.Code == "plugin-field-invalid" && (r.Line != 3 || r.Column != 14 || r.EndColumn != 15) {
			t.Errorf("plugin-field-invalid at %d:%d-%d, want 3:14-15 (the value 1)", r.Line, r.Column, r.EndColumn)
		}
	}
}

func TestCheckDisable(t *testing.T) {
	t.Parallel()
	dir := agentWorkspace(t, map[string]string{".ctxls.yaml": "disable: [skill-name-mismatch, unresolved-reference]\n"})
	out, _, _ := runCLI(t, "check", dir, "--format", "json")
	got := codesOf(decodeRecords(t, out))
	if _, ok := got["skill-name-mismatch"]; ok {
		t.Error("a disabled agent-file code was reported")
	}
	if _, ok := got["unresolved-reference"]; ok {
		t.Error("a disabled library code was reported")
	}
	if _, ok := got["frontmatter-parse-error"]; !ok {
		t.Error("a code that is not disabled went missing")
	}
}

func TestCheckSARIF(t *testing.T) {
	t.Parallel()
	out := runExit(t, 1, "check", agentWorkspace(t, nil), "--format", "sarif")
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) != 4 {
		t.Fatalf("version %q, runs %d, results %+v", log.Version, len(log.Runs), log.Runs)
	}
	run := log.Runs[0]
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s points at rule %d, %s", r.RuleID, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		if r.Level != "error" && r.Level != "warning" && r.Level != "note" {
			t.Errorf("level %q", r.Level)
		}
		loc := r.Locations[0].PhysicalLocation
		if strings.HasPrefix(loc.ArtifactLocation.URI, "/") || loc.Region.StartLine < 1 {
			t.Errorf("location %+v", loc)
		}
	}
}

func TestCheckFix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		writes bool
		exit   int
		// what the files hold after the command
		colon, deploy, topic string
	}{
		{"dry run prints the safe fixes", []string{"--dry-run"}, false, 1,
			"description: Use when: shipping", "name: deploy-app", "python:fastapy"},
		{"fix applies the safe ones", []string{"--fix"}, true, 1,
			`description: "Use when: shipping"`, "name: deploy\n", "python:fastapy"},
		{"fix-unsafe applies all", []string{"--fix-unsafe"}, true, 0,
			`description: "Use when: shipping"`, "name: deploy\n", "python:fastapi"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := agentWorkspace(t, nil)
			out := runExit(t, tc.exit, append([]string{"check", dir, "--format", "json"}, tc.args...)...)
			read := func(rel string) string {
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
				if err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
			for rel, want := range map[string]string{".agents/skills/colon/SKILL.md": tc.colon, ".agents/skills/deploy/SKILL.md": tc.deploy, "context/python/fastapi.md": tc.topic} {
				if got := read(rel); !strings.Contains(got, want) {
					t.Errorf("%s holds %q, want it to contain %q", rel, got, want)
				}
			}
			if !tc.writes {
				want := "--- a/.agents/skills/colon/SKILL.md\n+++ b/.agents/skills/colon/SKILL.md\n@@ -1,5 +1,5 @@\n ---\n name: colon\n" +
					"-description: Use when: shipping\n+description: \"Use when: shipping\"\n ---\n Body.\n"
				if !strings.HasPrefix(out, want) || !strings.Contains(out, "-name: deploy-app\n+name: deploy\n") || strings.Contains(out, "fastap") {
					t.Errorf("diff:\n%s\nwant it to start with:\n%s", out, want)
				}
				return
			}
			recs := decodeRecords(t, out)
			got := codesOf(recs)
			if _, ok := got["plugin-field-invalid"]; !ok {
				t.Errorf("a problem without a fix went missing: %+v", recs)
			}
			if _, ok := got["frontmatter-parse-error"]; ok {
				t.Errorf("the fixed problem is still reported: %+v", recs)
			}
		})
	}
}

// A skill outside hidden folders is read by the library too: its YAML,
// which Claude Code reads, is judged once, as the agent reads it, the
// problem the YAML so read shows is reported beside it, and --fix fixes
// both.
func TestCheckSkillOutsideHiddenFolders(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"skills/deploy/SKILL.md": "\xef\xbb\xbf---\nname: deploy-x\ndescription: Use when: x\n---\nBody\n"})
	p := filepath.Join(dir, "skills", "deploy", "SKILL.md")
	out, _, _ := runCLI(t, "check", dir, "--format", "json")
	if recs := decodeRecords(t, out); len(recs) != 2 || recs[0].Code != "skill-name-mismatch" || recs[1].Code != "frontmatter-lenient-yaml" {
		t.Fatalf("records %+v, want skill-name-mismatch and frontmatter-lenient-yaml", recs)
	}
	if out := runExit(t, 0, "check", dir, "--format", "json", "--fix"); len(decodeRecords(t, out)) != 0 {
		t.Fatalf("records after --fix: %s", out)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\xef\xbb\xbf---\nname: deploy\ndescription: \"Use when: x\"\n---\nBody\n"; string(data) != want {
		t.Errorf("fixed file %q, want %q (byte order mark kept)", data, want)
	}
}
