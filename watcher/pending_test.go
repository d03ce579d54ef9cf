package watcher

import (
	"fmt"
	"testing"
	"time"
)

// TestPendingDue checks when a pending batch is flushed, on a synthetic
// clock: events are given as offsets from the first one.
func TestPendingDue(t *testing.T) {
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
