package watchertest

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		after   time.Duration
		stop    bool // stopped before the clock moves
		advance time.Duration
		fires   bool
	}{
		{"due", time.Second, false, time.Second, true},
		{"past due", time.Second, false, time.Hour, true},
		{"not yet due", time.Second, false, time.Second - 1, false},
		{"stopped", time.Second, true, time.Hour, false},
		{"zero fires at once", 0, false, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewClock(start)
			fired := make(chan struct{}, 1)
			stop := c.AfterFunc(tc.after, func() { fired <- struct{}{} })
			if tc.stop && !stop() {
				t.Fatal("stop of a pending timer reported false")
			}
			c.Advance(tc.advance)
			if got := c.Now(); !got.Equal(start.Add(tc.advance)) {
				t.Errorf("Now() = %v, want %v", got, start.Add(tc.advance))
			}
			select {
			case <-fired:
				if !tc.fires {
					t.Fatal("the timer fired")
				}
				if stop() {
					t.Error("stop after the timer fired reported true")
				}
			case <-time.After(func() time.Duration {
				if tc.fires {
					return 30 * time.Second
				}
				return 50 * time.Millisecond
			}()):
				if tc.fires {
					t.Fatal("the timer did not fire within 30 s")
				}
			}
			if !tc.fires && !tc.stop {
				if got := c.pending(); got != 1 {
					t.Errorf("Pending() = %d, want the timer still pending", got)
				}
			}
		})
	}
}
