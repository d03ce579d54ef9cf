package diag

import (
	"fmt"
	"slices"
)

// LeftOutMessage is the message of the DiagnosticsLeftOut diagnostic of a
// file whose problems past limit, leftOut of them, are not reported.
func LeftOutMessage(leftOut, limit int) string {
	return fmt.Sprintf("%d more problems of this file are not shown: limits.fileDiagnostics reports at most %d per file", leftOut, limit)
}

// LeftOut returns the diagnostic of the file at path that stands for
// leftOut diagnostics past limit, which are not reported.
func LeftOut(path string, leftOut, limit int) Diagnostic {
	return Diagnostic{Path: path, Severity: Default(DiagnosticsLeftOut), Code: DiagnosticsLeftOut,
		Message: LeftOutMessage(leftOut, limit), LeftOut: leftOut}
}

// Cap returns ds, the diagnostics of the file at path, when they are at
// most limit, not counting one that stands for those left out already;
// otherwise the most severe limit of them, in order of position within a
// severity, and one that says how many of them and of those left out
// before are not reported. It does not change ds.
func Cap(path string, ds []Diagnostic, limit int) []Diagnostic {
	leftOut, n := 0, 0
	for _, d := range ds {
		if d.Code == DiagnosticsLeftOut {
			leftOut += d.LeftOut
		} else {
			n++
		}
	}
	if limit <= 0 || n <= limit {
		return ds
	}
	kept := slices.DeleteFunc(slices.Clone(ds), func(d Diagnostic) bool { return d.Code == DiagnosticsLeftOut })
	// Severities count up from the most severe, as in LSP.
	slices.SortStableFunc(kept, func(a, b Diagnostic) int { return int(a.Severity) - int(b.Severity) })
	kept = kept[:limit]
	slices.SortStableFunc(kept, func(a, b Diagnostic) int { return a.Span.Start - b.Span.Start })
	return append(kept, LeftOut(path, leftOut+n-limit, limit))
}
