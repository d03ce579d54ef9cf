package cost

import (
	"path/filepath"
	"testing"
)

func TestDocument(t *testing.T) {
	lib := exampleLibrary(t)
	fastapi, _ := lib.Topic("python/fastapi_patterns")
	di, _ := fastapi.Section("Dependency Injection")
	tests := []struct {
		file        string
		ref         string // Text of an item to check
		wantTokens  int
		wantCounted bool
	}{
		// The context list loads the topic whole: its section is not counted again.
		{"commands/implement.md", "python:fastapi_patterns", fastapi.Tokens, true},
		{"commands/implement.md", "python:fastapi_patterns#Dependency Injection", di.Tokens, false},
		{"commands/implement.md", "python:fastapi", 0, false},
	}
	for _, tc := range tests {
		f, ok := lib.File(filepath.Join(lib.Dir(), tc.file))
		if !ok {
			t.Fatalf("no %s", tc.file)
		}
		items, total := Document(lib, f)
		sum, found := 0, false
		for _, it := range items {
			if it.Counted {
				sum += it.Tokens
			}
			if Text(it.Ref, it.Target) == tc.ref && !found {
				found = true
				if it.Tokens != tc.wantTokens || it.Counted != tc.wantCounted {
					t.Errorf("%s %s: tokens %d counted %v, want %d %v", tc.file, tc.ref, it.Tokens, it.Counted, tc.wantTokens, tc.wantCounted)
				}
			}
		}
		if !found {
			t.Errorf("%s: no item %s", tc.file, tc.ref)
		}
		if sum != total || total <= fastapi.Tokens {
			t.Errorf("%s: total %d, counted items sum to %d", tc.file, total, sum)
		}
	}
}
