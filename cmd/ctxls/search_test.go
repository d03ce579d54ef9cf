package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSearchCommand(t *testing.T) {
	cases := []struct {
		args []string
		top  string
		code int
	}{
		{[]string{"search", "fastapi", "--dir", exampleDir, "--format", "json"}, "python/fastapi_patterns", 0},
		{[]string{"search", "pytest", "fixtures", "--format", "json", "--dir", exampleDir}, "testing/pytest_patterns", 0},
		{[]string{"search", "secret", "--domain", "python", "--format", "json", "--dir", exampleDir}, "", 0},
		{[]string{"search", "nothingmatchesthis", "--format", "json", "--dir", exampleDir}, "", 0},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, _, err := runCLI(t, c.args...)
			if exitCode(err) != c.code {
				t.Fatalf("exit %v", err)
			}
			var res struct {
				Items []struct {
					Reference struct {
						ID     string `json:"id"`
						Domain string `json:"domain"`
					} `json:"reference"`
					Relevance float64  `json:"relevance"`
					MatchedOn []string `json:"matchedOn"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.Items == nil {
				t.Fatalf("bad JSON (%v): %s", err, out)
			}
			if c.top != "" && (len(res.Items) == 0 || res.Items[0].Reference.ID != c.top) {
				t.Fatalf("top result %+v, want %s", res.Items, c.top)
			}
			for _, it := range res.Items {
				if it.Relevance <= 0 || it.Relevance > 1 || len(it.MatchedOn) == 0 {
					t.Errorf("item %+v", it)
				}
				if strings.Contains(strings.Join(c.args, " "), "--domain python") && it.Reference.Domain != "python" {
					t.Errorf("%s outside the domain", it.Reference.ID)
				}
			}
		})
	}
}

func TestSearchText(t *testing.T) {
	out, _, err := runCLI(t, "search", "sql injection", "--dir", exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "RELEVANCE") || !strings.Contains(lines[1], "security:secure_coding") {
		t.Errorf("output:\n%s", out)
	}
	if !strings.HasSuffix(lines[len(lines)-1], `results for "sql injection"`) {
		t.Errorf("summary %q", lines[len(lines)-1])
	}
	if out, _, err := runCLI(t, "search", "zzzz", "--dir", exampleDir); exitCode(err) != 1 || !strings.Contains(out, `0 results for "zzzz"`) {
		t.Errorf("no results: %v %q", err, out)
	}
	if _, _, err := runCLI(t, "search", "--dir", exampleDir); err == nil {
		t.Error("search without a query succeeded")
	}
}
