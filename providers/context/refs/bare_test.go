package refs

import (
	"slices"
	"testing"
)

func TestBareNamesOption(t *testing.T) {
	const text = "# Index\n\n### 📁 **file_formats.md**\n\nLoad common_issues.md first, then `x.md`.\n\nSee www.example.md and https://a.b/c.md.\n"
	tests := []struct {
		bare bool
		want []string
	}{
		{false, []string{`path/inline-code "x.md" p="x.md"`}},
		{true, []string{
			`path/prose "file_formats.md" p="file_formats.md"`,
			`path/prose "common_issues.md" p="common_issues.md"`,
			`path/inline-code "x.md" p="x.md"`,
		}},
	}
	for _, tc := range tests {
		opts := testOpts()
		opts.BareNames = tc.bare
		_, got := scanText(t, text, opts)
		if !slices.Equal(got, tc.want) {
			t.Errorf("BareNames=%v:\n got  %q\n want %q", tc.bare, got, tc.want)
		}
	}
}
