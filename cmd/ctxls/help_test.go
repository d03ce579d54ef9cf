package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// Help is an answer, not an error: standard output, status 0, nothing on
// standard error.
func TestHelpOnStdout(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"help"}, {"--help"}, {"-h"}, {"help", "check"}, {"check", "--help"}, {"check", "-h"},
		{"chain", "run", "--help"}, {"help", "chain"}, {"version", "--help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, status := runCLIStatus(t, "", args...)
			if status != 0 || stderr != "" || !strings.Contains(stdout, "Usage") {
				t.Errorf("exit %d, stderr %q, stdout:\n%s", status, stderr, stdout)
			}
		})
	}
}

// ctxls help lists every command on a line of its own, with what it does.
func TestGlobalHelpOneLinePerCommand(t *testing.T) {
	t.Parallel()
	stdout, _, _ := runCLIStatus(t, "", "help")
	for _, c := range commands {
		if c.short == "" || strings.Contains(c.short, "\n") {
			t.Errorf("%s: short %q is not one line", c.name, c.short)
		}
		var lines []string
		for line := range strings.Lines(stdout) {
			if strings.HasPrefix(line, "  "+c.synopsis(false)[len("ctxls "):]+" ") {
				lines = append(lines, line)
			}
		}
		if len(lines) != 1 || !strings.HasSuffix(strings.TrimSpace(lines[0]), c.short) {
			t.Errorf("%s: help lines %q, want one ending in %q", c.name, lines, c.short)
		}
	}
}

// A misspelled command, chain command or flag names the one meant; a word
// near none names none.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"chek"}, `unknown command "chek"; did you mean "check"?`},
		{[]string{"serach", "x"}, `did you mean "search"?`},
		{[]string{"chian", "list"}, `did you mean "chain"?`},
		{[]string{"versoin"}, `did you mean "version"?`},
		{[]string{"chain", "delte", "x"}, `unknown chain command "delte"; did you mean "delete"?`},
		{[]string{"check", "--fromat", "json"}, "unknown flag --fromat; did you mean --format?"},
		{[]string{"check", "--fail", "warning"}, "unknown flag --fail; did you mean --fail-on?"},
		{[]string{"search", "x", "--limt", "3"}, "unknown flag --limt; did you mean --limit?"},
		{[]string{"chain", "list", "--curser", "x"}, "did you mean --cursor?"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"check", "--zzz"}, "unknown flag --zzz"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			_, stderr, status := runCLIStatus(t, "", tc.args...)
			if status != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", status, stderr, tc.want)
			}
			if strings.Contains(tc.want, "did you mean") != strings.Contains(stderr, "did you mean") {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	words := []string{"check", "catalog", "cost", "chain", "cache"}
	tests := []struct{ word, want string }{
		{"chek", "check"},
		{"cehck", "check"},
		{"catlog", "catalog"},
		{"cots", "cost"}, // a swap
		{"cat", "catalog"},
		{"ch", ""},    // a prefix of check and chain
		{"check", ""}, // already right
		{"xyzzy", ""}, // near nothing
		{"cachee", "cache"},
		{"", ""},
	}
	for _, tc := range tests {
		got, ok := suggest(tc.word, words)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("suggest(%q) = %q, %v; want %q", tc.word, got, ok, tc.want)
		}
	}
}

// --fail-on decides which severities fail the check.
func TestCheckFailOn(t *testing.T) {
	t.Parallel()
	// One warning (the index lists a topic that is not there), no error.
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/index.md": "# Python\n\n- [Gone](gone.md)\n- [A](a.md)\n",
		"context/python/a.md":     "# A\n\nText.\n",
	})
	out, _, _ := runCLIStatus(t, "", "check", "--no-cache", "--format", "json", dir)
	if !strings.Contains(out, `"severity":"warning"`) || strings.Contains(out, `"severity":"error"`) {
		t.Fatalf("the workspace should hold warnings and no error:\n%s", out)
	}
	for flag, want := range map[string]int{"error": 0, "warning": 1, "info": 1, "hint": 1, "never": 0} {
		if _, stderr, status := runCLIStatus(t, "", "check", "--no-cache", "--fail-on", flag, dir); status != want {
			t.Errorf("--fail-on %s: exit %d, want %d\n%s", flag, status, want, stderr)
		}
	}
	if _, stderr, status := runCLIStatus(t, "", "check", "--fail-on", "warn", dir); status != 2 || !strings.Contains(stderr, "--fail-on must be") {
		t.Errorf("--fail-on warn: exit %d\n%s", status, stderr)
	}
}

func TestDescribeBuild(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "44db725395bbbb74a1b1f5c084e72c3ba54ff1b7"
	tests := []struct {
		name            string
		bi              *debug.BuildInfo
		version, commit string
		modified        string
		want            build
	}{
		{"go run", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "dev", "", "",
			build{Version: "dev", Go: "go1.26.8"}},
		{"go build in a clone", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261202101041-44db725395bb+dirty"}, Settings: vcs(rev, "true")}, "dev", "", "",
			build{Version: "dev", Commit: rev, Modified: true, Go: "go1.26.8"}},
		{"go install module@version", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.0"}}, "dev", "", "",
			build{Version: "0.2.0", Go: "go1.26.8"}},
		{"release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "0.1.0", rev, "",
			build{Version: "0.1.0", Commit: rev, Go: "go1.26.8"}},
		{"release of a changed tree", &debug.BuildInfo{GoVersion: "go1.26.8"}, "0.1.0", rev, "true",
			build{Version: "0.1.0", Commit: rev, Modified: true, Go: "go1.26.8"}},
		{"release over recorded vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs("other", "true")}, "0.1.0", rev, "",
			build{Version: "0.1.0", Commit: rev, Go: "go1.26.8"}},
	}
	for _, tc := range tests {
		got := describeBuild(tc.bi, tc.version, tc.commit, tc.modified)
		got.Platform = ""
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	line := build{Version: "0.1.0", Commit: rev, Modified: true, Go: "go1.26.8", Platform: "linux/amd64"}.String()
	if want := "ctxls 0.1.0, commit " + rev + " with local changes, go1.26.8 linux/amd64"; line != want {
		t.Errorf("String() = %q, want %q", line, want)
	}
	if !isPseudoVersion("v1.2.4-pre.0.20261202101041-44db725395bb") || isPseudoVersion("v1.2.3") || isPseudoVersion("v1.2.3-rc.1") {
		t.Error("isPseudoVersion")
	}
}

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	stdout, stderr, status := runCLIStatus(t, "", "version")
	if status != 0 || stderr != "" || !strings.HasPrefix(stdout, "ctxls ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("exit %d, stderr %q, stdout %q", status, stderr, stdout)
	}
}
