package errkind_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxls/ctxls/providers/errkind"
)

func TestKinds(t *testing.T) {
	t.Parallel()
	errMissing := errkind.New(errkind.NotFound, "no such thing")
	plain := errors.New("disk on fire")
	tests := []struct {
		name string
		err  error
		kind errkind.Kind
		msg  string
		is   []error // what errors.Is matches it to
	}{
		{"sentinel", errMissing, errkind.NotFound, "no such thing", []error{errMissing, errkind.NotFound}},
		{"wrapped sentinel", fmt.Errorf("execution x: %w", errMissing), errkind.NotFound, "execution x: no such thing", []error{errMissing, errkind.NotFound}},
		{"marked", errkind.Mark(errkind.Conflict, plain), errkind.Conflict, "disk on fire", []error{plain, errkind.Conflict}},
		{"marked twice", errkind.Mark(errkind.Invalid, errkind.Mark(errkind.Invalid, plain)), errkind.Invalid, "disk on fire", []error{plain, errkind.Invalid}},
		{"outermost kind wins", errkind.Mark(errkind.Invalid, errMissing), errkind.Invalid, "no such thing", []error{errMissing, errkind.Invalid, errkind.NotFound}},
		{"joined", errors.Join(plain, errMissing), errkind.NotFound, "disk on fire\nno such thing", []error{plain, errMissing, errkind.NotFound}},
		{"a kind wrapped", fmt.Errorf("%w: %w", errkind.Consent, plain), errkind.Consent, "consent required: disk on fire", []error{plain, errkind.Consent}},
		{"plain", plain, 0, "disk on fire", []error{plain}},
	}
	all := []errkind.Kind{errkind.Invalid, errkind.NotFound, errkind.Conflict, errkind.Unavailable, errkind.Consent}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := errkind.Of(tt.err); got != tt.kind {
				t.Errorf("Of = %v, want %v", got, tt.kind)
			}
			if tt.err.Error() != tt.msg {
				t.Errorf("message %q, want %q", tt.err, tt.msg)
			}
			for _, target := range tt.is {
				if !errors.Is(tt.err, target) {
					t.Errorf("errors.Is(%v, %v) is false", tt.err, target)
				}
			}
			for _, k := range all {
				want := false
				for _, target := range tt.is {
					want = want || target == error(k)
				}
				if errors.Is(tt.err, k) != want {
					t.Errorf("errors.Is(%v, %v) = %v", tt.err, k, !want)
				}
			}
		})
	}
	if errkind.Mark(errkind.Invalid, nil) != nil {
		t.Error("Mark(nil) is not nil")
	}
	for _, k := range all {
		if k.Error() == "unknown kind" {
			t.Errorf("kind %d has no name", k)
		}
	}
}
