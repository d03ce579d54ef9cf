package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
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
