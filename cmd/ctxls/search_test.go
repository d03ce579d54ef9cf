package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

func TestSearchCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		top  string
		code int
	}{
		{[]string{"search", "fastapi", "--dir", exampleDir, "--format", "json"}, "python/fastapi_patterns", 0},
		{[]string{"search", "pytest fixtures", "--format", "json", "--dir", exampleDir}, "testing/pytest_patterns", 0},
		{[]string{"search", "secret", "--domain", "python", "--format", "json", "--dir", exampleDir}, "", 0},
		{[]string{"search", "nothingmatchesthis", "--format", "json", "--dir", exampleDir}, "", 1},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			out, _, err := runCLI(t, c.args...)
			if exitCode(err) != c.code {
				t.Fatalf("exit %v", err)
			}
			var res struct {
				Items []struct {
					ID        string   `json:"id"`
					Kind      string   `json:"kind"`
					Relevance float64  `json:"relevance"`
					MatchedOn []string `json:"matchedOn"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.Items == nil {
				t.Fatalf("bad JSON (%v): %s", err, out)
			}
			if c.top != "" && (len(res.Items) == 0 || res.Items[0].ID != c.top) {
				t.Fatalf("top result %+v, want %s", res.Items, c.top)
			}
			for _, it := range res.Items {
				if it.Relevance <= 0 || it.Relevance > 1 || len(it.MatchedOn) == 0 {
					t.Errorf("item %+v", it)
				}
				if strings.Contains(strings.Join(c.args, " "), "--domain python") && (it.Kind != "topic" || !strings.HasPrefix(it.ID, "python/")) {
					t.Errorf("%s %s outside the domain", it.Kind, it.ID)
				}
			}
		})
	}
}

func TestSearchText(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "search", "sql injection", "--dir", exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "RELEVANCE") || !strings.Contains(lines[1], "security:secure_coding") {
		t.Errorf("output:\n%s", out)
	}
	if !strings.HasPrefix(lines[len(lines)-1], `3 results for "sql injection": 3 topics in 2 domains · `) {
		t.Errorf("summary %q", lines[len(lines)-1])
	}
	if out, _, err := runCLI(t, "search", "zzzz", "--dir", exampleDir); exitCode(err) != 1 || !strings.Contains(out, `0 results for "zzzz"`) {
		t.Errorf("no results: %v %q", err, out)
	}
	if _, _, err := runCLI(t, "search", "--dir", exampleDir); err == nil {
		t.Error("search without a query succeeded")
	}
}

// search takes its workspace as catalog and check do: QUERY [DIR] or --dir.
func TestSearchDirectoryArgument(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		usage    bool   // a usage error
		errorHas string // another error mentioning this
		query    string // the query searched for
	}{
		{name: "positional DIR", args: []string{"search", "django", exampleDir}, query: "django"},
		{name: "dir flag", args: []string{"search", "django", "--dir", exampleDir}, query: "django"},
		{name: "quoted words and DIR", args: []string{"search", "pytest fixtures", exampleDir}, query: "pytest fixtures"},
		{name: "DIR and dir flag", args: []string{"search", "django", exampleDir, "--dir", exampleDir}, usage: true},
		{name: "unquoted words", args: []string{"search", "pytest", "fixtures", "--dir", exampleDir}, usage: true},
		{name: "three words", args: []string{"search", "a", "b", "c"}, usage: true},
		{name: "second word not a directory", args: []string{"search", "pytest", "fixtures-not-a-dir"}, errorHas: `quote a query of several words: ctxls search "pytest fixtures-not-a-dir"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, _, err := runCLI(t, c.args...)
			var ue usageError
			switch {
			case c.usage:
				if !errors.As(err, &ue) {
					t.Errorf("err = %v, want a usage error", err)
				}
			case c.errorHas != "":
				if err == nil || !strings.Contains(err.Error(), c.errorHas) {
					t.Errorf("err = %v, want one mentioning %q", err, c.errorHas)
				}
			default:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if !strings.Contains(out, fmt.Sprintf("for %q", c.query)) {
					t.Errorf("output does not search for %q:\n%s", c.query, out)
				}
			}
		})
	}
}

// The text table is formatted as catalog's: numbers right-aligned with
// thousands separators, then a summary.
func TestSearchTextFormatsLikeCatalog(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/big/large.md": "# Widget Large\n\n" + strings.Repeat("word ", 3000) + "\n",
		"context/big/small.md": "# Widget Small\n\nShort.\n",
	})
	out, _, err := runCLI(t, "search", "widget", dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("want a header, two rows, a blank line and a summary:\n%s", out)
	}
	tokensEnd := strings.Index(lines[0], "TOKENS") + len("TOKENS")
	for _, line := range lines[1:3] {
		fields := strings.Fields(line)
		if !strings.HasPrefix(line, " ") || !strings.Contains(fields[0], ".") {
			t.Errorf("relevance not right-aligned under RELEVANCE: %q", line)
		}
		// The count ends where the header does.
		if c := line[tokensEnd-1]; c < '0' || c > '9' || line[tokensEnd] != ' ' {
			t.Errorf("token count not right-aligned under TOKENS: %q", line)
		}
	}
	if !strings.Contains(lines[1], "big:large") || !regexp.MustCompile(`\b\d,\d{3}\b`).MatchString(lines[1]) {
		t.Errorf("large topic without a thousands separator: %q", lines[1])
	}
	if !regexp.MustCompile(`^2 results for "widget": 2 topics in 1 domain · \d,\d{3} tokens measured \(o200k_base\)$`).MatchString(lines[4]) {
		t.Errorf("summary = %q", lines[4])
	}
}

func TestPrintTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		rows  [][]string
		right []bool
		want  string
	}{
		{"left", [][]string{{"A", "B", "C"}, {"long", "x", "y"}}, nil, "A     B  C\nlong  x  y\n"},
		{"right numbers", [][]string{{"N", "NAME"}, {"1,234", "é"}, {"5", "z"}}, []bool{true}, "    N  NAME\n1,234  é\n    5  z\n"},
		{"last column unpadded", [][]string{{"A", "TITLE"}, {"b", "x"}}, []bool{false, false}, "A  TITLE\nb  x\n"},
		{"runes count as one", [][]string{{"ÉÉ", "1"}, {"a", "22"}}, []bool{false, true}, "ÉÉ   1\na   22\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			printTable(&b, c.rows, c.right)
			if b.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), c.want)
			}
		})
	}
}

// search exits as grep does, in either format.
func TestSearchExitStatus(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"search", "django", exampleDir}, 0},
		{[]string{"search", "django", exampleDir, "--format", "json"}, 0},
		{[]string{"search", "nothingmatchesthis", exampleDir}, 1},
		{[]string{"search", "nothingmatchesthis", exampleDir, "--format", "json"}, 1},
		{[]string{"search", "django", exampleDir, "--domain", "nosuchdomain"}, 1},
		{[]string{"search", "--dir", exampleDir}, 2},
		{[]string{"search", "django", exampleDir, "--format", "xml"}, 2},
		{[]string{"search", "django", "--dir", missing}, 2},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			_, _, err := runCLI(t, c.args...)
			if got := exitStatus(err, io.Discard); got != c.want {
				t.Errorf("exit status %d (%v), want %d", got, err, c.want)
			}
		})
	}
}
