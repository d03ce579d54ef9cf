// Package parallel runs the iterations of a loop on a few goroutines.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i from 0 to n-1, on at most workers goroutines
// (one a core when workers is 0 or less), and returns once every call has.
// The calls take the indexes in order, each one the next not yet taken, so
// that a slow one does not hold up the others.
func For(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
