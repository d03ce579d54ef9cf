package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/context/rules"
)

// Every rule of the SARIF log has the address of its page, and the page is
// in the repository where the address says.
func TestSARIFRulesLinkTheirPages(t *testing.T) {
	t.Parallel()
	out := runExit(t, 1, "check", "--no-cache", "--format", "sarif", exampleDir)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF run (%v):\n%s", err, out)
	}
	driver := log.Runs[0].Tool.Driver
	if driver.InformationURI != rules.Repository || len(driver.Rules) != len(rules.All()) {
		t.Fatalf("informationUri %q, %d rules", driver.InformationURI, len(driver.Rules))
	}
	prefix := rules.Repository + "/blob/main/"
	for _, r := range driver.Rules {
		rel, ok := strings.CutPrefix(r.HelpURI, prefix)
		if !ok {
			t.Errorf("%s: helpUri %q is not in %s", r.ID, r.HelpURI, prefix)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(rel))); err != nil {
			t.Errorf("%s: helpUri %s names no file of the repository: %v", r.ID, r.HelpURI, err)
		}
	}
}

// SARIF names files relative to the working directory when the workspace
// lies inside it, as code scanning resolves them against the checkout.
func TestSARIFPrefix(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		".":                         "",
		"docs/agents":               "docs/agents",
		filepath.Join(wd, "a", "b"): "a/b",
		"..":                        "",
		filepath.Join("..", "x"):    "",
		"..x":                       "..x",
	} {
		if got := sarifPrefix(dir); got != want {
			t.Errorf("sarifPrefix(%q) = %q, want %q", dir, got, want)
		}
	}
}
