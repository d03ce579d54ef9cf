package lsp

import (
	"context"
	"errors"
	"sort"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/context/cost"
	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/present"
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
	compute := func(ctx context.Context) (*document.Doc, []cost.Mark, error) {
		ctx, release, err := o.Heavy(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer release()
		v, err := s.view(ctx, params.TextDocument.URI)
		if err != nil {
			return nil, nil, err
		}
		marks, err := cost.Marks(ctx, v.lib, v.file)
		return v.doc, marks, err
	}
	lib := ws.Library()
	_, version, open := ws.Overlay(path)
	var doc *document.Doc
	var marks []cost.Mark
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
			PaddingLeft: &pad,
		})
	}
	return out, nil
}

// inlayCache keeps the marks of open documents, each for one version of
// the document and of the library, and shares each computation among the
// requests that want it at once. Its zero value is ready for use.
type inlayCache struct {
	mu   sync.Mutex
	docs map[string]*inlayCall
}

// inlayKey is what the marks of an open document depend on.
type inlayKey struct {
	version    int32
	lib        *library.Library
	libVersion uint64
}

// inlayCall is one computation of the marks of a document, done when done
// is closed.
type inlayCall struct {
	key   inlayKey
	done  chan struct{}
	doc   *document.Doc
	marks []cost.Mark
	err   error
}

// get returns the marks of the document at path for key, running compute
// when no request has, and waiting for the request that runs it
// otherwise. A computation stopped by its caller's ctx is started again by
// the next caller.
func (c *inlayCache) get(ctx context.Context, path string, key inlayKey, compute func(context.Context) (*document.Doc, []cost.Mark, error)) (*document.Doc, []cost.Mark, error) {
	for {
		call, mine := c.call(path, key)
		if mine {
			call.doc, call.marks, call.err = compute(ctx)
			if call.err != nil {
				c.forget(path, call)
			}
			close(call.done)
			return call.doc, call.marks, call.err
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-call.done:
		}
		if call.err == nil {
			return call.doc, call.marks, nil
		}
		if !errors.Is(call.err, context.Canceled) && !errors.Is(call.err, context.DeadlineExceeded) {
			return nil, nil, call.err
		}
	}
}

// call returns the computation of the document at path for key, and
// whether the caller is to run it.
func (c *inlayCache) call(path string, key inlayKey) (*inlayCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if call, ok := c.docs[path]; ok && call.key == key {
		return call, false
	}
	if c.docs == nil || len(c.docs) >= inlayDocs {
		c.docs = map[string]*inlayCall{}
	}
	call := &inlayCall{key: key, done: make(chan struct{})}
	c.docs[path] = call
	return call, true
}

// forget drops a failed computation so that the next caller runs its own.
func (c *inlayCache) forget(path string, call *inlayCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.docs[path] == call {
		delete(c.docs, path)
	}
}

// drop forgets the marks of the document at path, which changed or
// closed.
func (c *inlayCache) drop(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.docs, path)
}
