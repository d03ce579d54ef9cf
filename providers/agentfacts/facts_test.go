package agentfacts

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/tokens"
)

// TestReadmeAgrees fails when README.md's per-agent table is not the one
// the facts generate; run go run ./providers/diag/gen to update it.
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
		t.Fatal("README.md's per-agent table differs from the facts; run: go run ./providers/diag/gen")
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, a := range All() {
		if names[a.Name] {
			t.Errorf("agent %s twice", a.Name)
		}
		names[a.Name] = true
		ids := map[string]bool{}
		for _, f := range a.Facts {
			key := f.ID + "@" + f.Since
			if ids[key] {
				t.Errorf("%s: fact %s from %q twice", a.Name, f.ID, f.Since)
			}
			ids[key] = true
			if !strings.HasPrefix(f.Source, "https://") {
				t.Errorf("%s.%s: source %q is no documentation URL", a.Name, f.ID, f.Source)
			}
			if f.Verified == "" || f.Load == "" || f.Files == "" {
				t.Errorf("%s.%s: files, load and verified date are required", a.Name, f.ID)
			}
			for _, v := range []string{f.Since, f.Until} {
				if v != "" && !ValidVersion(v) {
					t.Errorf("%s.%s: version %q", a.Name, f.ID, v)
				}
			}
			if f.Cap != nil && (f.Cap.Limit < 1 || f.Cap.Unit == "") {
				t.Errorf("%s.%s: cap %+v", a.Name, f.ID, f.Cap)
			}
		}
	}
	if len(names) != 9 {
		t.Errorf("%d agents, want the nine ctxls knows", len(names))
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.1.300", "2.1.30", 1},
		{"2.1", "2.1.0", 0},
		{"1.9", "1.10", -1},
		{"2.0.0-beta", "2.0.0", -1},
		{"2.0.0", "2.0.0-rc1", 1},
	} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for v, ok := range map[string]bool{"2.1.300": true, "1": true, "1.2-beta": true, "": false, "v1.2": false, "1..2": false} {
		if ValidVersion(v) != ok {
			t.Errorf("ValidVersion(%q) = %v", v, !ok)
		}
	}
}

func TestAtVersion(t *testing.T) {
	t.Parallel()
	a := Agent{Name: "x", Facts: []Fact{
		{ID: "depth", Cap: &Cap{Limit: 5}, Until: "2.0"},
		{ID: "depth", Cap: &Cap{Limit: 4}, Since: "2.0"},
	}}
	for v, want := range map[string]int{"": 4, "1.9.9": 5, "2.0": 4, "3": 4} {
		f, ok := a.Fact("depth", v)
		if !ok || f.Cap.Limit != want {
			t.Errorf("at %q: %+v, %v; want cap %d", v, f.Cap, ok, want)
		}
	}
	if CapOf("codex", "agents-md") != 32<<10 {
		t.Error("Codex's cap is not 32 KiB")
	}
}

// TestTokenizers checks that every tokenizer the facts name is one ctxls
// has.
func TestTokenizers(t *testing.T) {
	t.Parallel()
	for _, a := range All() {
		if a.Tokenizer == "" {
			continue
		}
		if _, err := tokens.New(a.Tokenizer); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
	}
}
