package glob

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

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
		{"{src,lib}/**/*.{ts,js}", []string{"src/a.ts", "lib/x/b.js"}, []string{"test/a.ts", "src/a.tsx"}},
		{"docs/[ab]?.md", []string{"docs/a1.md", "docs/bz.md"}, []string{"docs/c1.md", "docs/a12.md"}},
		{"docs/[!a].md", []string{"docs/b.md"}, []string{"docs/a.md"}},
		{"docs/[a-c].md", []string{"docs/b.md"}, []string{"docs/d.md"}},
		{"./lib/*.rb", []string{"lib/a.rb"}, []string{"x/lib/a.rb"}},
		{`a\*.md`, []string{"a*.md"}, []string{"ab.md"}},
		// A "**" inside a segment is a "*".
		{"**.cs", []string{"a.cs", "x/b.cs"}, []string{"a.csx"}},
		{"src/**x", []string{"src/ax"}, []string{"src/a/x"}},
		{"**/**/*.md", []string{"a.md", "x/y/z.md"}, []string{"a.mdx"}},
		{"*", []string{"a", "x/y"}, nil},
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

// TestVSCode reads patterns as VS Code reads Copilot's applyTo: under any
// folder unless anchored, whatever the case.
func TestVSCode(t *testing.T) {
	t.Parallel()
	opt := Options{AnyFolder: true, IgnoreCase: true}
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"src/**/*.ts", []string{"src/x.ts", "packages/a/src/x.ts", "packages/a/src/b/x.ts"}, []string{"packages/a/lib/x.ts", "xsrc/x.ts"}},
		{"**.cs", []string{"a.cs", "Deep/B.CS"}, []string{"a.csproj"}},
		{"*.PY", []string{"a.py", "x/b.Py"}, []string{"a.pyc"}},
		{"**", []string{"a", "x/y/z"}, nil},
		{"**/*", []string{"a"}, nil},
		{"*", []string{"x/y"}, nil},
		{"/src/*.go", []string{"src/a.go"}, []string{"x/src/a.go"}},
		{"**/README.md", []string{"README.md", "a/readme.md"}, []string{"a/README.mdx"}},
		{"docs/[A-C]*.md", []string{"docs/b.md", "x/docs/Cz.md"}, []string{"docs/d.md"}},
	}
	for _, tc := range tests {
		g, err := CompileWith(tc.pattern, opt)
		if err != nil {
			t.Errorf("CompileWith(%q): %v", tc.pattern, err)
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
	for _, p := range []string{"", "  ", "/", "src/[ab", "{a,b", "a}", `x\`, "[z-a]", "{a,{b}"} {
		if g, err := Compile(p); err == nil {
			t.Errorf("Compile(%q) = %v, want an error", p, g)
		}
	}
}

// TestAgainstRegexp checks the automaton against the regular expression
// the pattern stands for, on many patterns and paths.
func TestAgainstRegexp(t *testing.T) {
	t.Parallel()
	patterns := []string{"a/**/b", "**/a*b", "*/*", "a?c/**", "{a,b*}/c", "**/{x,y/**/z}", "a/**", "**/*.*", "a/*/b/**/c*d", "[ab]*/**/[!c]"}
	paths := []string{"a", "a/b", "a/x/b", "a/x/y/b", "ab", "xab", "q/ab", "a/c", "abc/x", "b/c", "bz/c", "x", "y/z", "y/q/z", "q/y/z", "a/x", "a/b.c", "a/k/b/c1d", "a/k/b/x/cd", "a/k/b/x/ce", "b/y/d", "c/y/c"}
	for _, p := range patterns {
		g, err := Compile(p)
		if err != nil {
			t.Fatalf("Compile(%q): %v", p, err)
		}
		re := regexp.MustCompile(toRegexp(p))
		for _, s := range paths {
			if got, want := g.Match(s), re.MatchString(s); got != want {
				t.Errorf("%q on %q = %v, want %v (%s)", p, s, got, want, re)
			}
		}
	}
}

// toRegexp is the reading of a pattern the package documents, as a
// regular expression, for the patterns of TestAgainstRegexp.
func toRegexp(p string) string {
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(p, "/") {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case strings.HasPrefix(p[i:], "**/") && (i == 0 || strings.ContainsRune("/{,", rune(p[i-1]))):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**") && i+2 == len(p):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(p[i:], ']') + i
			class := p[i+1 : j]
			if class[0] == '!' {
				class = "^/" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i = j
		case c == '{':
			b.WriteString("(?:")
		case c == '}':
			b.WriteString(")")
		case c == ',':
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

func TestAnyMatch(t *testing.T) {
	t.Parallel()
	var globs []*Glob
	for _, p := range []string{"**/*.go", "docs/**", "*.rs", "{a,b}/c.txt"} {
		g, err := Compile(p)
		if err != nil {
			t.Fatal(err)
		}
		globs = append(globs, g)
	}
	got := AnyMatch(globs, []string{"main.go", "b/c.txt", "x/y.py"})
	want := []bool{true, false, false, true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("AnyMatch = %v, want %v", got, want)
	}
}

// TestLongPattern: a pattern of many stars takes time linear in the path,
// where a backtracking matcher takes time exponential in the stars. The
// test cannot time it; it checks the automaton stays small enough to
// build and gives the right answer on a long path.
func TestLongPattern(t *testing.T) {
	t.Parallel()
	p := strings.Repeat("**/a*", 30) + "b"
	g, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a/", 200) + "a"
	if g.Match(long) {
		t.Errorf("%q matches a path without b", p)
	}
	if !g.Match(strings.Repeat("a/", 40) + "ab") {
		t.Errorf("%q does not match", p)
	}
}

func BenchmarkAnyMatch(b *testing.B) {
	paths := make([]string, 28_000)
	for i := range paths {
		paths[i] = fmt.Sprintf("packages/pkg%03d/src/module%02d/file%04d.ts", i%300, i%40, i)
	}
	var globs []*Glob
	for i := range 500 {
		// Half the globs match nothing, the costliest case.
		pat := fmt.Sprintf("packages/pkg%03d/**/*.ts", i)
		if i%2 == 1 {
			pat = fmt.Sprintf("**/module%02d/**/*.{py,rb}", i%40)
		}
		g, err := CompileWith(pat, Options{AnyFolder: true, IgnoreCase: true})
		if err != nil {
			b.Fatal(err)
		}
		globs = append(globs, g)
	}
	b.ResetTimer()
	for b.Loop() {
		AnyMatch(globs, paths)
	}
}
