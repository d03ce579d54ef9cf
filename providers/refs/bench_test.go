package refs

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/ctxls/ctxls/providers/document"
)

// benchDoc builds a markdown document of about size bytes that mixes the
// text a context library holds: prose, headings, lists, tables, links,
// inline code, fenced code with calls, and references of every form.
func benchDoc(size int) []byte {
	var b strings.Builder
	b.WriteString("---\nid: python/bench\ncontext: [python, security/security_guidelines]\ncrossDomainTriggers: [security/owasp]\n---\n\n# Benchmark\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d: Patterns and Practices\n\n", i)
		b.WriteString("Load the domain index first, then the topics the detection step recommends. " +
			"Every file costs tokens: read metadata before content, and stop at 4-6 files per invocation. " +
			"Note: time 10:30, version 3.11, e-mail dev@example.com and https://docs.example.com/guide?x=1.\n\n")
		fmt.Fprintf(&b, "- See python:fastapi_patterns#Security Issues for details and security:owasp_python.\n")
		b.WriteString("- Read `../../context/python/common_issues.md` and [the protocol](../loading_protocol.md#step-2).\n")
		b.WriteString("- Then ../../context/security/security_guidelines.md if auth code is present 😀 中文说明。\n\n")
		b.WriteString("| If you see... | Load file... |\n|---|---|\n| `from fastapi import` | `fastapi_patterns.md` |\n| `@app.route` | python:flask_patterns |\n\n")
		b.WriteString("```python\ndef handler(request):\n    data = parse(request.body)  # note: not a ref python:x\n    return respond(data, status=200)\n\nref = ContextProvider.getReference(\"python\", \"fastapi_patterns\")\nfiles = ContextProvider.getConditionalContext(\"python\", detection)\n```\n\n")
		b.WriteString("1. Check cache: `executionContext.getCachedContext(state, \"commands\", \"implementation_strategies\")`\n" +
			"2. Otherwise load it and record it with recordContextLoad(state, \"commands\", \"x\", content).\n\n")
	}
	return []byte(b.String())
}

func BenchmarkScan(b *testing.B) {
	text := benchDoc(4 << 20)
	d := document.Parse("bench.md", text)
	opts := testOpts()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = len(scan(d, opts))
	}
	b.ReportMetric(float64(n), "refs")
}

// BenchmarkScanList measures the scan the library does, into the compact
// form it keeps; retained-B/ref is the size of the kept list per reference.
func BenchmarkScanList(b *testing.B) {
	text := benchDoc(4 << 20)
	d := document.Parse("bench.md", text)
	opts := testOpts()
	b.SetBytes(int64(len(text)))
	var l List
	for b.Loop() {
		l = ScanList(d, opts)
	}
	size := cap(l.data) + cap(l.blocks)*int(unsafe.Sizeof(block{})) + cap(l.names)*int(unsafe.Sizeof("")) +
		cap(l.tags)*int(unsafe.Sizeof("")) + cap(l.odd)*int(unsafe.Sizeof(Ref{}))
	b.ReportMetric(float64(l.Len()), "refs")
	b.ReportMetric(float64(size)/float64(l.Len()), "retained-B/ref")
}

// BenchmarkScanAdversarial measures inputs built to defeat the scanner's
// shortcuts: one long line repeating a pattern. Throughput must stay of
// the same order as for ordinary text.
func BenchmarkScanAdversarial(b *testing.B) {
	patterns := map[string]string{
		"md-tokens":     "a.md",
		"keys":          "python:a#B ",
		"calls":         "getReference(",
		"links":         "](",
		"refdefs":       "]:",
		"comments":      "<!--",
		"backticks":     "`` ` ",
		"linktext-keys": "[python:a ",
		"urls":          "http://",
	}
	opts := testOpts()
	for name, p := range patterns {
		text := []byte(strings.Repeat(p, (1<<20)/len(p)))
		d := document.Parse("adv.md", text)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				scan(d, opts)
			}
		})
	}
}

func BenchmarkCompletionAt(b *testing.B) {
	text := benchDoc(64 << 10)
	d := document.Parse("bench.md", text)
	off := strings.LastIndex(string(text), "fastapi_patterns#") + 3
	opts := testOpts()
	for b.Loop() {
		CompletionAt(d, off, opts)
	}
}
