package agentfiles

import (
	"context"
	"testing"

	"github.com/ctxls/ctxls/providers/diag"
)

// The fixes of settings rules rewrite only what is certain: an env value
// written as a number gets its quotes, a miscased tool name its case.
func TestSettingsFixes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir, code, want string
	}{
		{"testdata/codes/settings-value-invalid", diag.SettingsValueInvalid, `"300000"`},
		{"testdata/codes/settings-permission-invalid", diag.SettingsPermissionInvalid, `"Bash(ls)"`},
	} {
		s := mustLoad(t, tc.dir, nil)
		fixed := 0
		for p, ds := range s.Check(context.Background()) {
			f, _ := s.File(p)
			for _, d := range ds {
				if d.Code != tc.code || len(d.Fixes) == 0 {
					continue
				}
				fixed++
				text := string(f.Text)
				for i := len(d.Fixes[0].Edits) - 1; i >= 0; i-- {
					e := d.Fixes[0].Edits[i]
					text = text[:e.Span.Start] + e.NewText + text[e.Span.End:]
				}
				start := d.Span.Start
				got := text[start : start+len(tc.want)]
				if got != tc.want {
					t.Errorf("%s: the fix writes %s, want %s", tc.dir, got, tc.want)
				}
			}
		}
		if fixed != 1 {
			t.Errorf("%s: %d diagnostics with a fix, want 1", tc.dir, fixed)
		}
	}
}
