package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
)

func TestShowCommand(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(exampleDir, "context", "python", "fastapi_patterns.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	body := text[strings.Index(text, "\n---\n")+5:]

	cases := []struct {
		ref      string
		want     string // exact output, or "" to use the checks below
		prefix   string
		notHas   string
		code     int
		errorHas string
	}{
		{ref: "python:fastapi_patterns", want: body},
		{ref: "python/fastapi_patterns.md", want: body},
		{ref: "context/python/fastapi_patterns.md", want: body},
		{ref: "python:fastapi_patterns#Security Issues", prefix: "## Security Issues\n", notHas: "## Testing"},
		{ref: "python:fastapi_patterns#security-issues", prefix: "## Security Issues\n", notHas: "## Testing"},
		{ref: "loading_protocol", prefix: "# Context Loading Protocol"},
		{ref: "python:django", code: 1, errorHas: "did you mean django_patterns"},
		{ref: "pyton:fastapi_patterns", code: 1, errorHas: "did you mean python"},
		{ref: "python:fastapi_patterns#Securty Issues", code: 1, errorHas: "did you mean Security Issues"},
		{ref: "python:../../README", code: 1, errorHas: "refused"},
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			t.Parallel()
			out, _, err := runCLI(t, "show", c.ref, "--dir", exampleDir)
			if c.code != 0 {
				if exitCode(err) == 0 || !strings.Contains(err.Error(), c.errorHas) {
					t.Fatalf("err = %v, want one mentioning %q", err, c.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want != "" && out != c.want {
				t.Errorf("output differs from the body: %d bytes vs %d", len(out), len(c.want))
			}
			if !strings.HasPrefix(out, c.prefix) || c.notHas != "" && strings.Contains(out, c.notHas) {
				t.Errorf("output:\n%s", out)
			}
		})
	}

	if _, _, err := runCLI(t, "show", "--dir", exampleDir); err == nil {
		t.Error("show without a reference succeeded")
	}
}

func TestShowJSON(t *testing.T) {
	t.Parallel()
	// Relative to the workspace, as catalog and search give it.
	const path = "context/python/fastapi_patterns.md"
	cases := []struct {
		ref       string
		reference string
		prefix    string
	}{
		{"python:fastapi_patterns", "python:fastapi_patterns", "\n# FastAPI Patterns\n"},
		{"context/python/fastapi_patterns.md", "python:fastapi_patterns", "\n# FastAPI Patterns\n"},
		{"python:fastapi_patterns#testing", "python:fastapi_patterns#Testing", "## Testing\n"},
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			t.Parallel()
			out, _, err := runCLI(t, "show", c.ref, "--dir", exampleDir, "--format", "json")
			if err != nil {
				t.Fatal(err)
			}
			var got ops.ShowResponse
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("not a show record (%v): %s", err, out)
			}
			if got.Reference != c.reference || got.Title != "FastAPI Patterns" || got.Path != path || got.Tokens <= 0 || !strings.HasPrefix(got.Content, c.prefix) {
				t.Errorf("record = %+v", got)
			}
			// The content is what the text format prints.
			text, _, err := runCLI(t, "show", c.ref, "--dir", exampleDir)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != text {
				t.Errorf("content differs from the text output: %q vs %q", got.Content, text)
			}
		})
	}
	// A section costs less than its topic.
	var whole, section ops.ShowResponse
	for ref, rec := range map[string]*ops.ShowResponse{"python:fastapi_patterns": &whole, "python:fastapi_patterns#Testing": &section} {
		out, _, err := runCLI(t, "show", ref, "--dir", exampleDir, "--format", "json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), rec); err != nil {
			t.Fatal(err)
		}
	}
	if section.Tokens >= whole.Tokens {
		t.Errorf("section %d tokens, whole topic %d", section.Tokens, whole.Tokens)
	}
}

// The header is for people: with stdout piped, stderr stays quiet and
// stdout holds only the body.
func TestShowHeader(t *testing.T) {
	t.Parallel()
	_, stderr, err := runCLI(t, "show", "python:fastapi_patterns", "--dir", exampleDir)
	if err != nil || stderr != "" {
		t.Errorf("piped: err %v, stderr %q", err, stderr)
	}
	rec := ops.ShowResponse{Reference: "python:fastapi_patterns#Testing", Title: "FastAPI Patterns", Tokens: 1234}
	if got, want := showHeader(rec, "o200k_base"), "python:fastapi_patterns#Testing · FastAPI Patterns · 1,234 tokens (o200k_base)"; got != want {
		t.Errorf("header = %q, want %q", got, want)
	}
}

// A domain has no body to show: show says so and lists its topics
// instead of "file not found".
func TestShowDomain(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, map[string]string{"context/python/a.md": "# A\n\nText.\n", "context/python/b.md": "# B\n\nText.\n"})
	for _, ref := range []string{"python", "python:"} {
		out, stderr, status := runCLIStatus(t, "", "show", ref, "--dir", dir)
		if status != 2 || out != "" || !strings.Contains(stderr, "python is a domain, not a topic; show one of its topics: python:a, python:b") {
			t.Errorf("show %s: exit %d, stdout %q, stderr %q", ref, status, out, stderr)
		}
	}
}
