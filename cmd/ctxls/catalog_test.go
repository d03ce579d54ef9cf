package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

var exampleDir = filepath.Join("..", "..", "examples", "library")

type catalogJSON struct {
	Entries []struct {
		Reference       string `json:"reference"`
		Kind            string `json:"kind"`
		ID              string `json:"id"`
		Title           string `json:"title"`
		Type            string `json:"type"`
		DeclaredTokens  int    `json:"declaredTokens"`
		Tokens          int    `json:"tokens"`
		LoadingStrategy string `json:"loadingStrategy"`
		Path            string `json:"path"`
	} `json:"entries"`
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"`
}

func TestCatalogCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		args    []string
		code    int
		items   int // -1: any number above zero
		domains []string
		kinds   []string
		// tokenizer is the one the catalog must count in; "" for any.
		tokenizer string
	}{
		{"all, dir flag", []string{"catalog", "--dir", exampleDir, "--format", "json"}, 0, -1, []string{"git", "python", "security", "testing", ""},
			[]string{"topic", "skill", "command", "subagent", "rule"}, ""},
		{"positional dir", []string{"catalog", exampleDir, "--format", "json", "--domain", "python"}, 0, 8, []string{"python"}, []string{"topic"}, ""},
		{"one kind", []string{"catalog", exampleDir, "--format", "json", "--kind", "skill"}, 0, 2, nil, []string{"skill"}, ""},
		{"missing domain", []string{"catalog", exampleDir, "--format", "json", "--domain", "pyton"}, -1, 0, nil, nil, ""},
		{"unknown kind", []string{"catalog", exampleDir, "--format", "json", "--kind", "skills"}, -1, 0, nil, nil, ""},
		{"bad format", []string{"catalog", exampleDir, "--format", "xml"}, 2, 0, nil, nil, ""},
		{"escaping domain", []string{"catalog", exampleDir, "--domain", "../.."}, -1, 0, nil, nil, ""},
		{"library's tokenizer", []string{"catalog", exampleDir, "--format", "json", "--kind", "skill"}, 0, 2, nil, []string{"skill"}, "o200k_base"},
		{"named tokenizer", []string{"catalog", exampleDir, "--format", "json", "--kind", "skill", "--tokenizer", "claude-5"}, 0, 2, nil, []string{"skill"}, "claude-5"},
		{"unknown tokenizer", []string{"catalog", exampleDir, "--tokenizer", "gpt"}, 2, 0, nil, nil, ""},
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
			if res.Entries == nil {
				t.Fatal("entries is null")
			}
			if c.items >= 0 && len(res.Entries) != c.items || c.items < 0 && len(res.Entries) == 0 {
				t.Errorf("%d entries", len(res.Entries))
			}
			seen, kinds, sum := map[string]bool{}, map[string]bool{}, 0
			for _, e := range res.Entries {
				kinds[e.Kind] = true
				sum += e.Tokens
				if e.Reference == "" || e.Tokens <= 0 || e.Path == "" || e.Title == "" {
					t.Errorf("incomplete entry %+v", e)
				}
				if e.Kind != "topic" {
					continue
				}
				d, _, _ := strings.Cut(e.ID, "/")
				if !strings.Contains(e.ID, "/") {
					d = ""
				}
				seen[d] = true
				if e.ID == "" || e.Type == "" || e.LoadingStrategy == "" {
					t.Errorf("incomplete topic %+v", e)
				}
			}
			for _, d := range c.domains {
				if !seen[d] {
					t.Errorf("no topics of domain %q", d)
				}
			}
			for _, k := range c.kinds {
				if !kinds[k] {
					t.Errorf("no entries of kind %q", k)
				}
			}
			if len(kinds) != len(c.kinds) {
				t.Errorf("kinds %v, want %v", kinds, c.kinds)
			}
			if c.tokenizer != "" && res.Tokenizer != c.tokenizer {
				t.Errorf("counted in %s, want %s", res.Tokenizer, c.tokenizer)
			}
			if sum != res.Tokens || res.Tokenizer == "" {
				t.Errorf("tokens %d (%s), entries sum to %d", res.Tokens, res.Tokenizer, sum)
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
	if !strings.HasPrefix(lines[0], "REFERENCE") || !strings.Contains(lines[0], "TOKENS") || !strings.Contains(lines[0], "DECLARED") {
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
	if _, _, err := runCLI(t, "catalog", "--domain", "pyton", exampleDir); err == nil || !strings.Contains(err.Error(), "did you mean python") {
		t.Errorf("missing domain: %v", err)
	}
}
