package workspace

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// onceHandler passes each distinct warning (message and attributes) once
// and everything below warning level as it comes.
type onceHandler struct {
	slog.Handler
	seen  *seenSet
	attrs string // attributes added by WithAttrs, part of the key
}

type seenSet struct {
	mu sync.Mutex
	m  map[string]bool
}

// maxSeen bounds the memory of warnings already given.
const maxSeen = 10000

func (h *onceHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.Handler.Handle(ctx, r)
	}
	var key strings.Builder
	key.WriteString(h.attrs)
	// Counts in the message and the attributes below vary between two
	// reports of the same condition (the watch limit).
	key.WriteString(strings.Map(func(r rune) rune {
		if '0' <= r && r <= '9' {
			return -1
		}
		return r
	}, r.Message))
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "err", "watched", "poll", "interval":
		default:
			key.WriteString("\x00" + a.String())
		}
		return true
	})
	h.seen.mu.Lock()
	dup := h.seen.m[key.String()]
	if !dup && len(h.seen.m) < maxSeen {
		h.seen.m[key.String()] = true
	}
	h.seen.mu.Unlock()
	if dup {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h *onceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		b.WriteString(a.String() + "\x00")
	}
	return &onceHandler{Handler: h.Handler.WithAttrs(as), seen: h.seen, attrs: b.String()}
}

func (h *onceHandler) WithGroup(name string) slog.Handler {
	return &onceHandler{Handler: h.Handler.WithGroup(name), seen: h.seen, attrs: h.attrs + name + "."}
}
