package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/indexcache"
	"github.com/ctxls/ctxls/providers/tokens"
)

// The benchmarks drive server binaries over stdio on a generated library
// of 10,000 topics, and run the same work on Microsoft's markdown language
// server (vscode-markdown-languageserver from npm, in
// testdata/markdownls; `npm ci` there first) for comparison:
//
//	go test -run '^$' -bench 'StdioCompletion|StdioHover' -benchtime 1000x ./lsp
//	go test -run '^$' -bench StdioDiagnosticsAfterEdit -benchtime 200x ./lsp
//	go test -run '^$' -bench StdioInitializeToDiagnostics -benchtime 5x ./lsp
//
// (each iteration of the last one is a cold start). Each reports the
// latency p50 and p99 in milliseconds besides ns/op (the mean).

const (
	benchDomains         = 50
	benchTopicsPerDomain = 200 // 50 × 200 = 10,000 topics
	benchCommandLines    = 2000
	benchBrokenEvery     = 200 // one broken reference and link per 200 lines
	// benchEditPause is the quiet spell before each edit of the
	// diagnostics benchmark: longer than the server's DiagnosticsDelay.
	benchEditPause = 60 * time.Millisecond
)

// benchLib is the generated library and the positions the benchmarks use
// in its 2,000-line command file.
type benchLib struct {
	root    string
	command string // absolute path of commands/big.md
	text    string
	// ctxls: completion after `d07:`, hover on a topic name, the topic
	// name toggled by the edit benchmark.
	keyComplete, keyHover, keyEdit ClientPosition
	// markdownls: completion after `](../context/d07/`, the link target
	// toggled by the edit benchmark.
	linkComplete, linkEdit ClientPosition
}

var benchLibOnce = sync.OnceValues(benchGenerate)

// benchLibrary returns the generated library, creating it on first use.
func benchLibrary(b *testing.B) *benchLib {
	b.Helper()
	lib, err := benchLibOnce()
	if err != nil {
		b.Fatalf("generate the library: %v", err)
	}
	return lib
}

const benchProse = "This topic explains how the service handles requests, " +
	"validates input at the boundary, keeps database sessions short and " +
	"reports errors with enough context to act on them. Follow the rules " +
	"in order; each one names the failure it prevents and the check that " +
	"finds it in review.\n\n"

// benchSection returns the text of one `##` section of topic (d, t).
func benchSection(name string, d, t int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", name)
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "Rule %d.%d.%d: ", d, t, i)
		b.WriteString(benchProse)
	}
	fmt.Fprintf(&b, "```python\ndef handler_%d_%d(request):\n    return validate(request)\n```\n\n", d, t)
	return b.String()
}

var benchSectionNames = []string{"Overview", "Patterns", "Pitfalls"}

// benchTopic returns the body (after the frontmatter) of topic (d, t).
func benchTopic(d, t int) (body string, sections []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Topic %02d %03d\n\n", d, t)
	b.WriteString(benchProse)
	for _, name := range benchSectionNames {
		s := benchSection(name, d, t)
		sections = append(sections, s)
		b.WriteString(s)
	}
	next := (t + 1) % benchTopicsPerDomain
	fmt.Fprintf(&b, "Related: d%02d:t%03d and [the next topic](t%03d.md).\n", d, next, next)
	return b.String(), sections
}

