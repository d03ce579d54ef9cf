package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchGeneratesAndMeasures(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "lib")
	out, _, err := runCLI(t, "bench", "--topics", "60", "--dir", dir, "--tokenizer", "estimate", "-n", "4", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var r benchReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if !r.Generated || r.Topics < 60 || r.Domains != 50 || r.Bytes < 60*3000 || r.Tokenizer != "estimate" {
		t.Errorf("report = %+v", r)
	}
	if r.ColdMS <= 0 || r.ApplyMS <= 0 || r.SearchMS <= 0 || r.SearchResult == 0 || r.DiagnoseMS <= 0 {
		t.Errorf("missing measurements: %+v", r)
	}
	if _, err := os.Stat("/proc/self/status"); err == nil && (r.RSSPeakMiB <= 0 || r.RSSPeakMiB < r.RSSMiB) {
		t.Errorf("memory: rss %.1f peak %.1f", r.RSSMiB, r.RSSPeakMiB)
	}
	// The re-index leaves the library as the disk has it.
	data, err := os.ReadFile(filepath.Join(dir, r.SampledFile))
	if err != nil || strings.Contains(string(data), "Edited paragraph") {
		t.Errorf("sampled file changed on disk: %v", err)
	}

	// A second run indexes the existing library without generating.
	out, _, err = runCLI(t, "bench", "--dir", dir, "--tokenizer", "estimate", "-n", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"existing workspace", "cold index", "re-index one file", "search", "peak resident"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"bench", "x"}, {"bench", "--topics", "0"}, {"bench", "--format", "yaml"}} {
		if _, _, err := runCLI(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
