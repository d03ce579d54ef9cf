package diag

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeAgrees fails when README.md's rule list is not the one the
// table generates; run go run ./providers/diag/gen to update it.
func TestReadmeAgrees(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Splice(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(data) {
		t.Fatal("README.md's rule list differs from the rules table; run: go run ./providers/diag/gen")
	}
}

var codeRE = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

func TestTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range All() {
		if seen[r.Code] {
			t.Errorf("code %s is in the table twice", r.Code)
		}
		seen[r.Code] = true
		if !codeRE.MatchString(r.Code) {
			t.Errorf("code %q is not kebab-case", r.Code)
		}
		if r.Severity < Error || r.Severity > Hint {
			t.Errorf("%s: severity %d", r.Code, r.Severity)
		}
		if r.Doc == "" || r.Source == "" {
			t.Errorf("%s: doc or source is empty", r.Code)
		}
		if got, ok := Lookup(r.Code); !ok || got != r {
			t.Errorf("Lookup(%s) = %v, %v", r.Code, got, ok)
		}
	}
	if _, ok := Lookup("no-such-code"); ok {
		t.Error("Lookup found an unknown code")
	}
	if Default("no-such-code") != Error {
		t.Error("an unknown code must default to error")
	}
}

func TestSpliceNeedsMarkers(t *testing.T) {
	t.Parallel()
	if _, err := Splice("# no markers\n"); err == nil {
		t.Fatal("Splice accepted a README without markers")
	}
	got, err := Splice("a\n" + beginMarker + "\nold\n" + endMarker + "\nb\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n" + beginMarker + "\n" + markdown() + endMarker + "\nb\n"; got != want {
		t.Fatalf("Splice = %q, want %q", got, want)
	}
}

// TestPagesAgree fails when docs/rules is not what the table generates:
// a page missing, stale or left over from a rule the table lost; run go
// run ./providers/diag/gen to update it.
func TestPagesAgree(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", filepath.FromSlash(PagesDir))
	pages := Pages()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		seen[e.Name()] = true
		want, ok := pages[e.Name()]
		if !ok {
			t.Errorf("%s/%s is no rule's page; run: go run ./providers/diag/gen", PagesDir, e.Name())
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s/%s differs from the rules table; run: go run ./providers/diag/gen", PagesDir, e.Name())
		}
	}
	for name := range pages {
		if !seen[name] {
			t.Errorf("%s/%s is missing; run: go run ./providers/diag/gen", PagesDir, name)
		}
	}
	for _, r := range All() {
		page := pages[r.Code+".md"]
		if !strings.Contains(page, "# "+r.Code+"\n") || !strings.Contains(page, r.Source) || !strings.Contains(page, "| default severity | "+r.Severity.String()+" |") {
			t.Errorf("the page of %s lacks its code, source or severity:\n%s", r.Code, page)
		}
		if got, want := PageURL(r.Code), Repository+"/blob/main/docs/rules/"+r.Code+".md"; got != want {
			t.Errorf("PageURL(%s) = %s, want %s", r.Code, got, want)
		}
	}
	if PageURL("no-such-code") != "" {
		t.Error("PageURL of an unknown code is not empty")
	}
}
