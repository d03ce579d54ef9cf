package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// actionFile is action.yml, as much of it as the runner reads.
type actionFile struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
}

// actionRun is one run of the action's steps as a runner would run them:
// each run step in bash with the runner's files and variables, its outputs
// and PATH additions passed on to the next.
type actionRun struct {
	t         *testing.T
	action    actionFile
	inputs    map[string]string
	actionRef string
	workspace string
	temp      string
	path      []string // from GITHUB_PATH, newest first
	outputs   map[string]map[string]string
	failed    bool
	log       strings.Builder
	uploaded  string // the sarif_file the upload step was given
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", a.Runs.Using)
	}
	return a
}

// newActionRun prepares a run with the given inputs over the defaults.
func newActionRun(t *testing.T, workspace, actionRef string, with map[string]string) *actionRun {
	a := readAction(t)
	r := &actionRun{t: t, action: a, inputs: map[string]string{}, actionRef: actionRef, workspace: workspace, temp: t.TempDir(), outputs: map[string]map[string]string{}}
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("action.yml has no input %q", k)
		}
		r.inputs[k] = v
	}
	return r
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// value is what a context expression (inputs.path, steps.x.outputs.y,
// runner.os, github.action_ref) stands for; the action uses no others.
func (r *actionRun) value(expr string) string {
	parts := strings.Split(expr, ".")
	switch {
	case len(parts) == 2 && parts[0] == "inputs":
		v, ok := r.inputs[parts[1]]
		if !ok {
			r.t.Fatalf("action.yml refers to the undeclared input %s", parts[1])
		}
		return v
	case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
		return r.outputs[parts[1]][parts[3]]
	case expr == "runner.os":
		return map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	case expr == "runner.arch":
		return map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	case expr == "runner.temp":
		return r.temp
	case expr == "github.action_ref":
		return r.actionRef
	}
	r.t.Fatalf("action.yml uses the expression %q, which this test does not know", expr)
	return ""
}

// expand replaces every ${{ … }} of s.
func (r *actionRun) expand(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		return r.value(exprRE.FindStringSubmatch(m)[1])
	})
}

// condition evaluates a step's if: terms joined by &&, each always(), a
// comparison of a context with a string (== or !=), or a context alone. A
// step without always() runs only while no step has failed.
func (r *actionRun) condition(cond string) bool {
	cond = strings.TrimSpace(exprRE.ReplaceAllString(cond, "$1"))
	if cond == "" {
		return !r.failed
	}
	always := false
	for _, term := range strings.Split(cond, "&&") {
		term = strings.TrimSpace(term)
		if term == "always()" {
			always = true
			continue
		}
		var ok bool
		switch {
		case strings.Contains(term, "!="):
			a, b, _ := strings.Cut(term, "!=")
			ok = r.operand(a) != r.operand(b)
		case strings.Contains(term, "=="):
			a, b, _ := strings.Cut(term, "==")
			ok = r.operand(a) == r.operand(b)
		default:
			ok = r.operand(term) != ""
		}
		if !ok {
			return false
		}
	}
	return always || !r.failed
}

func (r *actionRun) operand(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2 {
		return s[1 : len(s)-1]
	}
	return r.value(s)
}

// steps runs every step and reports whether the job succeeded.
func (r *actionRun) steps() bool {
	for i, st := range r.action.Runs.Steps {
		if !r.condition(st.If) {
			fmt.Fprintf(&r.log, "== step %d %s: skipped\n", i, st.Name)
			continue
		}
		if st.Uses != "" {
			// The upload runs on GitHub's side; what it is given is checked.
			if !strings.HasPrefix(st.Uses, "github/codeql-action/upload-sarif@") {
				r.t.Fatalf("step %d uses %s, which this test does not stand in for", i, st.Uses)
			}
			r.uploaded = r.expand(st.With["sarif_file"])
			fmt.Fprintf(&r.log, "== step %d %s: upload %s\n", i, st.Name, r.uploaded)
			continue
		}
		if st.Shell != "bash" {
			r.t.Fatalf("step %d has shell %q; the action's steps run in bash on every runner", i, st.Shell)
		}
		ok := r.runStep(i, st)
		fmt.Fprintf(&r.log, "== step %d %s: ok=%v\n", i, st.Name, ok)
		if !ok {
			r.failed = true
		}
	}
	return !r.failed
}

