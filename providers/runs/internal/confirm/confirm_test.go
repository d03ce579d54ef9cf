package confirm

import (
	"errors"
	"testing"
	"time"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ts := New(time.Minute, clock)

	a, exp := ts.issue("a")
	if len(a) < 26 {
		t.Fatalf("token %q is shorter than 128 bits of base32", a)
	}
	if !exp.Equal(now.Add(time.Minute)) {
		t.Errorf("expires %v, want %v", exp, now.Add(time.Minute))
	}
	if err := ts.Consume("b", a); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("token of a used for b: %v, want ErrInvalidToken", err)
	}
	// The failed attempt consumed it.
	if err := ts.Consume("a", a); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("token reused after a failed attempt: %v, want ErrInvalidToken", err)
	}

	b, _ := ts.issue("a")
	if b == a {
		t.Fatal("two issued tokens are equal")
	}
	if err := ts.Consume("a", b); err != nil {
		t.Fatalf("valid token: %v", err)
	}
	if err := ts.Consume("a", b); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("replayed token: %v, want ErrInvalidToken", err)
	}

	c, _ := ts.issue("a")
	now = now.Add(time.Minute)
	if err := ts.Consume("a", c); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("expired token: %v, want ErrInvalidToken", err)
	}
	if err := ts.Consume("a", ""); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("empty token: %v, want ErrInvalidToken", err)
	}
}
