package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// runCLI runs one command line in process.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(t.Context(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

// runExit runs one command line in process, fails the test unless it
// exits with want, and returns its standard output.
func runExit(t *testing.T, want int, args ...string) string {
	t.Helper()
	out, errOut, err := runCLI(t, args...)
	if got := exitCode(err); got != want {
		t.Fatalf("ctxls %s: exit %d (%v), want %d\n%s%s", strings.Join(args, " "), got, err, want, out, errOut)
	}
	return out
}

func exitCode(err error) int {
	var code exitError
	if errors.As(err, &code) {
		return int(code)
	}
	if err != nil {
		return -1
	}
	return 0
}

func decodeRecords(t *testing.T, out string) []ops.Diagnostic {
	t.Helper()
	var recs []ops.Diagnostic
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r ops.Diagnostic
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %q is not a check record: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestCheckExampleLibraryJSON(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "examples", "library")
	recs := decodeRecords(t, runExit(t, 1, "check", dir, "--format", "json"))
	if len(recs) == 0 {
		t.Fatal("no records")
	}
	errorsSeen, warnings := 0, 0
	nameRE := regexp.MustCompile(`no topic "([^"]+)"|no section "([^"]+)"`)
	checked := 0
	for _, r := range recs {
		if filepath.IsAbs(r.File) || strings.HasPrefix(r.File, "..") || strings.Contains(r.File, `\`) {
			t.Errorf("file %q is not relative to DIR with forward slashes", r.File)
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.File)))
		if err != nil {
			t.Errorf("record names a file that does not exist: %v", err)
			continue
		}
		lines := strings.Split(string(data), "\n")
		if r.Line < 1 || r.Line > len(lines) || r.Column < 1 {
			t.Errorf("%s:%d:%d out of range", r.File, r.Line, r.Column)
			continue
		}
		switch r.Severity {
		case "error":
			errorsSeen++
		case "warning":
			warnings++
		case "info", "hint":
		default:
			t.Errorf("severity %q", r.Severity)
		}
		if r.Code == "" || r.Message == "" {
			t.Errorf("record without code or message: %+v", r)
		}
		// The position points at the name the message complains about.
		if m := nameRE.FindStringSubmatch(r.Message); m != nil {
			name := m[1] + m[2]
			line := []rune(lines[r.Line-1])
			if r.Column-1+len([]rune(name)) > len(line) || string(line[r.Column-1:r.Column-1+len([]rune(name))]) != name {
				t.Errorf("%s:%d:%d does not point at %q in %q", r.File, r.Line, r.Column, name, lines[r.Line-1])
			}
			checked++
		}
	}
	if errorsSeen == 0 || warnings == 0 || checked < 3 {
		t.Errorf("errors %d warnings %d positions checked %d", errorsSeen, warnings, checked)
	}
	// Records are sorted by file and position.
	for i := 1; i < len(recs); i++ {
		a, b := recs[i-1], recs[i]
		if a.File > b.File || a.File == b.File && (a.Line > b.Line || a.Line == b.Line && a.Column > b.Column) {
			t.Errorf("records out of order: %+v before %+v", a, b)
		}
	}
}

func TestCheckExampleLibraryText(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "examples", "library")
	jsonOut, _, _ := runCLI(t, "check", "--format", "json", dir)
	recs := decodeRecords(t, jsonOut)
	out := runExit(t, 1, "check", dir)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	// The records, a blank line, the context roots and the counts.
	if len(lines) != len(recs)+3 {
		t.Fatalf("text has %d lines for %d records:\n%s", len(lines), len(recs), out)
	}
	for i, r := range recs {
		fields := strings.Fields(lines[i])
		loc := r.File + ":" + strconv.Itoa(r.Line) + ":" + strconv.Itoa(r.Column)
		if len(fields) < 4 || fields[0] != loc || fields[1] != r.Severity || fields[2] != r.Code {
			t.Errorf("text line %q does not match record %+v", lines[i], r)
		}
	}
	// Columns are aligned: every severity starts at the same offset.
	col := strings.Index(lines[0], recs[0].Severity)
	for i, r := range recs {
		if strings.Index(lines[i], " "+r.Severity+" ")+1 != col {
			t.Errorf("line %d not aligned: %q", i, lines[i])
		}
	}
	summary := lines[len(lines)-1]
	for _, want := range []string{"problems", "errors", "warnings", "topics", "domains", "commands", "tokens"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary %q lacks %q", summary, want)
		}
	}
	// Each severity is counted on its own: information is no warning.
	bySeverity := map[string]int{}
	for _, r := range recs {
		bySeverity[r.Severity]++
	}
	if bySeverity["info"] == 0 {
		t.Fatal("the example library has no information to count")
	}
	want := fmt.Sprintf("%d problems (%d errors, %d warnings, %d info",
		len(recs), bySeverity["error"], bySeverity["warning"], bySeverity["info"])
	if bySeverity["hint"] > 0 {
		want += fmt.Sprintf(", %d hint", bySeverity["hint"])
	}
	if !strings.HasPrefix(summary, want) {
		t.Errorf("summary %q, want prefix %q", summary, want)
	}
}

// readmeProblem is one row of the table of deliberate problems in
// examples/library/README.md.
type readmeProblem struct {
	File       string
	Line       int
	Code       string
	DidYouMean bool
}

// readmeProblems parses the table that follows the "should report exactly
// these" sentence of the example library's README.
func readmeProblems(t *testing.T, readme string) []readmeProblem {
	t.Helper()
	_, after, ok := strings.Cut(readme, "should report exactly these")
	if !ok {
		t.Fatal("README has no table of expected problems")
	}
	code := regexp.MustCompile("`([^`]+)`")
	var rows []readmeProblem
	inTable := false
	for line := range strings.Lines(after) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) != 4 {
			t.Fatalf("table row %q has %d cells, want 4", line, len(cells))
		}
		if cells[0] == "File" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		n, err := strconv.Atoi(cells[1])
		file, diag := code.FindStringSubmatch(cells[0]), code.FindStringSubmatch(cells[3])
		if err != nil || file == nil || diag == nil {
			t.Fatalf("table row %q: want a `file`, a line number and a `code`", line)
		}
		rows = append(rows, readmeProblem{File: file[1], Line: n, Code: diag[1], DidYouMean: strings.Contains(cells[3], "did you mean")})
	}
	if len(rows) == 0 {
		t.Fatal("README's table of expected problems is empty")
	}
	return rows
}

// TestCheckExampleLibraryMatchesREADME keeps the example library's README
// honest: its table of deliberate problems is exactly what check reports.
func TestCheckExampleLibraryMatchesREADME(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "examples", "library")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := readmeProblems(t, string(readme))
	out, _, _ := runCLI(t, "check", "--format", "json", dir)
	var got []readmeProblem
	for _, r := range decodeRecords(t, out) {
		got = append(got, readmeProblem{File: r.File, Line: r.Line, Code: r.Code, DidYouMean: strings.Contains(r.Message, "did you mean")})
	}
	key := func(p readmeProblem) string {
		k := fmt.Sprintf("%s:%d %s", p.File, p.Line, p.Code)
		if p.DidYouMean {
			k += " (did you mean)"
		}
		return k
	}
	count := map[string]int{}
	for _, p := range want {
		count[key(p)]++
	}
	for _, p := range got {
		count[key(p)]--
	}
	for _, k := range slices.Sorted(maps.Keys(count)) {
		switch n := count[k]; {
		case n > 0:
			t.Errorf("README lists %s, check does not report it", k)
		case n < 0:
			t.Errorf("check reports %s, the README does not list it", k)
		}
	}
}

func TestCheckPositionsAndExitStatus(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, files map[string]string) string {
		return libtest.WriteTree(t, files)
	}
	t.Run("columns count characters, lines and columns are 1-based", func(t *testing.T) {
		t.Parallel()
		dir := write(t, map[string]string{
			"context/python/a.md": "# A\n",
			"commands/c.md":       "# C\n\n😀 é python:nope\n",
		})
		out, _, err := runCLI(t, "check", "--format", "json", dir)
		if exitCode(err) != 1 {
			t.Errorf("exit = %v, want 1", err)
		}
		recs := decodeRecords(t, out)
		want := ops.Diagnostic{File: "commands/c.md", Line: 3, Column: 12, EndLine: 3, EndColumn: 16, Severity: "error", Code: "unresolved-reference",
			Message: `domain python has no topic "nope"`}
		if len(recs) != 1 || !reflect.DeepEqual(recs[0], want) {
			t.Errorf("records = %+v\nwant %+v", recs, want)
		}
	})
	t.Run("warnings only exit 0", func(t *testing.T) {
		t.Parallel()
		dir := write(t, map[string]string{
			"context/python/a.md": "---\nid: python/b\n---\n# A\n",
		})
		out, _, err := runCLI(t, "check", "--format", "json", dir)
		if err != nil {
			t.Errorf("exit = %v, want success", err)
		}
		for _, r := range decodeRecords(t, out) {
			if r.Severity != "warning" {
				t.Errorf("record %+v", r)
			}
		}
	})
	t.Run("clean workspace prints a summary", func(t *testing.T) {
		t.Parallel()
		dir := write(t, map[string]string{"context/python/a.md": "# A\n\nText.\n", "commands/c.md": "# C\n\npython:a\n"})
		out, _, err := runCLI(t, "check", dir)
		if err != nil {
			t.Errorf("exit = %v", err)
		}
		if !strings.Contains(out, "\n0 problems (0 errors, 0 warnings) in 0 files · 1 topic in 1 domain · 1 command") || !strings.HasPrefix(out, "context library: context/ (") {
			t.Errorf("out = %q", out)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"check", "--format", "xml"},
			{"check", "a", "b"},
		} {
			_, _, err := runCLI(t, args...)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Errorf("%v: err = %v, want a usage error", args, err)
			}
		}
		_, _, err := runCLI(t, "check", filepath.Join(t.TempDir(), "missing"))
		if err == nil || exitCode(err) != -1 {
			t.Errorf("missing dir: %v", err)
		}
	})
}

// TestCheckTextEscapesFileNames: a file name holding a newline cannot
// forge a line of the text output; it is printed escaped, on its record's
// one line.
func TestCheckTextEscapesFileNames(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/fastapi.md": "# FastAPI\n\nRoutes.\n",
		"commands/a\nforged.md":     "Use python:nope_topic here.\n",
	})
	out := runExit(t, 1, "check", dir)
	if !strings.Contains(out, `commands/a\nforged.md:1:`) {
		t.Errorf("the record does not name the file escaped:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "forged.md") {
			t.Errorf("a file name forged the line %q", line)
		}
	}
}
