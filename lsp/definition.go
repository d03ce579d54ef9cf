package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// Definition goes from a reference to the topic file, or to the section's
// heading when the reference names a section, or to a domain's index.
func (s *Server) Definition(ctx context.Context, params *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	if loc, ok := s.importDefinition(ctx, v, params.Position); ok {
		if loc == nil {
			return nil, nil
		}
		return loc, nil
	}
	r, ok, err := v.refAt(params.Position)
	if err != nil {
		return nil, err
	}
	if ok {
		if loc, ok := targetLocation(v.lib, v.lib.Resolve(v.file, r), v.enc); ok {
			return &loc, nil
		}
	}
	// A file an agent file names that is no topic of the library.
	if ref, ok := s.fileRefAt(ctx, v, params.Position); ok {
		return &protocol.Location{URI: uriOf(ref.Target)}, nil
	}
	return nil, nil
}

// targetLocation is where a resolved reference leads.
func targetLocation(lib *library.Snapshot, t library.Target, enc document.Encoding) (protocol.Location, bool) {
	topic := t.Topic
	if topic == nil {
		return protocol.Location{}, false
	}
	f, ok := lib.File(topic.Path)
	if !ok || f.Doc == nil {
		return protocol.Location{URI: uriOf(topic.Path)}, true
	}
	if t.Section != nil {
		return location(f, t.Section.Heading, enc), true
	}
	return location(f, document.Span{}, enc), true
}
