package library

import "testing"

func TestAlwaysLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, strategy string
		want          bool
	}{
		{"always", "", true},
		{"", "always", true},
		{"index", "always", true},
		{"detection", "always", true},
		{"always", "onDemand", true},
		{"framework", "onDemand", false},
		{"reference", "lazy", false},
		{"", "", false},
		{"Always", "ALWAYS", false},
	}
	for _, tc := range tests {
		tp := &Topic{Meta: Metadata{Type: tc.typ, LoadingStrategy: tc.strategy}}
		if got := tp.AlwaysLoad(); got != tc.want {
			t.Errorf("type %q strategy %q: AlwaysLoad() = %v, want %v", tc.typ, tc.strategy, got, tc.want)
		}
	}
}
