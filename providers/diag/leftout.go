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

// Cap bounds ds, the diagnostics of one file, to limit, the one bound of
// every front end. of returns the Diagnostic an element of ds holds;
// leftOut makes the element that stands for n diagnostics not reported.
//
// It works in place: it reorders ds and returns a prefix of it, so that a
// file of a million problems is not held twice, and the caller must own
// ds. The DiagnosticsLeftOut diagnostics of ds, which stand for those
// their checker left out, are taken out. Of the others it keeps all when
// they are at most limit, else the most severe limit of them in order of
// position; when any are left out, now or before, the result ends with
// one element that says how many. A limit of 0 or less bounds nothing:
// ds is returned as it is.
func Cap[T any](ds []T, limit int, of func(*T) *Diagnostic, leftOut func(n int) T) []T {
	if limit <= 0 {
		return ds
	}
	before, n := 0, 0
	for i := range ds {
		if d := of(&ds[i]); d.Code == DiagnosticsLeftOut {
			before += d.LeftOut
		} else {
			n++
		}
	}
	if n == len(ds) && n <= limit {
		return ds
	}
	kept := slices.DeleteFunc(ds, func(e T) bool { return of(&e).Code == DiagnosticsLeftOut })
	if n > limit {
		// Severities count up from the most severe, as in LSP; the sort is
		// stable, so that diagnostics at one place keep their order.
		slices.SortStableFunc(kept, func(a, b T) int {
			da, db := of(&a), of(&b)
			if da.Severity != db.Severity {
				return int(da.Severity) - int(db.Severity)
			}
			return da.Span.Start - db.Span.Start
		})
		kept = kept[:limit]
		slices.SortStableFunc(kept, func(a, b T) int { return of(&a).Span.Start - of(&b).Span.Start })
	}
	if out := before + n - len(kept); out > 0 {
		// There is room: at least one element was taken out or cut.
		kept = append(kept, leftOut(out))
	}
	return kept
}
