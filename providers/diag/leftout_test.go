package diag

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/document"
)

func TestCap(t *testing.T) {
	t.Parallel()
	var ds []Diagnostic
	for i := range 10 {
		sev := Hint
		if i%3 == 0 {
			sev = Error
		}
		ds = append(ds, Diagnostic{Span: document.Span{Start: i}, Severity: sev, Code: fmt.Sprint(i)})
	}
	ds = append(ds, LeftOut("f", 7, 10))
	for _, tc := range []struct {
		limit   int
		codes   string
		leftOut int
	}{
		{limit: 10, codes: "0 1 2 3 4 5 6 7 8 9 " + DiagnosticsLeftOut, leftOut: 7},
		{limit: 5, codes: "0 1 3 6 9 " + DiagnosticsLeftOut, leftOut: 12},
		{limit: 2, codes: "0 3 " + DiagnosticsLeftOut, leftOut: 15},
	} {
		got := Cap("f", ds, tc.limit)
		var codes []string
		for _, d := range got {
			codes = append(codes, d.Code)
		}
		if strings.Join(codes, " ") != tc.codes || got[len(got)-1].LeftOut != tc.leftOut {
			t.Errorf("Cap(%d) = %v, left out %d; want %s, %d", tc.limit, codes, got[len(got)-1].LeftOut, tc.codes, tc.leftOut)
		}
	}
}
