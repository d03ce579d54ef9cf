// Package present renders what an editor shows of a context library and
// ranks topics against what the user types: token counts, the hover text
// of topics and domains with the summary taken from a topic's body,
// completion items, the names of workspace symbols and a document's
// outline with the cost of each section. The text is markdown; the lsp
// package only wraps it in protocol types.
package present

import (
	"strings"

	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// Tokens renders a token count: "1,234 tok".
func Tokens(n int) string { return numfmt.Thousands(n) + " tok" }

// TokensIn renders a token count with the tokenizer that counted it:
// "1,234 tok (o200k_base)".
func TokensIn(n int, tokenizer string) string { return Tokens(n) + " (" + tokenizer + ")" }

// CountedIn is the line that ends a hover: what its figures are counted in.
func CountedIn(tokenizer string) string { return "Tokens counted in " + tokenizer + "." }

// Title returns a topic's title, or its key when it has none.
func Title(t *library.Topic) string {
	if t.Meta.Title != "" {
		return t.Meta.Title
	}
	return t.Key()
}

// Key returns how a topic is referred to: "domain:name", or its id for a
// file directly in a context root.
func Key(t *library.Topic) string {
	if t.Domain == "" {
		return t.ID
	}
	return t.Key()
}

// RelPath shows a path relative to the library's directory, or as it is
// when it lies outside.
func RelPath(lib *library.Snapshot, p string) string {
	if r, ok := fsguard.Rel(lib.Dir(), p); ok {
		return r
	}
	return p
}

// escaper escapes markdown markup.
var escaper = strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;")

// escape escapes the characters that would turn plain text into markdown
// markup.
func escape(s string) string { return escaper.Replace(s) }
