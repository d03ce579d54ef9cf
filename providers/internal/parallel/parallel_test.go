package parallel

import (
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		n, workers int
	}{
		{"none", 0, 4},
		{"fewer than the workers", 3, 8},
		{"more than the workers", 1000, 3},
		{"a worker a core", 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := make([]atomic.Int32, tt.n)
			var running, most atomic.Int32
			For(tt.n, tt.workers, func(i int) {
				r := running.Add(1)
				for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
				}
				calls[i].Add(1)
				running.Add(-1)
			})
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Errorf("fn(%d) called %d times, want once", i, c)
				}
			}
			if tt.workers > 0 && int(most.Load()) > tt.workers {
				t.Errorf("%d calls ran at once, want at most %d", most.Load(), tt.workers)
			}
		})
	}
}
