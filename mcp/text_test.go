package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ctxls/ctxls/providers/library/libtest"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/watcher/watchertest"
)

func TestPageOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		n, limit     int
		cursor       string
		lo, hi       int
		next, errHas string
	}{
		{name: "default size", n: 250, lo: 0, hi: defaultPageSize, next: "100"},
		{name: "second page", n: 250, cursor: "100", lo: 100, hi: 200, next: "200"},
		{name: "last page", n: 250, cursor: "200", lo: 200, hi: 250},
		{name: "all fit", n: 7, lo: 0, hi: 7},
		{name: "empty", n: 0, lo: 0, hi: 0},
		{name: "limit", n: 10, limit: 3, cursor: "3", lo: 3, hi: 6, next: "6"},
		{name: "limit capped", n: 5000, limit: 100000, lo: 0, hi: maxPageSize, next: "1000"},
		{name: "cursor past the end", n: 10, cursor: "40", lo: 10, hi: 10},
		{name: "negative limit", n: 10, limit: -1, errHas: "limit -1"},
		{name: "cursor not a number", n: 10, cursor: "abc", errHas: `cursor "abc"`},
		{name: "negative cursor", n: 10, cursor: "-5", errHas: `cursor "-5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lo, hi, next, err := pageOf(tt.n, tt.limit, tt.cursor)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want one containing %q", err, tt.errHas)
				}
				return
			}
			if err != nil || lo != tt.lo || hi != tt.hi || next != tt.next {
				t.Errorf("pageOf(%d, %d, %q) = %d, %d, %q, %v; want %d, %d, %q", tt.n, tt.limit, tt.cursor, lo, hi, next, err, tt.lo, tt.hi, tt.next)
			}
		})
	}
}

func TestAnswerCacheKeepsOneVersion(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := newAnswerCache[int]()
	put := func(gen uint64, key string, v int) {
		t.Helper()
		if got, err := c.Do(ctx, gen, key, func(context.Context) (int, error) { return v, nil }); err != nil {
			t.Fatalf("do(%d, %s): %d, %v", gen, key, got, err)
		}
	}
	put(1, "a", 10)
	if v, ok := c.Get(1, "a"); !ok || v != 10 {
		t.Fatalf("get(1, a) = %d, %v; want 10", v, ok)
	}
	if v, _ := c.Do(ctx, 1, "a", func(context.Context) (int, error) { return 99, nil }); v != 10 {
		t.Errorf("do computed again what is kept: %d", v)
	}
	if _, ok := c.Get(2, "a"); ok {
		t.Error("an answer of version 1 is returned for version 2")
	}
	put(2, "b", 20)
	if _, ok := c.Get(1, "a"); ok {
		t.Error("version 1's answers outlive a put of version 2")
	}
	put(1, "a", 11) // computed before the change, stored after it
	if _, ok := c.Get(1, "a"); ok {
		t.Error("a late answer of version 1 is kept once version 2 is")
	}
	if _, err := c.Do(ctx, 2, "e", func(context.Context) (int, error) { return 0, errors.New("bad") }); err == nil {
		t.Error("no error from a failed computation")
	}
	if _, ok := c.Get(2, "e"); ok {
		t.Error("a failed computation is kept")
	}
	for i := range maxCachedAnswers + 1 {
		put(2, fmt.Sprint("k", i), i)
	}
	if _, ok := c.Get(2, "k0"); ok {
		t.Errorf("the first answer is kept past %d answers", maxCachedAnswers)
	}
}

// TestAnswerCacheComputesOnce: calls that ask for an answer being
// computed wait for it; when the computation they wait for is cancelled,
// one of them computes it.
func TestAnswerCacheComputesOnce(t *testing.T) {
	t.Parallel()
	c := newAnswerCache[int]()
	var computed atomic.Int32
	release := make(chan struct{})
	leaderCtx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	leaderDone := make(chan error, 1)
	go func() {
		_, err := c.Do(leaderCtx, 1, "k", func(ctx context.Context) (int, error) {
			close(started)
			<-ctx.Done() // cancelled before it finishes
			return 0, ctx.Err()
		})
		leaderDone <- err
	}()
	<-started
	const waiters = 8
	results := make(chan int, waiters)
	for range waiters {
		go func() {
			v, err := c.Do(t.Context(), 1, "k", func(context.Context) (int, error) {
				computed.Add(1)
				<-release
				return 42, nil
			})
			if err != nil {
				t.Errorf("waiter: %v", err)
			}
			results <- v
		}()
	}
	cancel()
	if err := libtest.Receive(t, leaderDone, "the cancelled computation to return"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled computation: %v", err)
	}
	close(release)
	for range waiters {
		if v := libtest.Receive(t, results, "a waiter to return"); v != 42 {
			t.Errorf("waiter got %d, want 42", v)
		}
	}
	if n := computed.Load(); n != 1 {
		t.Errorf("computed %d times after the cancelled one, want once", n)
	}
}

func TestCatalogTextSumsLongCatalogsUp(t *testing.T) {
	t.Parallel()
	a := &catalogAnswer{tokenizer: "tok", domains: []domainSum{{"d0", 200, 2000}, {"d1", 100, 1000}}}
	a.entries = append(a.entries, CatalogEntry{Reference: "sk", Title: "a skill", Kind: ops.KindSkill, Tokens: 5})
	for i := range 300 {
		a.entries = append(a.entries, CatalogEntry{Reference: fmt.Sprintf("d%d:t%d", i/200, i), Title: fmt.Sprint("T", i), Kind: ops.KindTopic, Tokens: 10})
	}
	a.tokens = 3005
	tests := []struct {
		name   string
		lo, hi int
		next   string
		lines  int // of the text, the count line included
		has    []string
		hasNot []string
	}{
		{"first page", 0, 100, "100", 1 + 100 + 1 + 2, []string{"301 entries, 3005 tokens (tok); 1 to 100 below, the next page with cursor \"100\"", "sk\tskill\t5 tokens", "d0\t200 topics\t2000 tokens", "call catalog with a domain"}, nil},
		{"last page", 200, 301, "", 1 + 101, []string{"; 201 to 301 below\n", "d1:t299\ttopic\t10 tokens\tT299"}, []string{"topics by domain", "cursor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := CatalogOutput{Entries: a.entries[tt.lo:tt.hi], Total: len(a.entries), Tokens: a.tokens, Tokenizer: a.tokenizer, NextCursor: tt.next}
			text := catalogText(a, out, tt.lo)
			if n := strings.Count(text, "\n"); n != tt.lines {
				t.Errorf("%d lines, want %d:\n%s", n, tt.lines, text)
			}
			for _, h := range tt.has {
				if !strings.Contains(text, h) {
					t.Errorf("text lacks %q:\n%s", h, text)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(text, h) {
					t.Errorf("text holds %q:\n%s", h, text)
				}
			}
		})
	}
}

func TestCheckTextSumsUp(t *testing.T) {
	t.Parallel()
	var res ops.CheckResponse
	for i := range 150 {
		res.Items = append(res.Items, ops.Diagnostic{File: fmt.Sprintf("f%03d.md", i), Line: 1, Column: 1, Severity: "warning", Code: "token-drift", Message: "drift"})
		if i%10 == 3 {
			res.Items = append(res.Items, ops.Diagnostic{File: fmt.Sprintf("f%03d.md", i), Line: 2, Column: 3, Severity: "error", Code: "unresolved-reference", Message: "no such topic"})
			res.Errors++
		}
	}
	a := newCheckAnswer(res)
	out := CheckOutput{Items: a.res.Items[:defaultPageSize], Errors: res.Errors, Total: len(a.res.Items), NextCursor: "100"}
	lines := strings.Split(strings.TrimSuffix(checkText(a, out, 0), "\n"), "\n")
	if want := `165 problems, 15 errors; token-drift 150, unresolved-reference 15; 1 to 100 below, the next page with cursor "100"`; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "errors in f003.md, f013.md, f023.md, f033.md, f043.md, f053.md, f063.md, f073.md, f083.md, f093.md and 5 more files"; lines[1] != want {
		t.Errorf("second line %q, want %q", lines[1], want)
	}
	if !strings.HasPrefix(lines[2], "f000.md:1:1\twarning\ttoken-drift") || !strings.HasPrefix(lines[6], "f003.md:2:3\terror\tunresolved-reference") {
		t.Errorf("diagnostics not in the order of the check: %q", lines[2:7])
	}
	if len(lines) != 2+defaultPageSize {
		t.Errorf("%d lines, want the two summary lines and %d diagnostics", len(lines), defaultPageSize)
	}
}

// TestPagingVisitsEveryEntryOnce pages through the catalog and the check
// of a workspace, two at a time, through the tools: every entry comes
// once, in the order of one call for all, and the counts agree.
func TestPagingVisitsEveryEntryOnce(t *testing.T) {
	t.Parallel()
	files := fixture()
	for i := range 7 {
		files[fmt.Sprintf("commands/c%d.md", i)] = fmt.Sprintf("# C%d\n\nLoad web:missing%d first.\n", i, i)
	}
	dir := libtest.WriteTree(t, files)
	_, cs := connect(t, dir, nil)

	var all CatalogOutput
	call(t, cs, "catalog", map[string]any{"limit": 1000}, &all)
	var paged []CatalogEntry
	for cursor, pages := "", 0; ; pages++ {
		if pages > len(all.Entries) {
			t.Fatalf("catalog: more pages than entries")
		}
		var out CatalogOutput
		if text, isErr := call(t, cs, "catalog", map[string]any{"limit": 2, "cursor": cursor}, &out); isErr {
			t.Fatalf("catalog page %q: %s", cursor, text)
		}
		if out.Total != all.Total || out.Tokens != all.Tokens || len(out.Entries) > 2 {
			t.Fatalf("page %q: total %d, tokens %d, %d entries; want %d, %d, at most 2", cursor, out.Total, out.Tokens, len(out.Entries), all.Total, all.Tokens)
		}
		paged = append(paged, out.Entries...)
		if cursor = out.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(paged, all.Entries) || len(all.Entries) != all.Total {
		t.Errorf("paged catalog %v\nwant %v (total %d)", paged, all.Entries, all.Total)
	}
	if all.Entries[0].Kind == ops.KindTopic {
		t.Errorf("catalog opens with a topic, want skills, commands and rules first: %v", all.Entries)
	}

	var whole CheckOutput
	call(t, cs, "check", map[string]any{"limit": 1000}, &whole)
	if whole.Total < 8 || whole.NextCursor != "" {
		t.Fatalf("check: total %d, next %q; want 8 or more unresolved references on one page", whole.Total, whole.NextCursor)
	}
	var items []ops.Diagnostic
	for cursor := ""; ; {
		var out CheckOutput
		if text, isErr := call(t, cs, "check", map[string]any{"limit": 3, "cursor": cursor}, &out); isErr {
			t.Fatalf("check page %q: %s", cursor, text)
		}
		if out.Total != whole.Total || out.Errors != whole.Errors {
			t.Fatalf("page %q: total %d, errors %d; want %d, %d", cursor, out.Total, out.Errors, whole.Total, whole.Errors)
		}
		items = append(items, out.Items...)
		if cursor = out.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.EqualFunc(items, whole.Items, func(a, b ops.Diagnostic) bool {
		return a.File == b.File && a.Line == b.Line && a.Code == b.Code && a.Message == b.Message
	}) {
		t.Errorf("paged check %v\nwant %v", items, whole.Items)
	}
	for _, bad := range []map[string]any{{"cursor": "x"}, {"limit": -3}} {
		if text, isErr := call(t, cs, "check", bad, nil); !isErr {
			t.Errorf("check %v: no error, text %q", bad, text)
		}
		if text, isErr := call(t, cs, "catalog", bad, nil); !isErr {
			t.Errorf("catalog %v: no error, text %q", bad, text)
		}
	}
}

// TestAnswersComputedAhead checks that the workspace's check and the
// catalog's first page are kept before any call, and again after a
// change, for the workspace as it is then.
func TestAnswersComputedAhead(t *testing.T) {
	t.Parallel()
	dir := libtest.WriteTree(t, fixture())
	srv, _ := connect(t, dir, nil)
	// ready waits until the answers of the current version are kept.
	ready := func(what string) *checkAnswer {
		t.Helper()
		var a *checkAnswer
		watchertest.WaitFor(t, "the check and the catalog's first page kept "+what, func() bool {
			gen := srv.gen.Load()
			var checked, listed bool
			a, checked = srv.checks.Get(gen, "")
			_, listed = srv.catalogs.Get(gen, "\x00\x00")
			return checked && listed
		})
		return a
	}
	ready("after the index")
	gen := srv.gen.Load()
	// Written whole: a file seen empty would be a version of its own,
	// without the reference.
	writeWhole(t, filepath.Join(dir, "commands", "new.md"), "# New\n\nLoad web:gone first.\n")
	watchertest.WaitFor(t, "a new version of the workspace after a new command", func() bool { return srv.gen.Load() != gen })
	a := ready("after a change")
	if !slices.ContainsFunc(a.res.Items, func(d ops.Diagnostic) bool { return d.File == "commands/new.md" }) {
		t.Errorf("the check kept after the change lacks commands/new.md: %+v", a.res.Items)
	}
}
