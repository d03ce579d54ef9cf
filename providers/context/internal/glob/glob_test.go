package glob

import "testing"

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"**/*.ts", []string{"a.ts", "src/a.ts", "src/x/y.ts"}, []string{"a.tsx", "src/a.js"}},
		{"*.py", []string{"a.py", "deep/er/b.py"}, []string{"a.pyc"}},
		{"src/*.go", []string{"src/a.go"}, []string{"src/x/a.go", "a.go"}},
		{"src/**", []string{"src/a", "src/x/y"}, []string{"srcx/a"}},
		{"src/**/test/*.go", []string{"src/test/a.go", "src/a/b/test/c.go"}, []string{"src/test/x/a.go"}},
		{"**/*.{ts,tsx}", []string{"a.ts", "b/c.tsx"}, []string{"c.js"}},
		{"docs/[ab]?.md", []string{"docs/a1.md", "docs/bz.md"}, []string{"docs/c1.md", "docs/a12.md"}},
		{"docs/[!a].md", []string{"docs/b.md"}, []string{"docs/a.md"}},
		{"./lib/*.rb", []string{"lib/a.rb"}, []string{"x/lib/a.rb"}},
		{`a\*.md`, []string{"a*.md"}, []string{"ab.md"}},
	}
	for _, tc := range tests {
		g, err := Compile(tc.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.pattern, err)
			continue
		}
		for _, p := range tc.yes {
			if !g.Match(p) {
				t.Errorf("%q does not match %q", tc.pattern, p)
			}
		}
		for _, p := range tc.no {
			if g.Match(p) {
				t.Errorf("%q matches %q", tc.pattern, p)
			}
		}
	}
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "  ", "src/[ab", "{a,b", "a}", "a**/b", `x\`, "src/**x"} {
		if g, err := Compile(p); err == nil {
			t.Errorf("Compile(%q) = %v, want an error", p, g)
		}
	}
}
