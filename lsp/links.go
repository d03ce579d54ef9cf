package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/refs"
)

// maxDocumentLinks bounds the links of one answer, which has no range: a
// document may make hundreds of thousands of references.
const maxDocumentLinks = 5000

// DocumentLink makes every resolving reference a link to its topic file
// (to the section's line when one is named), the first maxDocumentLinks
// of them.
func (s *Server) DocumentLink(ctx context.Context, params *protocol.DocumentLinkParams) ([]protocol.DocumentLink, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := append([]protocol.DocumentLink{}, s.importLinks(ctx, v)...)
	size := len("[]")
	for _, l := range out {
		size += jsonSize(l)
	}
	for _, r := range v.file.Refs.All() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(out) >= maxDocumentLinks {
			break
		}
		t := v.lib.ResolveBrief(v.file, r)
		if t.Topic == nil || t.Kind == library.NotAReference {
			continue
		}
		target := uriOf(t.Topic.Path)
		tip := fmt.Sprintf("%s · %s", present.Title(t.Topic), present.TokensIn(t.Topic.Tokens, v.lib.Counter().Name()))
		if t.Section != nil {
			line := 1
			if f, ok := v.lib.File(t.Topic.Path); ok && f.Doc != nil {
				line = f.Doc.Lines.LineOf(t.Section.Heading.Start) + 1
			}
			target = uri.URI(fmt.Sprintf("%s#L%d", target, line))
			tip = fmt.Sprintf("%s › %s · %s", present.Title(t.Topic), t.Section.Name, present.TokensIn(t.Section.Tokens, v.lib.Counter().Name()))
		}
		l := protocol.DocumentLink{Range: v.rng(linkSpan(r)), Target: &target, Tooltip: &tip}
		if size += jsonSize(l); size > maxReplyBytes {
			break
		}
		out = append(out, l)
	}
	// Files an agent file names that are no topics: a link the library
	// resolved already covers its span.
	for _, l := range s.fileRefLinks(ctx, v) {
		if len(out) >= maxDocumentLinks {
			break
		}
		if slices.ContainsFunc(out, func(o protocol.DocumentLink) bool { return overlaps(o.Range, l.Range) }) {
			continue
		}
		if size += jsonSize(l); size > maxReplyBytes {
			break
		}
		out = append(out, l)
	}
	return out, nil
}

// overlaps reports whether two ranges share a position.
func overlaps(a, b protocol.Range) bool {
	before := func(p, q protocol.Position) bool {
		return p.Line < q.Line || (p.Line == q.Line && p.Character < q.Character)
	}
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

// jsonSize is the size of v's JSON with a separator after it.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b) + 1
}

// linkSpan is the part of a reference that is clickable: the whole key
// form, the path of a path form, the topic string of a call.
func linkSpan(r refs.Ref) document.Span {
	switch {
	case r.Form == refs.PathForm && r.PathSpan.Len() > 0:
		return r.PathSpan
	case r.Form == refs.CallForm && r.TopicSpan.Len() > 0:
		return r.TopicSpan
	case r.Form == refs.DomainForm && r.DomainSpan.Len() > 0:
		return r.DomainSpan
	}
	return r.Span
}
