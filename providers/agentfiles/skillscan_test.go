package agentfiles

import (
	"regexp"
	"testing"
)

// hasScheme agrees with the pattern of a URL scheme it replaces.
func TestHasScheme(t *testing.T) {
	t.Parallel()
	scheme := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	for _, s := range []string{"", "https://x", "mailto:a", "a:", ":a", "1a:b", "a1+.-:", "a/b:c", "a b:", "C:\\x", "x.md", "git+ssh://h", "é:"} {
		if got, want := hasScheme(s), scheme.MatchString(s); got != want {
			t.Errorf("hasScheme(%q) = %v, want %v", s, got, want)
		}
	}
}

// The patterns run only on lines that hold what they need, with the same
// matches as on every line.
func TestPrefilteredPatterns(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"", "see [a](b.md) and c/d.md", "[x]: ref/a.md", "    [x]: a.md", " [x] : a.md", "read FORMS.md now", "[l](x.md) FORMS.md", "`scripts/run.py`", "plain text"} {
		text := []byte(line)
		if got, want := len(findAll(mdLink, text, "](")), len(mdLink.FindAllSubmatchIndex(text, -1)); got != want {
			t.Errorf("%q: %d links, want %d", line, got, want)
		}
		if got, want := len(findAll(barePath, text, "/")), len(barePath.FindAllSubmatchIndex(text, -1)); got != want {
			t.Errorf("%q: %d paths, want %d", line, got, want)
		}
		if got, want := linkDefAt(text) != nil, linkDef.FindSubmatchIndex(text) != nil; got != want {
			t.Errorf("%q: definition %v, want %v", line, got, want)
		}
		if got, want := len(mdNames(text, 0, nil)), len(mdName.FindAllSubmatchIndex(text, -1)); got != want {
			t.Errorf("%q: %d names, want %d", line, got, want)
		}
	}
}
