package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/testtree"
	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

// check writes the index cache and gives the same report from it, in
// both formats and after a file changed; --no-cache neither reads nor
// writes it.
func TestCheckIndexCache(t *testing.T) {
	cacheDir := t.TempDir()
	t.Setenv(indexcache.EnvDir, cacheDir)
	dir := libtest.CopyExample(t)
	cacheFiles := func() int {
		t.Helper()
		ents, err := os.ReadDir(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	check := func(args ...string) (string, int) {
		t.Helper()
		out, _, err := runCLI(t, append([]string{"check", dir}, args...)...)
		return out, exitCode(err)
	}

	for _, step := range []string{"unchanged", "changed"} {
		if step == "changed" {
			p := filepath.Join(dir, "commands", "implement.md")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "\nAlso load python:no_such_topic_here.\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range []string{"json", "text"} {
			want, wantCode := check("--format", format, "--no-cache")
			if wantCode != 1 || want == "" {
				t.Fatalf("%s, check --no-cache --format %s: exit %d, output %q", step, format, wantCode, want)
			}
			if step == "changed" && !strings.Contains(want, "no_such_topic_here") {
				t.Fatalf("the changed file's problem is missing from check --no-cache:\n%s", want)
			}
			for _, run := range []string{"first", "second"} {
				got, code := check("--format", format)
				if got != want || code != wantCode {
					t.Errorf("%s, %s check --format %s (exit %d) differs from check --no-cache (exit %d):\n got %s\nwant %s", step, run, format, code, wantCode, got, want)
				}
			}
		}
		if n := cacheFiles(); n != 2 {
			t.Fatalf("%s: %d files in the cache directory, want 2 (the index and the report)", step, n)
		}
	}

	empty := t.TempDir()
	t.Setenv(indexcache.EnvDir, empty)
	check("--no-cache")
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("check --no-cache wrote %d files to the cache directory", len(ents))
	}
}

// TestCheckReportCache checks that check prints the report it kept for an
// unchanged workspace, and that a change to an agent file, or a file
// appearing that an agent file imports, makes it check again.
func TestCheckReportCache(t *testing.T) {
	t.Setenv(indexcache.EnvDir, t.TempDir())
	dir := libtest.CopyExample(t)
	check := func(args ...string) string {
		t.Helper()
		out, _, err := runCLI(t, append([]string{"check", dir, "--format", "json"}, args...)...)
		if code := exitCode(err); code != 0 && code != 1 {
			t.Fatalf("check %v: %v", args, err)
		}
		return out
	}
	same := func(step string) string {
		t.Helper()
		want := check("--no-cache")
		for _, run := range []string{"first", "second"} {
			if got := check(); got != want {
				t.Fatalf("%s, %s check differs from check --no-cache:\n got %s\nwant %s", step, run, got, want)
			}
		}
		return want
	}
	edit := func(rel, add string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(data, add...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// plant keeps a report no check would give under the workspace's
	// current fingerprint: a check that prints it read the cache.
	plant := func() {
		t.Helper()
		rc := openReportCache(t.Context(), dir, io.Discard)
		if rc == nil {
			t.Fatal("no report cache")
		}
		data, err := json.Marshal(checkReport{Records: []ops.Diagnostic{{File: "planted.md", Line: 1, Column: 1, EndLine: 1, EndColumn: 2, Severity: "warning", Code: "planted"}}, Topics: 1})
		if err != nil {
			t.Fatal(err)
		}
		rc.cache.StoreResult(reportName, rc.fp, data)
		if err := rc.cache.Save(); err != nil {
			t.Fatal(err)
		}
	}

	same("unchanged")
	plant()
	if got := check(); !strings.Contains(got, "planted") {
		t.Fatalf("check of an unchanged workspace did not print the kept report:\n%s", got)
	}

	edit("CLAUDE.md", "\nNotes: @notes/later.txt\n")
	got := same("agent file changed")
	if strings.Contains(got, "planted") || !strings.Contains(got, "import-missing") {
		t.Fatalf("after CLAUDE.md changed, check printed:\n%s", got)
	}

	plant()
	edit("notes/later.txt", "now it exists\n")
	got = same("imported file created")
	if strings.Contains(got, "planted") || strings.Contains(got, "import-missing") {
		t.Fatalf("after the imported file appeared, check printed:\n%s", got)
	}
}

// BenchmarkFingerprint hashes a tree of 4,000 small files in 40 folders,
// what every check does before it looks for a cached report.
func BenchmarkFingerprint(b *testing.B) {
	dir := b.TempDir()
	for i := range 4000 {
		testtree.WriteAt(b, dir, fmt.Sprintf("d%02d/sub/f%04d.md", i%40, i), strings.Repeat("line of text\n", 20))
	}
	for b.Loop() {
		if _, ok := fingerprint(b.Context(), dir); !ok {
			b.Fatal("no fingerprint")
		}
	}
}
