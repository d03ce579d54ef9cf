package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
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
	if driver.InformationURI != diag.Repository || len(driver.Rules) != len(diag.All()) {
		t.Fatalf("informationUri %q, %d rules", driver.InformationURI, len(driver.Rules))
	}
	prefix := diag.Repository + "/blob/main/"
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

// The log written result by result is the log encoded whole: the same
// bytes, for no result, one, and several holding text that HTML escaping
// would change.
func TestSARIFStreamedIsWhole(t *testing.T) {
	t.Parallel()
	for _, records := range [][]ops.Diagnostic{
		nil,
		{{File: "a.md", Line: 1, Column: 1, EndLine: 1, EndColumn: 4, Severity: "error", Code: diag.SkillLinkBroken, Message: "x.md names no file"}},
		{
			{File: "dir/a b.md", Line: 2, Column: 3, EndLine: 2, EndColumn: 9, Severity: "warning", Code: diag.SkillBodyTooLong, Message: "<b> & \"q\" — ünï"},
			{File: "c.md", Line: 9, Column: 1, EndLine: 10, EndColumn: 1, Severity: "hint", Code: diag.SkillLinkBroken, Message: "line\nbreak"},
		},
	} {
		var got, want bytes.Buffer
		if err := writeSARIF(&got, records, "."); err != nil {
			t.Fatal(err)
		}
		all := diag.All()
		index := map[string]int{}
		driver := sarifDriver{Name: "ctxls", Version: buildVersion(), InformationURI: diag.Repository, Rules: []sarifRule{}}
		for i, r := range all {
			index[r.Code] = i
			driver.Rules = append(driver.Rules, sarifRule{ID: r.Code, ShortDescription: sarifText{r.Doc}, HelpURI: diag.PageURL(r.Code),
				DefaultConfiguration: sarifConfig{sarifLevel(r.Severity.String())}, Properties: map[string]string{"source": r.Source, "fix": r.Fix.String()}})
		}
		run := sarifRun{Tool: sarifTool{driver}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
		for _, r := range records {
			run.Results = append(run.Results, sarifResult{RuleID: r.Code, RuleIndex: index[r.Code], Level: sarifLevel(r.Severity), Message: sarifText{r.Message},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: r.File}).EscapedPath(), URIBaseID: "%SRCROOT%"},
					Region: sarifRegion{r.Line, r.Column, r.EndLine, r.EndColumn}}}}})
		}
		if err := printJSON(&want, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d records: streamed log differs from the whole one:\n%s\nwant:\n%s", len(records), got.String(), want.String())
		}
	}
}

// A diagnostic with related information, a topic defined twice, carries
// the other copy as a related location of its result, named as the
// result's file is, with what the place is.
func TestSARIFRelatedLocations(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{
		"context/python/a.md":      "# A\n\nText.\n",
		"docs/context/python/a.md": "---\ndomain: python\n---\n# A\n\nText.\n",
	})
	out := runExit(t, 0, "check", "--no-cache", "--format", "sarif", dir)
	type location struct {
		ID               int `json:"id"`
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine   int `json:"startLine"`
				StartColumn int `json:"startColumn"`
			} `json:"region"`
		} `json:"physicalLocation"`
		Message *struct {
			Text string `json:"text"`
		} `json:"message"`
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID           string     `json:"ruleId"`
				Locations        []location `json:"locations"`
				RelatedLocations []location `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF run (%v):\n%s", err, out)
	}
	dups := 0
	for _, r := range log.Runs[0].Results {
		if r.RuleID != diag.DuplicateTopic {
			if len(r.RelatedLocations) > 0 {
				t.Errorf("%s has related locations: %+v", r.RuleID, r.RelatedLocations)
			}
			continue
		}
		dups++
		if len(r.Locations) != 1 || len(r.RelatedLocations) != 1 {
			t.Fatalf("%s: %d locations, %d related, want 1 and 1", r.RuleID, len(r.Locations), len(r.RelatedLocations))
		}
		rel, at := r.RelatedLocations[0], r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		files := []string{"context/python/a.md", "docs/context/python/a.md"}
		uri := rel.PhysicalLocation.ArtifactLocation
		if rel.ID != 1 || !slices.Contains(files, uri.URI) || uri.URI == at || uri.URIBaseID != "%SRCROOT%" ||
			rel.PhysicalLocation.Region.StartLine != 1 || rel.PhysicalLocation.Region.StartColumn != 1 ||
			rel.Message == nil || !strings.Contains(rel.Message.Text, "python/a") {
			t.Errorf("related location %+v (message %v) of %s, want id 1 at the start of the other copy", rel, rel.Message, at)
		}
	}
	if dups != 1 {
		t.Errorf("%d results of %s, want 1:\n%s", dups, diag.DuplicateTopic, out)
	}
}
