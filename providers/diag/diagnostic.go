package diag

import (
	"fmt"

	"github.com/ctxls/ctxls/providers/document"
)

// Diagnostic is a problem at a place in one file, as every checker of
// ctxls reports it: the library's, the agent files', the memory files' and
// their imports'. The front ends convert it once each: lsp to the
// protocol, ops to the JSON of the CLI and MCP.
type Diagnostic struct {
	// Path is the file's absolute path.
	Path string
	// Span is where the problem is, in bytes of the file's text.
	Span document.Span
	// Severity is the code's default severity from the rules table,
	// unless the checker knows the case to be milder.
	Severity Severity
	// Code is the rule's code.
	Code string
	// Message says what is wrong.
	Message string
	// Tokenizer names the tokenizer of the token counts the message
	// gives; empty when it gives none.
	Tokenizer string
	// Related are other places the message speaks of.
	Related []Related
	// Fixes are the fixes the rule offers, the preferred one first.
	// Whether one may be applied unattended is the rule's FixSafety.
	Fixes []Fix
	// LeftOut is, for a DiagnosticsLeftOut diagnostic, how many
	// diagnostics of the file it stands for.
	LeftOut int
}

// New returns the diagnostic of code at span of the file at path, with
// the code's default severity.
func New(path string, span document.Span, code, format string, args ...any) Diagnostic {
	return Diagnostic{Path: path, Span: span, Severity: Default(code), Code: code, Message: fmt.Sprintf(format, args...)}
}

// Related is another place a diagnostic's message speaks of.
type Related struct {
	// Path is the file's absolute path.
	Path string
	// Span is the place, in bytes of that file's text.
	Span document.Span
	// Message says what is there.
	Message string
}

// Fix is a titled set of edits of the diagnostic's file.
type Fix struct {
	// Title says what the fix does.
	Title string
	// Preferred marks the fix an editor may apply without asking.
	Preferred bool
	// Edits change the file's text; they do not overlap.
	Edits []Edit
}

// Edit replaces a span of a file's text.
type Edit struct {
	// Span is the replaced bytes of the file's text.
	Span document.Span
	// NewText replaces them.
	NewText string
}

// Preferred returns the preferred fix of d, if it has one.
func (d *Diagnostic) Preferred() (Fix, bool) {
	for _, f := range d.Fixes {
		if f.Preferred {
			return f, true
		}
	}
	return Fix{}, false
}
