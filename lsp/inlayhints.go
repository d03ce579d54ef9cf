package lsp

import (
	"context"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/memo"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/refcost"
)

// maxInlayHints bounds the hints of one reply: an editor asks for the
// range it shows, and a range of a reference-dense document may hold
// hundreds of thousands.
const maxInlayHints = 2000

// inlayDocs bounds the documents whose marks an inlayCache keeps; past it
// the cache starts again empty. Only open documents are kept, each until
// it changes or closes.
const inlayDocs = 16

// InlayHint shows the token cost after every resolving reference in range.
// The references of an open document are priced once per version of the
// document and of the library, and each request converts only the marks
// in its range.
func (s *Server) InlayHint(ctx context.Context, params *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	path, err := pathOf(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.operations(ctx)
	if err != nil {
		return nil, err
	}
	compute := func(ctx context.Context) (*document.Doc, []refcost.Mark, error) {
		ctx, release, err := o.Heavy(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer release()
		v, err := s.view(ctx, params.TextDocument.URI)
		if err != nil {
			return nil, nil, err
		}
		marks, err := refcost.Marks(ctx, v.lib, v.file)
		return v.doc, marks, err
	}
	snap := ws.Snapshot()
	lib := snap.Library()
	_, version, open := snap.Overlay(path)
	var doc *document.Doc
	var marks []refcost.Mark
	if open {
		doc, marks, err = s.inlays.get(ctx, path, inlayKey{version: version, lib: lib, libVersion: lib.Version()}, compute)
	} else {
		// A closed document is the library's or the disk's, which change
		// without a version the client knows: it is priced each time.
		doc, marks, err = compute(ctx)
	}
	if err != nil {
		return nil, err
	}
	enc := s.encoding()
	start, err1 := offsetOf(doc, params.Range.Start, enc)
	end, err2 := offsetOf(doc, params.Range.End, enc)
	if err1 != nil || err2 != nil {
		start, end = 0, len(doc.Text)
	}
	out := []protocol.InlayHint{}
	pad := true
	// The label stays short; hovering it names the tokenizer.
	tip := protocol.String(present.CountedIn(lib.Counter().Name()))
	for i := sort.Search(len(marks), func(i int) bool { return int(marks[i].End) >= start }); i < len(marks) && int(marks[i].End) <= end && len(out) < maxInlayHints; i++ {
		m := marks[i]
		label := present.Tokens(int(m.Tokens))
		if !m.Counted {
			label += " (already counted)"
		}
		at := int(m.End)
		out = append(out, protocol.InlayHint{
			Position:    toRange(doc, document.Span{Start: at, End: at}, enc).Start,
			Label:       protocol.String(label),
			Kind:        protocol.InlayHintKindType,
			Tooltip:     tip,
			PaddingLeft: &pad,
		})
	}
	return out, nil
}

// inlayCache keeps the marks of open documents, each for one version of
// the document and of the library, and shares each computation among the
// requests that want it at once.
type inlayCache struct {
	calls *memo.Cache[inlayGen, inlayDoc, inlayMarks]
}

func newInlayCache() *inlayCache {
	return &inlayCache{calls: memo.New[inlayGen, inlayDoc, inlayMarks](inlayDocs, nil)}
}

// inlayKey is what the marks of an open document depend on.
type inlayKey struct {
	version    int32
	lib        *library.Snapshot
	libVersion uint64
}

// inlayGen is a library at one version; the marks of every document
// change with it.
type inlayGen struct {
	lib     *library.Snapshot
	version uint64
}

// inlayDoc is a document at one version.
type inlayDoc struct {
	path    string
	version int32
}

// inlayMarks are the marks of a document and the text they are in.
type inlayMarks struct {
	doc   *document.Doc
	marks []refcost.Mark
}

// get returns the marks of the document at path for key, running compute
// when no request has, and waiting for the request that runs it
// otherwise. A computation stopped by its caller's ctx is started again by
// the next caller.
func (c *inlayCache) get(ctx context.Context, path string, key inlayKey, compute func(context.Context) (*document.Doc, []refcost.Mark, error)) (*document.Doc, []refcost.Mark, error) {
	m, err := c.calls.Do(ctx, inlayGen{key.lib, key.libVersion}, inlayDoc{path, key.version}, func(ctx context.Context) (inlayMarks, error) {
		doc, marks, err := compute(ctx)
		return inlayMarks{doc, marks}, err
	})
	return m.doc, m.marks, err
}

// drop forgets the marks of the document at path, which changed or
// closed.
func (c *inlayCache) drop(path string) {
	c.calls.Forget(func(d inlayDoc) bool { return d.path == path })
}
