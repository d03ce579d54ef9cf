package numfmt_test

import (
	"math"
	"testing"

	"github.com/ctxls/ctxls/providers/numfmt"
)

func TestThousands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12480, "12,480"}, {1234567, "1,234,567"},
		{-1, "-1"}, {-1234, "-1,234"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		if got := numfmt.Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		noun string
		want string
	}{
		{0, "line", "0 lines"}, {1, "line", "1 line"}, {2, "file", "2 files"}, {12480, "token", "12,480 tokens"},
	}
	for _, tt := range tests {
		if got := numfmt.Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
	if numfmt.Plural(1) != "" || numfmt.Plural(0) != "s" || numfmt.Plural(3) != "s" {
		t.Error("Plural")
	}
}
