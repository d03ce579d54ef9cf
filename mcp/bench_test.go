package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/library/libgen"
)

// BenchmarkTools measures every tool through the SDK's client over the
// in-memory transport, on a generated library of 10,000 topics once it is
// indexed. Besides ns/op it reports the median and 99th percentile
// latency of a call, the same of the time spent in the server's handler,
// and the size of an answer as JSON.
func BenchmarkTools(b *testing.B) {
	dir := b.TempDir()
	opts := libgen.Options{Topics: 10000}
	if _, err := libgen.Generate(dir, opts); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	srv, err := New(ctx, Options{Dir: dir, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	// The time a call spends in the server's handler, without the
	// encoding of the answer and the client's decoding of it.
	var handled []time.Duration
	srv.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			start := time.Now()
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				handled = append(handled, time.Since(start))
			}
			return res, err
		}
	})
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.srv.Connect(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	lib := srv.ws.Snapshot().Library()
	topics := lib.Topics()
	key := func(i int) string { return topics[(i*7919)%len(topics)].Key() }
	one := filepath.ToSlash(libgen.TopicPath(opts, 4242))
	cases := []struct {
		tool string
		name string
		args func(i int) map[string]any
	}{
		{"catalog", "first page", func(int) map[string]any { return map[string]any{} }},
		{"catalog", "page of 1000", func(i int) map[string]any {
			return map[string]any{"limit": 1000, "cursor": strconv.Itoa(i % 10 * 1000)}
		}},
		{"catalog", "domain", func(int) map[string]any { return map[string]any{"domain": topics[0].Domain} }},
		{"search", "two words", func(i int) map[string]any {
			return map[string]any{"query": []string{"security testing", "async patterns", "cache overview"}[i%3]}
		}},
		{"load_context", "four refs 8k budget", func(i int) map[string]any {
			return map[string]any{"refs": []string{key(i), key(i+1) + "#Security Issues", key(i + 2), key(i + 3)}, "budgetTokens": 8000}
		}},
		{"load_context", "ten refs 2k budget", func(i int) map[string]any {
			refs := make([]string, 10)
			for j := range refs {
				refs[j] = key(i*10 + j)
			}
			return map[string]any{"refs": refs, "budgetTokens": 2000}
		}},
		{"check", "one file", func(int) map[string]any { return map[string]any{"path": one} }},
		{"check", "workspace", func(int) map[string]any { return map[string]any{} }},
		{"check", "workspace page of 1000", func(int) map[string]any { return map[string]any{"limit": 1000} }},
		{"session_cost", "claude", func(int) map[string]any { return map[string]any{"agent": "claude"} }},
	}
	for _, c := range cases {
		b.Run(c.tool+"/"+c.name, func(b *testing.B) {
			call := func(i int) *sdk.CallToolResult {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args(i)})
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %+v", c.tool, err, res)
				}
				return res
			}
			// The first call of a tool builds caches.
			first, err := json.Marshal(call(0))
			if err != nil {
				b.Fatal(err)
			}
			handled = handled[:0]
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				call(i)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
			b.ReportMetric(ms(percentile(handled, 50)), "server-p50-ms")
			b.ReportMetric(ms(percentile(handled, 99)), "server-p99-ms")
			b.ReportMetric(float64(len(first))/1024, "answer-KiB")
		})
	}
}

// percentile returns the p-th percentile of ds, sorting them.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
