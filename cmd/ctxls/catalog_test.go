package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

var exampleDir = filepath.Join("..", "..", "examples", "library")

type catalogJSON struct {
	Items []struct {
		ID              string `json:"id"`
		Domain          string `json:"domain"`
		Title           string `json:"title"`
		Type            string `json:"type"`
		EstimatedTokens int    `json:"estimatedTokens"`
		MeasuredTokens  int    `json:"measuredTokens"`
		LoadingStrategy string `json:"loadingStrategy"`
		Path            string `json:"path"`
		URI             string `json:"uri"`
		Sections        []struct {
			Name           string `json:"name"`
			MeasuredTokens int    `json:"measuredTokens"`
		} `json:"sections"`
	} `json:"items"`
	Warnings []json.RawMessage `json:"warnings"`
}

func TestCatalogCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		code    int
		items   int // -1: any number above zero
		domains []string
		stderr  string
	}{
		{"all, dir flag", []string{"catalog", "--dir", exampleDir, "--format", "json"}, 0, -1, []string{"git", "python", "security", "testing", ""}, ""},
		{"positional dir", []string{"catalog", exampleDir, "--format", "json", "--domain", "python"}, 0, 8, []string{"python"}, ""},
		{"missing domain", []string{"catalog", exampleDir, "--format", "json", "--domain", "pyton"}, 0, 0, nil, ""},
		{"bad format", []string{"catalog", exampleDir, "--format", "xml"}, 2, 0, nil, ""},
		{"escaping domain", []string{"catalog", exampleDir, "--domain", "../.."}, -1, 0, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, _, err := runCLI(t, c.args...)
			code := exitCode(err)
			if _, ok := err.(usageError); ok {
				code = 2
			}
			if code != c.code {
				t.Fatalf("exit %d (%v), want %d", code, err, c.code)
			}
			if code != 0 {
				return
			}
			var res catalogJSON
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if res.Items == nil {
				t.Fatal("items is null")
			}
			if c.items >= 0 && len(res.Items) != c.items || c.items < 0 && len(res.Items) == 0 {
				t.Errorf("%d items", len(res.Items))
			}
			seen := map[string]bool{}
			for _, it := range res.Items {
				seen[it.Domain] = true
				if it.ID == "" || it.MeasuredTokens <= 0 || it.Path == "" || !strings.HasPrefix(it.URI, "file://") || it.Type == "" || it.LoadingStrategy == "" {
					t.Errorf("incomplete item %+v", it)
				}
			}
			for _, d := range c.domains {
				if !seen[d] {
					t.Errorf("no items of domain %q", d)
				}
			}
			if c.items == 0 && len(res.Warnings) == 0 {
				t.Error("empty result without a warning")
			}
		})
	}
}

func TestCatalogText(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "catalog", "--domain", "python", exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "TOPIC") || !strings.Contains(lines[0], "MEASURED") || !strings.Contains(lines[0], "DECLARED") {
		t.Errorf("header %q", lines[0])
	}
	// Numbers are right-aligned: every row's DECLARED column ends at the
	// same place as the header's.
	end := strings.Index(lines[0], "DECLARED") + len("DECLARED")
	var fastapi string
	for _, l := range lines[1:9] {
		if len(l) < end || l[end-1] == ' ' || l[end] != ' ' {
			t.Errorf("misaligned row %q", l)
		}
		if strings.HasPrefix(l, "python:fastapi_patterns ") {
			fastapi = l
		}
	}
	if !strings.Contains(fastapi, "framework") || !strings.Contains(fastapi, "onDemand") || !strings.Contains(fastapi, "990") || !strings.HasSuffix(fastapi, "FastAPI Patterns") {
		t.Errorf("fastapi row %q", fastapi)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "8 topics in 1 domain") || !strings.Contains(last, "o200k_base") {
		t.Errorf("summary %q", last)
	}
	if _, errOut, err := runCLI(t, "catalog", "--domain", "pyton", exampleDir); exitCode(err) != 1 || !strings.Contains(errOut, "did you mean python") {
		t.Errorf("missing domain: %v %q", err, errOut)
	}
}
