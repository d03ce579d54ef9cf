package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/diag"
)

// codeLink is the link an editor shows on a diagnostic's code: the rule's
// page, or nothing for a code the rules table lacks.
func codeLink(code string) protocol.CodeDescription {
	href := diag.PageURL(code)
	if href == "" {
		return protocol.CodeDescription{}
	}
	return protocol.CodeDescription{Href: uri.URI(href)}
}
