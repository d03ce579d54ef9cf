package present

import "testing"

func TestPlainText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, md, want string
	}{
		{"bold and code", "**FastAPI Patterns** `python:fastapi_patterns`", "FastAPI Patterns python:fastapi_patterns"},
		{"escapes", `**a\_b \*c\* \[d\] \\ &lt;e&gt;**`, `a_b *c* [d] \ <e>`},
		{"table", "Before\n\n| Section | Tokens |\n|---|---:|\n| Security | 412 tok |\n| A \\| B | 9 tok |\n\nAfter",
			"Before\n\nSection   Tokens\nSecurity  412 tok\nA | B     9 tok\n\nAfter"},
		{"no markup", "⚠ domain python has no topic \"x\"", "⚠ domain python has no topic \"x\""},
	}
	for _, c := range cases {
		if got := PlainText(c.md); got != c.want {
			t.Errorf("%s: PlainText(%q) =\n%q\nwant\n%q", c.name, c.md, got, c.want)
		}
	}
}
