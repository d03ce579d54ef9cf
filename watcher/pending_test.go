package watcher

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

// TestPendingDue checks when a pending batch is flushed, on a synthetic
// clock: events are given as offsets from the first one.
func TestPendingDue(t *testing.T) {
	t.Parallel()
	const (
		debounce = 100 * time.Millisecond
		maxWait  = time.Second
		maxBurst = 30 * time.Second
		ms       = time.Millisecond
	)
	type event struct {
		at   time.Duration
		path string // "" requests a rescan
	}
	// burst names n new paths, one every step from start.
	burst := func(start, step time.Duration, n int) []event {
		var out []event
		for i := range n {
			out = append(out, event{start + time.Duration(i)*step, fmt.Sprintf("/w/f%d.md", i)})
		}
		return out
	}
	// loop names the same path (a new one, once) every step from start
	// until end.
	loop := func(start, step, end time.Duration) []event {
		var out []event
		for at := start; at <= end; at += step {
			out = append(out, event{at, "/w/busy.md"})
		}
		return out
	}
	tests := []struct {
		name   string
		events []event
		want   time.Duration // due, from the first event
	}{
		{"one save: the debounce", []event{{0, "/w/a.md"}}, debounce},
		{"a few saves: the debounce after the last", burst(0, 30*ms, 3), 60*ms + debounce},
		{"a rescan is a burst", []event{{0, ""}}, burstQuiet * debounce},
		{"a burst: a longer quiet time", burst(0, ms, 200), 199*ms + burstQuiet*debounce},
		{"a burst longer than MaxWait is held while it grows", burst(0, 2*ms, 3000), 5998*ms + burstQuiet*debounce},
		{"a burst longer than MaxBurst is cut", burst(0, 10*ms, 4000), maxBurst},
		{"a loop on one file is cut at MaxWait", loop(0, 50*ms, 3*time.Second), maxWait},
		{"a burst, then a loop on one of its files: growth ended, cut at MaxWait or soon after",
			append(burst(0, ms, 100), loop(100*ms, 50*ms, 3*time.Second)...), maxWait},
		{"a burst that grows past MaxWait, then a loop: cut once growth ends",
			append(burst(0, 10*ms, 150), loop(1500*ms, 50*ms, 5*time.Second)...), 1500*ms + burstQuiet*debounce},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			t0 := time.Unix(1000, 0)
			p := pending{named: make(map[string]bool)}
			for _, e := range tc.events {
				p.add(t0.Add(e.at), e.path, true)
			}
			if got := p.due(debounce, maxWait, maxBurst).Sub(t0); got != tc.want {
				t.Errorf("due after %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPendingAddReportsIdle: only the first event of a batch wakes the run
// goroutine.
func TestPendingAddReportsIdle(t *testing.T) {
	t.Parallel()
	p := pending{named: make(map[string]bool)}
	now := time.Unix(1000, 0)
	if !p.add(now, "/w/a.md", false) {
		t.Error("the first event did not report an idle set")
	}
	if p.add(now, "/w/b.md", true) || p.add(now, "", false) {
		t.Error("a later event reported an idle set")
	}
	if p.named["/w/a.md"] || !p.named["/w/b.md"] || !p.rescan {
		t.Errorf("pending = %+v", p)
	}
	p.add(now, "/w/a.md", true)
	p.add(now, "/w/a.md", false)
	if !p.named["/w/a.md"] {
		t.Error("a weak event cleared a strong one")
	}
}

// TestPendingNext walks the run goroutine's decisions through a burst on a
// synthetic clock.
func TestPendingNext(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	o := &Options{Debounce: 100 * ms, MaxWait: time.Second, MaxBurst: 30 * time.Second}
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	p := pending{named: make(map[string]bool)}

	type want struct {
		apply   []string // paths handed out to apply
		deliver bool
		wait    time.Duration
	}
	check := func(step string, now time.Duration, final bool, w want) {
		t.Helper()
		req, deliver, wait := p.next(at(now), o, final)
		got := slices.Sorted(maps.Keys(req.named))
		slices.Sort(w.apply)
		if !slices.Equal(got, w.apply) || deliver != w.deliver || wait != w.wait {
			t.Fatalf("%s: next = apply %v, deliver %v, wait %v; want apply %v, deliver %v, wait %v",
				step, got, deliver, wait, w.apply, w.deliver, w.wait)
		}
	}

	check("nothing happened", 0, false, want{})

	// A directory is created; files are written into it, unwatched.
	p.add(at(0), "/w/new", true)
	check("within the debounce", 50*ms, false, want{wait: 50 * ms})
	check("the debounce passed: apply, decide after", 100*ms, false, want{apply: []string{"/w/new"}})
	p.found(at(120*ms), 200) // reading /w/new found 200 files
	check("what was found holds the batch", 120*ms, true, want{wait: 500 * ms})

	// Events from the now watched directory; a stall shorter than the
	// quiet time of a burst.
	p.add(at(300*ms), "/w/new/a.md", true)
	p.add(at(350*ms), "/w/new/b.md", true)
	check("events applied after the debounce", 450*ms, false, want{apply: []string{"/w/new/a.md", "/w/new/b.md"}})
	check("the burst is not over", 450*ms, true, want{wait: 400 * ms})
	check("the burst is over", 850*ms, false, want{deliver: true})
	check("delivered: nothing more", 900*ms, false, want{})
	if !p.first.IsZero() || p.paths != 0 {
		t.Errorf("the burst was not reset: %+v", p)
	}

	// A lone save: applied and delivered at once.
	p.add(at(2*time.Second), "/w/x.md", true)
	check("a lone save, first ask", 2100*ms, false, want{apply: []string{"/w/x.md"}})
	check("a lone save, after applying", 2100*ms, true, want{deliver: true})

	// At the cap, what came during the application is applied and the
	// batch delivered all the same.
	p = pending{named: make(map[string]bool)}
	var stream []string
	for i := range 100 {
		stream = append(stream, fmt.Sprintf("/w/s%d.md", i))
		p.add(at(time.Duration(i)*300*ms), stream[i], true)
	}
	check("at the cap", 30*time.Second, false, want{apply: stream})
	p.add(at(30*time.Second), "/w/late.md", true)
	check("at the cap, after applying", 30*time.Second, true, want{apply: []string{"/w/late.md"}, deliver: true})
}
