package main

import (
	"context"

	"github.com/ctxls/ctxls/providers/context/agentfiles"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/memory"
)

// memoryRecords returns the diagnostics of Claude Code memory files and
// rules, and of the files their imports load, which need not be agent
// files themselves.
func memoryRecords(ctx context.Context, lib *library.Library, agents *agentfiles.Set) []checkRecord {
	var out []checkRecord
	for p, ds := range memory.Check(ctx, agents, lib.Config(), lib.Counter(), nil).Diagnostics {
		f, ok := memory.FileOf(agents, p, nil)
		if !ok {
			continue
		}
		for _, d := range ds {
			r := checkRecord{File: rel(lib.Dir(), p), Severity: d.Severity.String(), Code: d.Code, Message: d.Message}
			r.at(f.Lines, d.Span)
			r.fix = agentFix(f, d)
			out = append(out, r)
		}
	}
	return out
}
