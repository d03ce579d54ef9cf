package present

import (
	"testing"

	"github.com/ctxls/ctxls/providers/library"
)

// topics builds topics of domain "d" from names; a name ending in "!" is
// always loaded.
func topics(names ...string) []*library.Topic {
	var out []*library.Topic
	for _, n := range names {
		t := &library.Topic{Domain: "d"}
		if n[len(n)-1] == '!' {
			n = n[:len(n)-1]
			t.Meta.LoadingStrategy = "always"
		}
		t.Name, t.ID = n, "d/"+n
		out = append(out, t)
	}
	return out
}

func names(ts []*library.Topic) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestMatchScore(t *testing.T) {
	t.Parallel()
	tp := &library.Topic{ID: "python/fastapi_patterns", Domain: "python", Name: "fastapi_patterns",
		Meta: library.Metadata{Title: "FastAPI Web Patterns", Tags: []string{"Routing", "dependency-injection"}}}
	tests := []struct {
		q     string
		score int
		ok    bool
	}{
		{"", 0, true},
		{"fast", 4, true},      // prefix of the name
		{"python:fa", 3, true}, // substring of the key
		{"patterns", 3, true},  // substring of the key
		{"web pat", 2, true},   // substring of the title
		{"pyfp", 1, true},      // subsequence of the key
		{"routing", 1, true},   // substring of a tag
		{"injection", 1, true}, // substring of a tag
		{"django", 0, false},   // nothing
		{"zz", 0, false},       // nothing
		{"FAST", 0, false},     // the query is already lower case
		{"python:fastapi_patterns", 3, true},
	}
	for _, tc := range tests {
		score, ok := MatchScore(tc.q, tp.Name, Key(tp), tp.Meta.Title, tp.Meta.Tags)
		if score != tc.score || ok != tc.ok {
			t.Errorf("MatchScore(%q) = %d, %v; want %d, %v", tc.q, score, ok, tc.score, tc.ok)
		}
	}
}

func TestSubsequence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q, s string
		want bool
	}{
		{"", "", true},
		{"", "abc", true},
		{"ac", "abc", true},
		{"abc", "abc", true},
		{"ca", "abc", false},
		{"abcd", "abc", false},
		{"aa", "a", false},
	}
	for _, tc := range tests {
		if got := subsequence(tc.q, tc.s); got != tc.want {
			t.Errorf("subsequence(%q, %q) = %v, want %v", tc.q, tc.s, got, tc.want)
		}
	}
}

func TestEntryName(t *testing.T) {
	t.Parallel()
	if got, want := EntryName("python:fastapi", "FastAPI", 1234), "python:fastapi — FastAPI · 1,234 tok"; got != want {
		t.Errorf("EntryName = %q, want %q", got, want)
	}
}
