package diag

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

func TestCap(t *testing.T) {
	t.Parallel()
	// at makes the diagnostic of code spec: its first letter is its
	// severity (e error, w warning, h hint), its number its offset; a
	// letter between tells apart diagnostics at one place.
	at := func(spec string) Diagnostic {
		sev := map[byte]Severity{'e': Error, 'w': Warning, 'h': Hint}[spec[0]]
		start, _ := strconv.Atoi(strings.TrimLeft(spec[1:], "XYZ"))
		return Diagnostic{Path: "f", Span: document.Span{Start: start, End: start + 1}, Severity: sev, Code: spec}
	}
	for _, tc := range []struct {
		name  string
		ds    string // diagnostics by severity and offset; "-N" stands for N left out before
		limit int
		want  string // the codes kept, "-N" the one for N left out
	}{
		{name: "under the limit", ds: "e3 h1 w2", limit: 5, want: "e3 h1 w2"},
		{name: "at the limit", ds: "h1 h2 h3", limit: 3, want: "h1 h2 h3"},
		{name: "no limit", ds: "h1 h2 h3 -4", limit: 0, want: "h1 h2 h3 -4"},
		{name: "most severe kept, by position", ds: "h0 e5 h1 w9 e2 h3", limit: 3, want: "e2 e5 w9 -3"},
		{name: "within a severity the first by position", ds: "h4 h2 h0 h3 h1", limit: 2, want: "h0 h1 -3"},
		{name: "one place keeps its order", ds: "wX7 wY7 wZ7", limit: 2, want: "wX7 wY7 -1"},
		{name: "left out before is added", ds: "-7 h1 e2 h3", limit: 2, want: "h1 e2 -8"},
		{name: "left out before alone is merged at the end", ds: "-2 h1 -3 h2", limit: 5, want: "h1 h2 -5"},
		{name: "only left out", ds: "-4", limit: 1, want: "-4"},
		{name: "nothing", ds: "", limit: 1, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ds []Diagnostic
			for _, s := range strings.Fields(tc.ds) {
				if n, ok := strings.CutPrefix(s, "-"); ok {
					k, _ := strconv.Atoi(n)
					ds = append(ds, LeftOut("f", k, tc.limit))
					continue
				}
				ds = append(ds, at(s))
			}
			first := ds
			got := Cap(ds, tc.limit, func(d *Diagnostic) *Diagnostic { return d },
				func(n int) Diagnostic { return LeftOut("f", n, tc.limit) })
			var codes []string
			for _, d := range got {
				if d.Code == DiagnosticsLeftOut {
					codes = append(codes, fmt.Sprint("-", d.LeftOut))
					if d.Message != LeftOutMessage(d.LeftOut, tc.limit) {
						t.Errorf("left-out message %q", d.Message)
					}
					continue
				}
				codes = append(codes, d.Code)
			}
			if s := strings.Join(codes, " "); s != tc.want {
				t.Errorf("Cap(%s, %d) = %s, want %s", tc.ds, tc.limit, s, tc.want)
			}
			// In place: the result is the list given, not a copy of it.
			if len(got) > 0 && &got[0] != &first[0] {
				t.Errorf("Cap(%s, %d) copied the list", tc.ds, tc.limit)
			}
		})
	}
}
