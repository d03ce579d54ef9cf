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
	// The message is queued, not written: a warning logged on the read loop
	// must not wait for the client to read, or a client that is writing to
	// the server at that moment waits for the read loop in turn. A message
	// that finds the queue full has reached the server's own log only.
	select {
	case h.s.logq <- &protocol.LogMessageParams{Type: typ, Message: b.String()}:
	default:
	}
	return nil
}

// logQueue is how many window/logMessage notifications may wait for the
// client; more are dropped from the client's view (not from stderr).
const logQueue = 256

// sendLogs writes queued log messages to the client until ctx is done.
func (s *Server) sendLogs(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-s.logq:
			_ = s.client.LogMessage(context.WithoutCancel(ctx), m)
		}
	}
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &clientLogHandler{next: h.next.WithAttrs(attrs), s: h.s, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	return &clientLogHandler{next: h.next.WithGroup(name), s: h.s, attrs: h.attrs}
}
