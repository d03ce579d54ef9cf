package lsp

import (
	"context"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"
)

// clientLogHandler writes to the server's own log and also sends warnings
// and errors to the client as window/logMessage, so that the user sees
// problems with their workspace in the editor's output.
type clientLogHandler struct {
	next  slog.Handler
	s     *Server
	attrs []slog.Attr
}

func (h *clientLogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || h.next.Enabled(ctx, l)
}

func (h *clientLogHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.next.Enabled(ctx, r.Level) {
		_ = h.next.Handle(ctx, r)
	}
	if r.Level < slog.LevelWarn || h.s.client == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		b.WriteString(" ")
		b.WriteString(a.Key)
		b.WriteString("=")
		b.WriteString(a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	typ := protocol.MessageTypeWarning
	if r.Level >= slog.LevelError {
		typ = protocol.MessageTypeError
	}
	// Notify only writes; it never waits for the client.
	_ = h.s.client.LogMessage(context.WithoutCancel(ctx), &protocol.LogMessageParams{Type: typ, Message: b.String()})
	return nil
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientLogHandler{next: h.next.WithAttrs(attrs), s: h.s, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	return &clientLogHandler{next: h.next.WithGroup(name), s: h.s, attrs: h.attrs}
}
