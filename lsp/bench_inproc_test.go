package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/providers/library/libtest"
)

// inprocSyntheticCommand is the command file of inprocSynthetic.
const inprocSyntheticCommand = "commands/big.md"

// inprocSynthetic writes a library of domains×perDomain topics, each with
// frontmatter and three sections, and a command (inprocSyntheticCommand)
// of about lines lines that refers to topics in every form. It returns the
// directory and the command's text.
func inprocSynthetic(tb testing.TB, domains, perDomain, lines int) (dir, command string) {
	tb.Helper()
	files := make(map[string]string, domains*perDomain+1)
	for d := range domains {
		dom := fmt.Sprintf("dom%02d", d)
		for i := range perDomain {
			name := fmt.Sprintf("topic_%04d", i)
			strategy := "onDemand"
			if i == 0 {
				strategy = "always"
			}
			body := fmt.Sprintf(`---
id: %s/%s
domain: %s
title: Topic %d of %s
type: pattern
estimatedTokens: 120
loadingStrategy: %s
tags: [%s, synthetic]
crossDomainTriggers: [dom00/topic_0001]
sections:
  - name: Overview
    estimatedTokens: 40
---

# Topic %d of %s

A synthetic topic used to measure the language server on a large library.

## Overview

Explains what the topic covers and when an agent should load it, in a few lines of prose.

## Details

Refers to %s:topic_0001 and to the Overview section.

## Examples

`+"```python\nprint(%d)\n```\n", dom, name, dom, i, dom, strategy, dom, i, dom, dom, i)
			files["context/"+dom+"/"+name+".md"] = body
		}
	}
	var b strings.Builder
	b.WriteString("---\nname: big\ncontext: [dom00, dom01/topic_0002]\n---\n\n# /big\n\n")
	for i := 0; b.Len() < lines*60 && strings.Count(b.String(), "\n") < lines; i++ {
		dom := fmt.Sprintf("dom%02d", i%domains)
		topic := fmt.Sprintf("topic_%04d", i%perDomain)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "- Load %s:%s before the step.\n", dom, topic)
		case 1:
			fmt.Fprintf(&b, "- Then %s:%s#Overview for the summary.\n", dom, topic)
		case 2:
			fmt.Fprintf(&b, "- Call getReference(%q, %q) when needed.\n", dom, topic)
		default:
			b.WriteString("Plain prose between references, with nothing to resolve in it at all.\n")
		}
	}
	files[inprocSyntheticCommand] = b.String()
	return libtest.WriteTree(tb, files), b.String()
}

// reportLatency reports p50 and p99 of samples.
func reportLatency(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	q := func(p float64) float64 {
		return float64(samples[min(len(samples)-1, int(p*float64(len(samples))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkInprocLargeLibrary measures completion, hover and diagnostics
// after an edit on a 10,000-topic library and a 2,000-line command,
// through the full JSON-RPC stack over a pipe.
func BenchmarkInprocLargeLibrary(b *testing.B) {
	dir, text := inprocSynthetic(b, 50, 200, 2000)
	c := inprocStart(b, dir, inprocOptions{diagDelay: 30 * time.Millisecond})
	c.mustCall("ctxls/commands", map[string]any{}, nil) // waits for the index
	u := c.open(inprocSyntheticCommand, text)
	c.waitQuiet(500 * time.Millisecond) // the workspace's diagnostics are out
	line := strings.Count(text[:strings.Index(text, "- Load dom08:")], "\n")
	pos := map[string]any{"line": line, "character": len("- Load dom08:topic_")}

	for _, req := range []struct{ method, want string }{
		{"textDocument/completion", `"topic_0199"`},
		{"textDocument/hover", "Topic 8 of dom08"},
	} {
		b.Run(strings.TrimPrefix(req.method, "textDocument/"), func(b *testing.B) {
			var samples []time.Duration
			for b.Loop() {
				start := time.Now()
				var raw json.RawMessage
				c.mustCall(req.method, map[string]any{"textDocument": map[string]any{"uri": u}, "position": pos}, &raw)
				samples = append(samples, time.Since(start))
				if !strings.Contains(string(raw), req.want) {
					b.Fatalf("%s: %.300s", req.method, raw)
				}
			}
			reportLatency(b, samples)
		})
	}
	b.Run("diagnostics-after-edit", func(b *testing.B) {
		var samples []time.Duration
		version := 1
		for b.Loop() {
			version++
			// Break a reference, then wait for its diagnostic.
			edit := fmt.Sprintf("x%d", version)
			// A pause as between keystrokes: publication is rate-limited to
			// one per DiagnosticsDelay while changes come faster than that.
			time.Sleep(35 * time.Millisecond)
			since := c.noteCount()
			start := time.Now()
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": version},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": edit}}})
			want := int32(version)
			c.waitDiagnosticsSince(since, u, diagVersion(want))
			samples = append(samples, time.Since(start))
		}
		reportLatency(b, samples)
	})
}
