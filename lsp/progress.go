package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"
)

// progress reports long work to the client with $/progress. A nil
// *progress is valid and reports nothing, so callers need no checks.
type progress struct {
	s     *Server
	token protocol.ProgressToken
	mu    sync.Mutex
	ended bool
	last  uint32
}

// tokenSeq numbers the server's own progress tokens.
var tokenSeq atomic.Int64

// progress starts a work-done progress titled title. token is the
// request's workDoneToken (a protocol.ProgressToken, a string, a number or
// its raw JSON); when it is nil the server creates its own token if the
// client supports window/workDoneProgress/create, else it returns nil.
func (s *Server) progress(ctx context.Context, token any, title string) *progress {
	return s.beginProgress(ctx, token, "ctxls-", protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Percentage: ptr(uint32(0))})
}

// beginProgress starts a progress with begin, on token or else, when the
// client supports that, on a token the server creates with prefix. It
// returns nil when there is no way to report.
func (s *Server) beginProgress(ctx context.Context, token any, prefix string, begin protocol.WorkDoneProgressBegin) *progress {
	tok := progressToken(token)
	if tok == nil {
		s.mu.Lock()
		ok := s.caps.workDoneProgress
		s.mu.Unlock()
		if !ok || s.client == nil {
			return nil
		}
		tok = protocol.String(fmt.Sprintf("%s%d", prefix, tokenSeq.Add(1)))
		if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: tok}); err != nil {
			s.stderr.Debug("create a progress token", "err", err)
			return nil
		}
	}
	p := &progress{s: s, token: tok}
	p.send(ctx, begin)
	return p
}

// report sends a message and a percentage (0..100; negative for none).
func (p *progress) report(ctx context.Context, message string, percentage int) {
	if p == nil {
		return
	}
	r := protocol.WorkDoneProgressReport{Kind: "report"}
	if message != "" {
		r.Message = &message
	}
	if percentage >= 0 {
		pc := uint32(min(percentage, 100))
		p.mu.Lock()
		if pc < p.last {
			pc = p.last // percentages never go back
		}
		p.last = pc
		p.mu.Unlock()
		r.Percentage = &pc
	}
	p.send(ctx, r)
}

// end finishes the progress.
func (p *progress) end(ctx context.Context, message string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	p.ended = true
	p.mu.Unlock()
	e := protocol.WorkDoneProgressEnd{Kind: "end"}
	if message != "" {
		e.Message = &message
	}
	p.send(ctx, e)
}

func (p *progress) send(ctx context.Context, v any) {
	p.mu.Lock()
	ended := p.ended
	p.mu.Unlock()
	if _, isEnd := v.(protocol.WorkDoneProgressEnd); ended && !isEnd {
		return
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = p.s.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: p.token, Value: raw})
}

// progressToken converts the forms a work-done token arrives in.
func progressToken(v any) protocol.ProgressToken {
	switch t := v.(type) {
	case nil:
		return nil
	case protocol.ProgressToken:
		return t
	case string:
		return protocol.String(t)
	case int:
		return protocol.Integer(int32(t))
	case int32:
		return protocol.Integer(t)
	case int64:
		return protocol.Integer(int32(t))
	case float64:
		return protocol.Integer(int32(t))
	case json.RawMessage:
		if len(t) == 0 || string(t) == "null" {
			return nil
		}
		var str string
		if json.Unmarshal(t, &str) == nil {
			return protocol.String(str)
		}
		var n int32
		if json.Unmarshal(t, &n) == nil {
			return protocol.Integer(n)
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
