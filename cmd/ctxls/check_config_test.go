package main

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// contextRoot ends a .ctxls.yaml of a test: the tree's folder context is
// its library, which no file of it shows.
const contextRoot = "contextRoots: [context]\n"

func TestCheckReportsConfigProblems(t *testing.T) {
	t.Parallel()
	const topic = "# A\n\nText.\n"
	cases := []struct {
		name   string
		config string
		want   []ops.Diagnostic
		code   int
	}{
		{
			name:   "bad tokenizer is an error on its line",
			config: "ignore: [vendor]\ntokenizer: bogus\n",
			want: []ops.Diagnostic{{File: ".ctxls.yaml", Line: 2, Column: 1, EndLine: 3, EndColumn: 1, Severity: "error", Code: "config",
				Message: `unknown tokenizer "bogus" (want one of o200k_base, cl100k_base, claude, claude-3, claude-4.7, claude-5, estimate); using o200k_base`}},
			code: 1,
		},
		{
			name:   "unknown setting is a warning on its line",
			config: "ignore: [vendor]\nfoo: 1\n",
			want: []ops.Diagnostic{{File: ".ctxls.yaml", Line: 2, Column: 1, EndLine: 3, EndColumn: 1, Severity: "warning", Code: "config",
				Message: `unknown setting "foo" is ignored`}},
			code: 0,
		},
		{
			name:   "valid configuration",
			config: "tokenizer: estimate\n",
			code:   0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := libtest.WriteTree(t, map[string]string{".ctxls.yaml": c.config + contextRoot, "context/python/a.md": topic})
			out, stderr, err := runCLI(t, "check", dir, "--format", "json")
			if exitCode(err) != c.code {
				t.Errorf("exit = %v, want %d", err, c.code)
			}
			if got := decodeRecords(t, out); !reflect.DeepEqual(got, c.want) {
				t.Errorf("records = %+v\nwant %+v", got, c.want)
			}
			// Reported once, as records.
			if strings.Contains(stderr, ".ctxls.yaml") {
				t.Errorf("stderr repeats the problems: %q", stderr)
			}
		})
	}
}

func TestCheckTextCountsConfigProblems(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{".ctxls.yaml": "tokenizer: bogus\nfoo: 1\n" + contextRoot, "context/python/a.md": "# A\n\nText.\n"})
	out := runExit(t, 1, "check", dir)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want two problems, a blank line, the roots and a summary:\n%s", out)
	}
	for i, prefix := range []string{".ctxls.yaml:1:1  error    config  unknown tokenizer", ".ctxls.yaml:2:1  warning  config  unknown setting"} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d = %q, want prefix %q", i+1, lines[i], prefix)
		}
	}
	if want := "2 problems (1 error, 1 warning) in 1 file · "; !strings.HasPrefix(lines[4], want) {
		t.Errorf("summary = %q, want prefix %q", lines[4], want)
	}
}

// Commands other than check warn about .ctxls.yaml and go on with the
// defaults.
func TestOtherCommandsWarnAboutConfig(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{".ctxls.yaml": "tokenizer: bogus\n" + contextRoot, "context/python/a.md": "# Alpha\n\nText.\n"})
	for _, args := range [][]string{
		{"catalog", "--dir", dir},
		{"search", "alpha", "--dir", dir},
		{"show", "python:a", "--dir", dir},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			out, stderr, err := runCLI(t, args...)
			if err != nil {
				t.Errorf("err = %v", err)
			}
			if !strings.Contains(stderr, `error: .ctxls.yaml:1: unknown tokenizer "bogus"`) {
				t.Errorf("stderr = %q, want the configuration problem", stderr)
			}
			if out == "" {
				t.Error("no output")
			}
		})
	}
}

