package lsp

import (
	"context"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/library"
)

// maxReferences bounds the locations of one answer: a topic may be
// referred to hundreds of thousands of times, and a list that long is of
// no use in an editor and costs the server and the client its size.
const maxReferences = 10000

// maxReplyBytes bounds the JSON of an answer of references or document
// links as well as their count: ten thousand locations in files of long
// paths would be megabytes. With the message's envelope the reply stays
// within 1 MiB.
const maxReplyBytes = 1<<20 - 4<<10

// locationJSONSize is the size of the JSON of a location in the file of
// URI u, with its separator: the URI (with room for the characters JSON
// escapes) and the range's keys and numbers.
func locationJSONSize(u uri.URI, r protocol.Range) int {
	n := len(`{"uri":"","range":{"start":{"line":,"character":},"end":{"line":,"character":}}},`) + len(u)
	n += 5 * strings.Count(string(u), "&") // escaped as \u0026
	for _, v := range []uint32{r.Start.Line, r.Start.Character, r.End.Line, r.End.Character} {
		n += len(strconv.FormatUint(uint64(v), 10))
	}
	return n
}

// References lists every use of the topic (or domain) under the cursor
// across the workspace, in every form. In a topic file, away from any
// reference, it lists the uses of that topic.
func (s *Server) References(ctx context.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	r, onRef, err := v.refAt(params.Position)
	if err != nil {
		return nil, err
	}
	var target library.Target
	switch {
	case onRef:
		target = v.lib.Resolve(v.file, r)
	case v.file.Topic != nil:
		target = library.Target{Kind: library.TopicTarget, Topic: v.file.Topic}
	default:
		return []protocol.Location{}, nil
	}
	var locs []library.Location
	var found int
	switch {
	case target.Kind == library.DomainTarget && target.Domain != nil:
		locs = v.lib.DomainReferences(target.Domain.Name)
		found = len(locs)
		locs = locs[:min(found, maxReferences)]
	case target.Topic != nil:
		locs, found = v.lib.FirstReferences(target.Topic.ID, maxReferences)
	default:
		return []protocol.Location{}, nil
	}
	if found > len(locs) {
		s.stderr.Debug("references: answering the first of many", "listed", len(locs), "found", found)
	}
	out := make([]protocol.Location, 0, len(locs)+1)
	if params.Context.IncludeDeclaration && target.Topic != nil {
		if loc, ok := targetLocation(v.lib, library.Target{Topic: target.Topic}, v.enc); ok {
			out = append(out, loc)
		}
	}
	// The locations come file by file: each file's URI is made once.
	var path string
	var u uri.URI
	size := len("[]")
	for _, l := range locs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if l.File.Path != path {
			path, u = l.File.Path, uriOf(l.File.Path)
		}
		loc := refLocation(v, l, u)
		if size += locationJSONSize(loc.URI, loc.Range); size > maxReplyBytes {
			s.stderr.Debug("references: the answer is cut at its size", "listed", len(out), "bytes", maxReplyBytes)
			break
		}
		out = append(out, loc)
	}
	return out, nil
}

// refLocation converts a reference elsewhere in the workspace, in the file
// whose URI is u. The view's own document is converted against the text
// the editor has.
func refLocation(v *view, l library.Location, u uri.URI) protocol.Location {
	if l.File.Path == v.path && l.File.Doc != nil && l.File.Doc.Len() == v.doc.Len() {
		return protocol.Location{URI: u, Range: v.rng(l.Ref.Span)}
	}
	return locationIn(u, l.File, l.Ref.Span, v.enc)
}
