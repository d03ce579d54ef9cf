package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// mistakesProject is a Claude Code project holding every kind of mistake
// ctxls reports in Claude Code's files, and otherwise correct files;
// mistakesProjectWant lists each mistake as "file:line code # why".
const (
	mistakesProject     = "../../testdata/claude-project"
	mistakesProjectWant = "../../testdata/claude-project.want"
)

// claudeFamilies are the codes of Claude Code's own files: hooks,
// settings, output styles, subagents and skill fields, plugins, MCP
// configurations and what memory files promise. The project must
// trigger each of them.
var claudeFamilies = []string{
	diag.HookShapeInvalid, diag.HookEventUnknown, diag.HookMatcherInvalid, diag.HookMatcherIgnored,
	diag.HookMatcherFilePattern, diag.HookMatcherNoValue, diag.HookHandlerInvalid, diag.HookKeyUnknown, diag.HookScriptMissing,
	diag.HookScriptNotExecutable, diag.HookEnvUnset,
	diag.SettingsValueInvalid, diag.SettingsPermissionInvalid, diag.SettingsKeyUnknown, diag.SettingsKeyIgnored,
	diag.SettingsOutputStyleMissing, diag.OutputStyleFieldInvalid, diag.JSONSyntax,
	diag.SubagentNameInvalid, diag.SubagentFieldInvalid, diag.SkillFieldInvalid,
	diag.PluginComponentMisplaced, diag.PluginPathOutside, diag.PluginFolderShadowed, diag.PluginUserConfigInvalid, diag.PluginHooksDuplicate,
	diag.JSONDuplicateKey,
	diag.MCPFieldMissing, diag.MCPFieldInvalid, diag.MCPTypeUnknown, diag.MCPTransportConflict,
	diag.MCPKeyMisspelled, diag.MCPVariableUnexpanded, diag.MCPSecretPlainText, diag.MCPServerNameReserved,
	diag.MemoryCommandUndefined, diag.MemoryPathMissing, diag.MemoryDuplicate,
}

// readWant reads "file:line code # why" lines, skipping comments.
func readWant(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		switch len(fields) {
		case 0:
			continue
		case 2:
			out = append(out, fields[0]+" "+fields[1])
		default:
			t.Fatalf("%s: %q is not \"file:line code # why\"", name, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestClaudeProject checks the Claude Code project: every mistake is
// reported at its line with a message, nothing else is, each code of the
// Claude Code families is among them, and each is in the rules table and
// the README's rule list.
func TestClaudeProject(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "check", "--no-cache", "--show", "hint", "--format", "json", mistakesProject)
	if exitCode(err) != 1 {
		t.Fatalf("check exits %d (%v), want 1 for the errors", exitCode(err), err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var d struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if len(d.Message) < 20 {
			t.Errorf("%s:%d %s: message %q says too little to act on", d.File, d.Line, d.Code, d.Message)
		}
		got = append(got, fmt.Sprintf("%s:%d %s", d.File, d.Line, d.Code))
	}
	slices.Sort(got)
	want := readWant(t, mistakesProjectWant)
	if runtime.GOOS == "windows" {
		// Windows has no executable bit.
		want = slices.DeleteFunc(want, func(w string) bool { return strings.HasSuffix(w, " "+diag.HookScriptNotExecutable) })
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("reported but not expected: %s", g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("expected but not reported: %s", w)
		}
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range claudeFamilies {
		if !slices.ContainsFunc(readWant(t, mistakesProjectWant), func(w string) bool { return strings.HasSuffix(w, " "+code) }) {
			t.Errorf("no mistake of the project triggers %s", code)
		}
		if _, ok := diag.Lookup(code); !ok {
			t.Errorf("%s is not in the rules table", code)
		}
		if !strings.Contains(string(readme), "[`"+code+"`]") {
			t.Errorf("%s is not in the README's rule list", code)
		}
	}
}
