package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// sentinel is a well-formed request framed after the fuzzed bytes: the
// framer must find it again after any garbage that declares no frame.
const sentinel = `{"jsonrpc":"2.0","id":424242,"method":"sentinel/ping","params":{}}`

// FuzzStreamFrames feeds arbitrary bytes, then one well-formed frame, to
// the JSON-RPC framer. It must end (at the end of the input), hand on only
// bodies the connection can dispatch, answer what it drops with frames a
// client can read, and, when the garbage declares no Content-Length of its
// own, still read the well-formed frame that follows it.
func FuzzStreamFrames(f *testing.F) {
	for _, s := range []string{
		"",
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}\r\n",
		"Content-Length: 5\r\n\r\n[1,2]",
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}",
		"Content-Length: 9\r\nContent-Type: application/vscode-jsonrpc\r\n\r\nnot json!",
		"garbage line\r\n{\"half\": \"a body\"}\r\nX-Header: 1\r\n",
		"content-length: -1\r\n\r\n",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 3\n\n{}}\n",
		"Content-Length: 30\r\n\r\n{\"id\":\"a\",\"method\":7,\"jsonrpc\":\"2.0\"}",
		strings.Repeat("x", 70<<10) + "\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, garbage []byte) {
		in := append(append([]byte(nil), garbage...), "\r\n"+frame(sentinel)...)
		var out bytes.Buffer
		s := newStream(pipe{Reader: bytes.NewReader(in), Writer: &out}, slog.New(slog.DiscardHandler))
		ctx := context.Background()
		total, found := int64(0), false
		for range len(in) + 1 {
			body, n, err := s.ReadFrame(ctx)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("ReadFrame: %v", err)
				}
				break
			}
			total += n
			if total > int64(len(in)) {
				t.Fatalf("consumed %d bytes of %d", total, len(in))
			}
			if err := checkFrame(body); err != nil {
				t.Fatalf("handed on a body the connection cannot dispatch (%v): %q", err, body)
			}
			found = found || bytes.Contains(body, []byte(`"sentinel/ping"`))
		}
		if !found && !bytes.Contains(bytes.ToLower(garbage), []byte("content-length")) {
			t.Fatalf("the well-formed frame after %q was lost", garbage)
		}
		// Every reply to a dropped message is a frame holding a JSON-RPC
		// error response with a usable id.
		replies := jsonrpc2.NewHeaderStream(pipe{Reader: &out, Writer: io.Discard})
		for {
			msg, _, err := replies.Read(ctx)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("a reply is not a readable frame: %v (%q)", err, out.String())
				}
				break
			}
			resp, ok := msg.(*jsonrpc2.Response)
			if !ok || resp.Err() == nil {
				t.Fatalf("reply %#v is not an error response", msg)
			}
			var raw struct {
				ID json.RawMessage `json:"id"`
			}
			b, _ := json.Marshal(resp)
			if json.Unmarshal(b, &raw) != nil {
				t.Fatalf("reply id is not JSON: %s", b)
			}
		}
	})
}

// TestStreamDeclaredLengthCostsNothing declares a frame just under
// maxFrame and sends a few bytes of it: the framer fails at the end of the
// input without having allocated what the header declared.
func TestStreamDeclaredLengthCostsNothing(t *testing.T) {
	t.Parallel()
	in := "Content-Length: 268000000\r\n\r\n{\"jsonrpc\":"
	s := newStream(pipe{Reader: strings.NewReader(in), Writer: io.Discard}, slog.New(slog.DiscardHandler))
	if _, _, err := s.ReadFrame(context.Background()); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("ReadFrame = %v, want io.ErrUnexpectedEOF", err)
	}
	if c := cap(s.buf); c > 2*bodyChunk {
		t.Errorf("the framer holds a %d-byte buffer for %d bytes received", c, len(in))
	}
	// A frame larger than one chunk still arrives whole.
	body := `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("y", 3*bodyChunk) + `"}`
	s = newStream(pipe{Reader: strings.NewReader(frame(body)), Writer: io.Discard}, slog.New(slog.DiscardHandler))
	got, _, err := s.ReadFrame(context.Background())
	if err != nil || string(got) != body {
		t.Fatalf("ReadFrame = %d bytes, %v; want %d", len(got), err, len(body))
	}
}
