package diag

import "fmt"

// LeftOutMessage is the message of the DiagnosticsLeftOut diagnostic of a
// file whose problems past limit, leftOut of them, are not reported.
func LeftOutMessage(leftOut, limit int) string {
	return fmt.Sprintf("%d more problems of this file are not shown: limits.fileDiagnostics reports at most %d per file", leftOut, limit)
}
