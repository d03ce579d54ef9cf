package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestShowCommand(t *testing.T) {
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

	out, _, err := runCLI(t, "show", "python:fastapi_patterns#Testing", "--dir", exampleDir, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var pc struct {
		ID       string `json:"id"`
		Sections []struct {
			Name    string `json:"name"`
			Content string `json:"content"`
		} `json:"sections"`
		TotalTokens int `json:"totalTokens"`
	}
	if err := json.Unmarshal([]byte(out), &pc); err != nil || pc.ID != "python/fastapi_patterns" || len(pc.Sections) != 1 || pc.TotalTokens == 0 {
		t.Errorf("json: %v %s", err, out)
	}
	if _, _, err := runCLI(t, "show", "--dir", exampleDir); err == nil {
		t.Error("show without a reference succeeded")
	}
}