// benchGenerate writes the library under the test binary's temporary
// directory: 50 domains of 200 topics (about 40 MB), each topic with
// frontmatter whose declared costs match the measured ones, and a command
// file of 2,000 lines that references topics in the key, call and link
// forms, a few of them broken.
func benchGenerate() (*benchLib, error) {
	root := filepath.Join(stdioTempDir, "benchlib")
	counter, err := tokens.New(tokens.Default)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	// Bodies differ only in numbers; one measurement fits all within the
	// drift threshold.
	body0, sections0 := benchTopic(0, 0)
	bodyTokens := counter.Count(body0)
	var sectionTokens []int
	for _, s := range sections0 {
		sectionTokens = append(sectionTokens, counter.Count(s))
	}
	for d := 0; d < benchDomains; d++ {
		dir := filepath.Join(root, "context", fmt.Sprintf("d%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for t := 0; t < benchTopicsPerDomain; t++ {
			body, _ := benchTopic(d, t)
			var fm strings.Builder
			fmt.Fprintf(&fm, "---\nid: d%02d/t%03d\ndomain: d%02d\ntitle: Topic %02d %03d\ntype: reference\n", d, t, d, d, t)
			fmt.Fprintf(&fm, "estimatedTokens: %d\nloadingStrategy: onDemand\nversion: 1.0.0\nsections:\n", bodyTokens)
			for i, name := range benchSectionNames {
				fmt.Fprintf(&fm, "  - name: %s\n    estimatedTokens: %d\n    keywords: [rule, check]\n", name, sectionTokens[i])
			}
			fmt.Fprintf(&fm, "tags: [d%02d, bench]\n---\n\n", d)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%03d.md", t)), []byte(fm.String()+body), 0o644); err != nil {
				return nil, err
			}
		}
	}

	lib := &benchLib{root: root, command: filepath.Join(root, "commands", "big.md")}
	var b strings.Builder
	b.WriteString("---\nname: big\ndescription: A long command for the benchmarks.\ncontext: [d00, d01/t001]\n---\n\n# /big\n\n")
	lines := strings.Count(b.String(), "\n")
	mark := func(prefix string) ClientPosition {
		return ClientPosition{Line: lines, Character: len(prefix)}
	}
	for i := 0; lines < benchCommandLines; i++ {
		d, t := i%benchDomains, (i*7)%benchTopicsPerDomain
		broken := ""
		if i%benchBrokenEvery == benchBrokenEvery/2 {
			broken = "x"
		}
		switch i {
		case 1000:
			lib.keyComplete = mark("Complete: d07:")
			b.WriteString("Complete: d07:\n")
		case 1001:
			lib.linkComplete = mark("Complete: [more](../context/d07/")
			b.WriteString("Complete: [more](../context/d07/\n")
		case 1002:
			lib.keyHover = mark("Hover: d07:t0")
			b.WriteString("Hover: d07:t042 is the topic to read.\n")
		case 1003:
			lib.keyEdit = mark("Edit: d03:t005")
			lib.linkEdit = mark("Edit: d03:t005 and [edit](../context/d03/t005")
			b.WriteString("Edit: d03:t005 and [edit](../context/d03/t005.md) change here.\n")
		default:
			fmt.Fprintf(&b, "Step %d: load d%02d:t%03d%s, then getConditionalContext(\"d%02d\", \"t%03d\") and read [notes](../context/d%02d/t%03d%s.md).\n",
				i, d, t, broken, (d+1)%benchDomains, (t+3)%benchTopicsPerDomain, (d+2)%benchDomains, (t+5)%benchTopicsPerDomain, broken)
		}
		lines++
	}
	lib.text = b.String()
	if err := os.MkdirAll(filepath.Dir(lib.command), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(lib.command, []byte(lib.text), 0o644); err != nil {
		return nil, err
	}
	return lib, nil
}

// benchSettle waits until the server has published no diagnostics for
// half a second: after the initial index ctxls publishes those of the whole
// workspace, which would otherwise compete with the first measured
// requests.
func benchSettle(ctx context.Context, b *testing.B, c *Client) {
	b.Helper()
	n, since := -1, time.Now()
	for time.Since(since) < 500*time.Millisecond {
		if m := len(c.Notifications("textDocument/publishDiagnostics")); m != n {
			n, since = m, time.Now()
		}
		select {
		case <-ctx.Done():
			b.Fatal("the server kept publishing diagnostics")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// benchLatencies collects one duration per operation and reports p50 and
// p99 in milliseconds.
type benchLatencies []time.Duration

func (l benchLatencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	s := slices.Clone(l)
	slices.Sort(s)
	at := func(p int) float64 {
		i := min(len(s)-1, len(s)*p/100)
		return float64(s[i].Microseconds()) / 1000
	}
	b.ReportMetric(at(50), "p50-ms")
	b.ReportMetric(at(99), "p99-ms")
}

// benchServer knows how to start one language server and do the work of
// each benchmark with it.
type benchServer struct {
	name  string
	start func(b *testing.B, root string) *Client
	// settings sent with workspace/didChangeConfiguration after initialize.
	settings any
	// pull is true for servers with pull diagnostics only.
	pull bool
	// setup, when set, runs once before a benchmark's iterations, and
	// prepare before each, outside the timer.
	setup   func(ctx context.Context, b *testing.B)
	prepare func(b *testing.B)
}

func benchServers(b *testing.B) []benchServer {
	ctxls := benchServer{
		name: "ctxls",
		start: func(b *testing.B, root string) *Client {
			args := []string{"serve", "--stdio"}
			// CTXLS_BENCH_CPUPROFILE profiles the ctxls server of a benchmark.
			if p := os.Getenv("CTXLS_BENCH_CPUPROFILE"); p != "" {
				args = append(args, "--cpuprofile", p)
			}
			return StartClient(b, root, stdioBinaryPath(b), args...)
		},
	}
	markdownls := benchServer{
		name: "markdownls",
		start: func(b *testing.B, root string) *Client {
			dir, err := filepath.Abs(filepath.Join("testdata", "markdownls"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-markdown-languageserver")); err != nil {
				b.Skip("vscode-markdown-languageserver not installed (npm ci in lsp/testdata/markdownls)")
			}
			node, err := exec.LookPath("node")
			if err != nil {
				b.Skip("node not installed")
			}
			return StartClient(b, root, node, filepath.Join(dir, "proxy.mjs"))
		},
		settings: map[string]any{"markdown": map[string]any{
			"suggest": map[string]any{"paths": map[string]any{"enabled": true}},
			"validate": map[string]any{
				"enabled":                  true,
				"referenceLinks":           map[string]any{"enabled": "warning"},
				"fragmentLinks":            map[string]any{"enabled": "warning"},
				"fileLinks":                map[string]any{"enabled": "warning", "markdownFragmentLinks": "inherit"},
				"ignoredLinks":             []string{},
				"unusedLinkDefinitions":    map[string]any{"enabled": "hint"},
				"duplicateLinkDefinitions": map[string]any{"enabled": "warning"},
			},
			"preferredMdPathExtensionStyle": "auto",
		}},
		pull: true,
	}
	return []benchServer{ctxls, markdownls}
}

// benchCtx bounds each benchmark's waits.
func benchCtx(b *testing.B) context.Context {
	// markdownls needs about half a second per pulled diagnostics of the
	// 2,000-line file, so a thousand iterations take many minutes.
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Minute)
	b.Cleanup(cancel)
	return ctx
}

// open starts the server on the library, initializes it and opens the
// command file.
func (s benchServer) open(ctx context.Context, b *testing.B, lib *benchLib) *Client {
	c := s.start(b, lib.root)
	if _, err := c.Initialize(ctx, lib.root, nil, map[string]any{"markdownFileExtensions": []string{"md"}}); err != nil {
		b.Fatalf("%s initialize: %v\n%s", s.name, err, stdioTail(c.Stderr(), 2000))
	}
	if s.settings != nil {
		if err := c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": s.settings}); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.DidOpen(stdioFileURI(lib.command), lib.text); err != nil {
		b.Fatal(err)
	}
	return c
}

// diagnostics returns the command file's current diagnostics: pulled, or
// waited for until some are published.
func (s benchServer) diagnostics(ctx context.Context, b *testing.B, c *Client, uri string, ok func(int) bool) int {
	if s.pull {
		for {
			var res struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := c.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": uri}}, &res); err != nil {
				b.Fatalf("%s pull diagnostics: %v", s.name, err)
			}
			if ok(len(res.Items)) {
				return len(res.Items)
			}
		}
	}
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool { return ok(len(ds)) })
	if err != nil {
		b.Fatalf("%s diagnostics: %v", s.name, err)
	}
	return len(ds)
}

// benchEachServer runs bench on each server of benchServers, started on
// the generated library with its command file open (uri). Servers other
// than ctxls skip it with the reason otherSkip, when there is one.
func benchEachServer(b *testing.B, otherSkip string, bench func(b *testing.B, s benchServer, ctx context.Context, c *Client, lib *benchLib, uri string)) {
	lib := benchLibrary(b)
	for _, s := range benchServers(b) {
		b.Run(s.name, func(b *testing.B) {
			if s.name != "ctxls" && otherSkip != "" {
				b.Skip(otherSkip)
			}
			ctx := benchCtx(b)
			bench(b, s, ctx, s.open(ctx, b, lib), lib, stdioFileURI(lib.command))
		})
	}
}

func BenchmarkStdioCompletion(b *testing.B) {
	benchEachServer(b, "", func(b *testing.B, s benchServer, ctx context.Context, c *Client, lib *benchLib, uri string) {
		pos, want := lib.keyComplete, "t042"
		if s.name != "ctxls" {
			pos, want = lib.linkComplete, "t042.md"
		}
		// Warm up (and wait out the initial index), checking the answer.
		benchWarm(ctx, b, "completion of "+want, func() (bool, string) {
			raw, err := c.CallRaw(ctx, "textDocument/completion", stdioPos(uri, pos.Line, pos.Character))
			if err != nil {
				b.Fatalf("completion: %v", err)
			}
			items, err := stdioDecodeCompletion(raw)
			if err != nil {
				b.Fatal(err)
			}
			ok := len(items) >= benchTopicsPerDomain && slices.ContainsFunc(items, func(it stdioCompletionItem) bool { return strings.Contains(it.text(), want) })
			return ok, fmt.Sprintf("%d items", len(items))
		})
		benchRequests(ctx, b, c, "textDocument/completion", stdioPos(uri, pos.Line, pos.Character))
	})
}

func BenchmarkStdioHover(b *testing.B) {
	benchEachServer(b, "the markdown language server hovers only image and video links: no equivalent work", func(b *testing.B, s benchServer, ctx context.Context, c *Client, lib *benchLib, uri string) {
		pos := lib.keyHover
		benchWarm(ctx, b, "hover on the topic", func() (bool, string) {
			got, _ := stdioHoverText(ctx, b, c, uri, pos.Line, pos.Character)
			return strings.Contains(got, "Topic 07 042"), got
		})
		benchRequests(ctx, b, c, "textDocument/hover", stdioPos(uri, pos.Line, pos.Character))
	})
}

// benchWarm calls ready until it reports the answer the benchmark
// measures (the initial index is done), or fails with what it last got
// when ctx ends.
func benchWarm(ctx context.Context, b *testing.B, what string, ready func() (ok bool, got string)) {
	b.Helper()
	for {
		ok, got := ready()
		if ok {
			return
		}
		if ctx.Err() != nil {
			b.Fatalf("%s never came: %s", what, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// benchRequests lets the server settle, then times one request per
// iteration and reports the latencies.
func benchRequests(ctx context.Context, b *testing.B, c *Client, method string, params any) {
	b.Helper()
	benchSettle(ctx, b, c)
	var lat benchLatencies
	for b.Loop() {
		start := time.Now()
		if _, err := c.CallRaw(ctx, method, params); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	lat.report(b)
}

// BenchmarkStdioDiagnosticsAfterEdit measures the time from an edit of the
// 2,000-line command file (breaking or fixing one reference) to the
// diagnostics that reflect it: published (ctxls, including the moment it
// waits to gather a burst) or pulled (markdownls). Each edit follows a
// pause of benchEditPause, which is not timed.
func BenchmarkStdioDiagnosticsAfterEdit(b *testing.B) {
	benchEachServer(b, "", func(b *testing.B, s benchServer, ctx context.Context, c *Client, lib *benchLib, uri string) {
		pos := lib.keyEdit
		if s.name != "ctxls" {
			pos = lib.linkEdit
		}
		base := s.diagnostics(ctx, b, c, uri, func(n int) bool { return n > 0 })
		version := 1
		var lat benchLatencies
		for b.Loop() {
			version++
			broken := version%2 == 0
			rng := ClientRange{Start: pos, End: pos}
			text, want := "x", base+1
			if !broken {
				rng.End.Character++
				text, want = "", base
			}
			// Each edit follows a pause, as after a user stops typing:
			// while edits keep coming, ctxls publishes at most once per
			// DiagnosticsDelay on purpose, and that would be measured
			// instead of the work.
			b.StopTimer()
			time.Sleep(benchEditPause)
			b.StartTimer()
			var published <-chan ClientNotification
			if !s.pull {
				published = c.Expect("textDocument/publishDiagnostics", func(raw json.RawMessage) bool {
					var p ClientPublishDiagnostics
					return json.Unmarshal(raw, &p) == nil && stdioSameURI(p.URI, uri) && len(p.Diagnostics) == want
				})
			}
			start := time.Now()
			if err := c.Notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"range": rng, "text": text}},
			}); err != nil {
				b.Fatal(err)
			}
			if s.pull {
				s.diagnostics(ctx, b, c, uri, func(n int) bool { return n == want })
			} else {
				select {
				case <-published:
				case <-ctx.Done():
					b.Fatalf("no diagnostics with %d items after edit %d", want, version)
				}
			}
			lat = append(lat, time.Since(start))
		}
		lat.report(b)
		b.ReportMetric(float64(base), "diags")
	})
}

// BenchmarkStdioInitializeToDiagnostics measures a start: from sending
// initialize to the first diagnostics of the opened command file.
// markdownls reads files lazily.
//
// ctxls runs twice: cold, with its index cache emptied before every start,
// and warm, with the cache of an earlier start on the unchanged library.
func BenchmarkStdioInitializeToDiagnostics(b *testing.B) {
	lib := benchLibrary(b)
	servers := coldWarmServers(b, lib)
	for _, s := range servers {
		b.Run(s.name, func(b *testing.B) {
			ctx := benchCtx(b)
			if s.setup != nil {
				s.setup(ctx, b)
			}
			var lat benchLatencies
			var rss []float64
			for b.Loop() {
				if s.prepare != nil {
					b.StopTimer()
					s.prepare(b)
					b.StartTimer()
				}
				start := time.Now()
				c := s.open(ctx, b, lib)
				s.diagnostics(ctx, b, c, stdioFileURI(lib.command), func(n int) bool { return n > 0 })
				lat = append(lat, time.Since(start))
				b.StopTimer()
				if mb, ok := benchPeakRSS(c); ok {
					rss = append(rss, mb)
				}
				if err := c.Shutdown(ctx); err != nil {
					b.Logf("%s shutdown: %v", s.name, err)
				}
				b.StartTimer()
			}
			lat.report(b)
			if len(rss) > 0 {
				b.ReportMetric(slices.Max(rss), "peak-RSS-MB")
			}
		})
	}
}

// coldWarmServers returns the servers of benchServers with ctxls twice:
// cold, with its index cache emptied before every start, and warm, with
// the cache of an earlier start on the unchanged library lib.
func coldWarmServers(b *testing.B, lib *benchLib) []benchServer {
	stdioBinaryPath(b) // built before any start is timed
	cacheDir := os.Getenv(indexcache.EnvDir)
	if cacheDir == "" {
		b.Fatal(indexcache.EnvDir + " is not set; TestMain sets it")
	}
	emptyCache := func(b *testing.B) {
		if err := os.RemoveAll(cacheDir); err != nil {
			b.Fatal(err)
		}
	}
	var servers []benchServer
	for _, s := range benchServers(b) {
		if s.name != "ctxls" {
			servers = append(servers, s)
			continue
		}
		cold, warm := s, s
		cold.name, cold.prepare = "ctxls-cold", emptyCache
		warm.name = "ctxls-warm"
		warm.setup = func(ctx context.Context, b *testing.B) {
			// One start fills the cache.
			emptyCache(b)
			c := s.open(ctx, b, lib)
			s.diagnostics(ctx, b, c, stdioFileURI(lib.command), func(n int) bool { return n > 0 })
			// The cache is written at the end of the index, after the
			// first diagnostics.
			deadline := time.Now().Add(2 * time.Minute)
			for {
				if m, _ := filepath.Glob(filepath.Join(cacheDir, "index-*.bin")); len(m) > 0 {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("no index cache in %s after 2 minutes", cacheDir)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := c.Shutdown(ctx); err != nil {
				b.Logf("%s shutdown: %v", s.name, err)
			}
		}
		servers = append(servers, cold, warm)
	}
	return servers
}

// benchPeakRSS reads the server process's peak resident set size (Linux).
// For markdownls it is the proxy's, so it is not reported.
func benchPeakRSS(c *Client) (float64, bool) {
	if !strings.HasSuffix(c.cmd.Path, "ctxls") {
		return 0, false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err == nil {
				return float64(kb) / 1024, true
			}
		}
	}
	return 0, false
}
