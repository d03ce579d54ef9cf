package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapRoom returns how much the heap has grown since the last cycle and
// how much it may grow before the next.
func heapRoom() (used, room uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	live, goal, objects := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()
	if objects < live { // the two are counted differently; just after a cycle
		return 0, goal - live
	}
	return objects - live, goal - live
}

var sink []byte

// TestCollectIfDue counts the process's GC cycles, so it runs alone.
func TestCollectIfDue(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	// Something live, so that the room before the next cycle is large
	// compared with what the test allocates per step.
	keep := make([][]byte, 0, 512)
	for range 512 {
		keep = append(keep, make([]byte, 64<<10))
	}
	runtime.GC()

	before := gcCycles()
	collectIfDue()
	if n := gcCycles(); n != before {
		t.Fatalf("collected right after a collection (%d cycles, was %d)", n, before)
	}

	// Use more than half the room, without the GC's own cycle coming first.
	for attempt := 0; ; attempt++ {
		if attempt == 10 {
			t.Skip("the runtime collected before the test could fill half the room")
		}
		start := gcCycles()
		for {
			used, room := heapRoom()
			if used > room*6/10 {
				break
			}
			sink = make([]byte, 16<<10)
		}
		if gcCycles() == start {
			break
		}
		runtime.GC()
	}
	before = gcCycles()
	collectIfDue()
	if n := gcCycles(); n == before {
		t.Fatal("did not collect with more than half the room used")
	}
	runtime.KeepAlive(keep)
}

// gcPolicy returns the process's GOGC (-1 when off) and memory limit.
func gcPolicy() (percent int, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int(int64(s[0].Value.Uint64())), int64(s[1].Value.Uint64())
}

// TestHeapFloor sets the process's GC policy, so it runs alone, and puts
// back the one it found.
func TestHeapFloor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tests := []struct {
		name string
		// end ends the floor: a collection, or the caller's lift.
		end func(t *testing.T, lift func())
	}{
		{"a collection at the floor lifts it", func(t *testing.T, lift func()) {
			deadline := time.Now().Add(10 * time.Second)
			for p, _ := gcPolicy(); p != serverGCPercent; p, _ = gcPolicy() {
				if time.Now().After(deadline) {
					t.Fatalf("GOGC still %d 10 s after the first collection", p)
				}
				runtime.GC()
				time.Sleep(time.Millisecond)
			}
		}},
		{"the caller lifts it", func(t *testing.T, lift func()) { lift() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			lift := setCheckGC()
			defer lift()
			if p, l := gcPolicy(); p != -1 || l != checkHeapFloor {
				t.Fatalf("under the floor: GOGC %d, limit %d; want off and %d", p, l, checkHeapFloor)
			}
			tt.end(t, lift)
			if p, l := gcPolicy(); p != serverGCPercent || l != serverMemoryLimit {
				t.Fatalf("after the floor: GOGC %d, limit %d; want %d and %d", p, l, serverGCPercent, serverMemoryLimit)
			}
			// Lifting again, or the collection's lift coming late, keeps
			// what the process has set since.
			debug.SetGCPercent(100)
			lift()
			runtime.GC()
			if p, _ := gcPolicy(); p != 100 {
				t.Fatalf("a second lift set GOGC %d over the 100 set since", p)
			}
		})
	}
	t.Run("GOGC set", func(t *testing.T) {
		t.Setenv("GOGC", "200")
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		setCheckGC()()
		if p, _ := gcPolicy(); p == -1 {
			t.Fatal("the floor turned GOGC off though the environment sets it")
		}
	})
}
