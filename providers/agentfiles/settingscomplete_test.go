package agentfiles

import (
	"strings"
	"testing"
)

// SettingSpot finds top-level keys and their string values in settings
// text as it is typed, and nothing inside nested objects or arrays.
func TestSettingSpot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, marker string // the cursor is at the | of marker
		ok, value    bool
		key          string
	}{
		{`{"mod|": 1}`, "|", true, false, "mod"},
		{`{"model": "op|"}`, "|", true, true, "model"},
		{`{"a": 1, "out|`, "|", true, false, "out"},
		{"{\n  |\n}", "|", true, false, ""},
		{`{"env": {"NODE|": "x"}}`, "|", false, false, ""},
		{`{"permissions": {"allow": ["Ba|"]}}`, "|", false, false, ""},
		{`{"model": 1|}`, "|", false, false, ""},
		{`{"a\"b|": 1}`, "|", true, false, `a\"b`},
	} {
		off := strings.Index(tc.text, tc.marker)
		text := []byte(strings.Replace(tc.text, tc.marker, "", 1))
		spot, ok := SettingSpot(text, off)
		if ok != tc.ok || (ok && (spot.Value != tc.value || spot.Key != tc.key)) {
			t.Errorf("%s: got %+v %v, want key %q value %v ok %v", tc.text, spot, ok, tc.key, tc.value, tc.ok)
		}
	}
}