func TestCheckPrintsDuplicateTopicOnce(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/a.md":      "# A\n\nText.\n",
		"docs/context/python/a.md": "---\ndomain: python\n---\n# A\n\nText.\n",
		"commands/c.md":            "# C\n",
		"tools/commands/c.md":      "# C\n",
	})
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, stderr, err := runCLI(t, "check", dir, "--format", format)
			if err != nil {
				t.Errorf("exit = %v, want success (warnings only)", err)
			}
			if n := strings.Count(out, "duplicate-topic"); n != 1 {
				t.Errorf("stdout has %d duplicate-topic problems, want 1:\n%s", n, out)
			}
			if strings.Contains(stderr, "python/a") {
				t.Errorf("stderr repeats the duplicate topic: %q", stderr)
			}
			// A duplicate command has no diagnostic, so its warning stays.
			if !strings.Contains(stderr, "warning: tools/commands/c.md: command c is also defined by") {
				t.Errorf("stderr lacks the duplicate command: %q", stderr)
			}
		})
	}
}

// check takes its workspace as catalog and search do: DIR or --dir.
func TestCheckDirFlag(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"context/python/a.md": "# A\n\nText.\n"})
	if out, _, err := runCLI(t, "check", "--dir", dir); err != nil || !strings.Contains(out, "\n0 problems") {
		t.Errorf("--dir: %v %q", err, out)
	}
	var ue usageError
	if _, _, err := runCLI(t, "check", dir, "--dir", dir); !errors.As(err, &ue) {
		t.Errorf("DIR and --dir: err = %v, want a usage error", err)
	}
}

// A chain that names no command would fail at that step when run; check
// says so at the chain's line.
func TestCheckReportsUnknownChainCommand(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		".ctxls.yaml":           "chains:\n  ok: [implement]\n  broken: [implement, deploy]\n",
		"commands/implement.md": "# Implement\n",
		"context/python/a.md":   "# A\n\nText.\n",
	})
	out := runExit(t, 1, "check", dir, "--format", "json")
	want := []ops.Diagnostic{{File: ".ctxls.yaml", Line: 3, Column: 1, EndLine: 4, EndColumn: 1, Severity: "error", Code: "config",
		Message: `chain "broken" names "deploy", which is no command of the workspace`}}
	if got := decodeRecords(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("records = %+v\nwant %+v", got, want)
	}
}

// A directory of plain markdown is checked for its links, and the
// summary says so and how a folder becomes a context library.
func TestCheckPlainMarkdown(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"README.md":            "# Hello\n\nSee [usage](docs/usage.md) and [gone](docs/gone.md).\n",
		"docs/index.md":        "# Docs\n",
		"docs/usage.md":        "# Usage\n\n## Browser WebRTC + server sideband\n\nSee [it](#browser-webrtc-server-sideband).\n",
		"guide/index.md":       "# Guide\n",
		"src/context/mod.rs":   "",
		"src/context/notes.md": "# Notes\n",
	})
	out, _, status := runCLIStatus(t, "", "check", dir)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := []string{
		"README.md:3:39  warning  markdown-link-broken  docs/gone.md names no file (looked for docs/gone.md)",
		"",
		"no context library: a folder is one when contextRoots in .ctxls.yaml names it, or it holds loading_protocol.md or topic frontmatter (2 folders that looked like one showed neither)",
		"1 problem (0 errors, 1 warning) in 1 file · 0 agent files and 5 other markdown files checked",
	}
	if status != 0 || !slices.Equal(lines, want) {
		t.Errorf("exit %d, output:\n%s\nwant:\n%s", status, out, strings.Join(want, "\n"))
	}
}

// A directory without anything ctxls recognises is not reported clean.
func TestCheckNothingRecognised(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"src/main.go": "package main\n", "src/notes.txt": "notes\n"})
	out, stderr, status := runCLIStatus(t, "", "check", dir)
	if status != 0 || !strings.HasPrefix(out, "nothing to check in "+dir) || !strings.Contains(out, "contextRoots") || strings.Contains(out, "0 problems") {
		t.Errorf("exit %d, stdout %q, stderr %q", status, out, stderr)
	}
	out, stderr, _ = runCLIStatus(t, "", "check", dir, "--format", "json")
	if out != "" || !strings.Contains(stderr, "nothing to check") {
		t.Errorf("JSON: stdout %q, stderr %q", out, stderr)
	}
}