// runStep runs one step's script as the runner does for shell: bash.
func (r *actionRun) runStep(i int, st actionStep) bool {
	t := r.t
	dir := filepath.Join(r.temp, fmt.Sprintf("step%d", i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script.sh")
	outputFile := filepath.Join(dir, "output")
	pathFile := filepath.Join(dir, "path")
	for _, f := range []string{outputFile, pathFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, []byte(r.expand(st.Run)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"GITHUB_ACTION_PATH=" + mustAbs(t, repoRoot),
		"GITHUB_OUTPUT=" + outputFile,
		"GITHUB_PATH=" + pathFile,
		"GITHUB_WORKSPACE=" + r.workspace,
		"RUNNER_TEMP=" + r.temp,
		"CTXLS_CACHE_DIR=" + filepath.Join(r.temp, "cache"),
		// No ctxls but the one the action installs, no Go.
		"PATH=" + strings.Join(append(append([]string(nil), r.path...), pathWithout(t, "ctxls")), string(os.PathListSeparator)),
	}
	for k, v := range st.Env {
		env = append(env, k+"="+r.expand(v))
	}
	out, status := command(t, 3*time.Minute, r.workspace, env, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	fmt.Fprintf(&r.log, "%s", out)
	outputs := map[string]string{}
	data, _ := os.ReadFile(outputFile)
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(strings.TrimRight(line, "\n"), "="); ok {
			outputs[k] = v
		}
	}
	if st.ID != "" {
		r.outputs[st.ID] = outputs
	}
	data, _ = os.ReadFile(pathFile)
	for line := range strings.Lines(string(data)) {
		if p := strings.TrimSpace(line); p != "" {
			r.path = append([]string{p}, r.path...)
		}
	}
	return status == 0
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// releaseServer lays the release out as GitHub serves a release's files,
// RELEASE-URL/vVERSION/NAME, and returns RELEASE-URL, a file: URL that
// curl reads in place of the download.
func releaseServer(t *testing.T, dir, version string) string {
	t.Helper()
	root := t.TempDir()
	tag := filepath.Join(root, "v"+version)
	if err := os.MkdirAll(tag, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(mustAbs(t, dir), e.Name()), filepath.Join(tag, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + root
}

// sarifResults reads a SARIF file's result locations.
func sarifResults(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the SARIF file for the upload: %v", err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("the SARIF file is not one SARIF 2.1.0 run (%v):\n%.500s", err, data)
	}
	var out []string
	for _, res := range log.Runs[0].Results {
		out = append(out, res.RuleID+" "+res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	return out
}

// The action's own steps, run in a shell as a runner runs them, with the
// built release standing in for the download: they install the binary of
// the runner's platform, check the path, fail the job at the severity
// asked for, and give the upload a SARIF file whose paths are relative to
// the repository.
func TestActionSteps(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	hostPlatform(t)
	releases := releaseServer(t, dir, version)
	tests := []struct {
		name      string
		actionRef string
		with      map[string]string
		wantOK    bool
		wantLog   []string
	}{
		{"errors fail the job", "", map[string]string{"version": version}, false,
			[]string{"ctxls " + version + ", commit", "commands/implement.md", "unresolved-reference"}},
		{"the tag of the action picks the release", "v" + version, map[string]string{"fail-on": "never"}, true,
			[]string{"ctxls " + version + ", commit"}},
		{"json to the log", "", map[string]string{"version": "v" + version, "format": "json", "fail-on": "never"}, true,
			[]string{`"code":"unresolved-reference"`}},
		{"no upload", "", map[string]string{"version": version, "upload-sarif": "false", "fail-on": "never"}, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			workspace := t.TempDir()
			if err := os.CopyFS(filepath.Join(workspace, "docs", "agents"), os.DirFS(filepath.Join(repoRoot, "examples", "library"))); err != nil {
				t.Fatal(err)
			}
			with := map[string]string{"path": "docs/agents", "release-url": releases}
			for k, v := range tc.with {
				with[k] = v
			}
			r := newActionRun(t, workspace, tc.actionRef, with)
			ok := r.steps()
			log := r.log.String()
			if ok != tc.wantOK {
				t.Errorf("the job succeeded: %v, want %v\n%s", ok, tc.wantOK, log)
			}
			for _, want := range tc.wantLog {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
			if r.outputs["install"]["version"] != version {
				t.Errorf("output version = %q, want %s", r.outputs["install"]["version"], version)
			}
			if with["upload-sarif"] == "false" {
				if r.uploaded != "" {
					t.Errorf("uploaded %s with upload-sarif false", r.uploaded)
				}
				return
			}
			results := sarifResults(t, r.uploaded)
			if !containsString(results, "unresolved-reference docs/agents/commands/implement.md") {
				t.Errorf("the SARIF results, by repository path, lack the unresolved reference of commands/implement.md: %q", results)
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A release whose SHA256SUMS does not match the archive is not installed.
func TestActionRefusesABadChecksum(t *testing.T) {
	t.Parallel()
	dir, version := dist(t)
	host := hostPlatform(t)
	root := t.TempDir()
	tag := filepath.Join(root, "v"+version)
	if err := os.MkdirAll(tag, 0o755); err != nil {
		t.Fatal(err)
	}
	name := host.archiveName(version)
	if err := os.Symlink(filepath.Join(mustAbs(t, dir), name), filepath.Join(tag, name)); err != nil {
		t.Fatal(err)
	}
	bad := strings.Repeat("0", 64) + "  " + name + "\n"
	if err := os.WriteFile(filepath.Join(tag, "SHA256SUMS"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newActionRun(t, t.TempDir(), "", map[string]string{"version": version, "release-url": "file://" + root})
	if r.steps() {
		t.Fatalf("the job succeeded with a wrong checksum:\n%s", r.log.String())
	}
	if r.outputs["install"]["version"] != "" || len(r.path) > 0 {
		t.Errorf("the install step installed despite the checksum:\n%s", r.log.String())
	}
}
