package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds the body a peer may declare, so that a wrong
// Content-Length cannot make the server allocate without limit.
const maxFrame = 256 << 20

// stream frames LSP messages ("Content-Length" headers) like
// jsonrpc2.NewHeaderStream, but survives a misbehaving peer: a malformed
// header is skipped up to the next one, and a body that is not a JSON-RPC
// message is answered with a parse error instead of ending the connection,
// which is what jsonrpc2's own framer does.
type stream struct {
	in  *bufio.Reader
	out jsonrpc2.Stream // writes go through the stock framer
	rwc io.ReadWriteCloser
	log *slog.Logger
	buf []byte

	// ended is closed when reading fails, at the end of the input most
	// often: the client has gone away.
	ended     chan struct{}
	endedOnce sync.Once

	// closed is closed once the connection has closed the stream, which it
	// does when it is shutting down and no request is in flight any more.
	closed    chan struct{}
	closeOnce sync.Once
}

// frameWriter is the raw-frame write side the stock header framer offers.
type frameWriter interface {
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: jsonrpc2.NewHeaderStream(rwc), rwc: rwc, log: log, ended: make(chan struct{}), closed: make(chan struct{})}
}

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.ReadFrame(ctx)
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
	}
}

// ReadFrame returns the body of the next well-formed frame. The connection
// uses it (instead of Read) when the stream offers it.
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, consumed, err := s.readHeader()
		if err != nil {
			s.end()
			return nil, 0, err
		}
		body, err := s.readBody(length)
		if err != nil {
			s.end()
			return nil, 0, err
		}
		if err := checkFrame(body); err != nil {
			s.log.Warn("dropping a malformed message", "err", err, "bytes", length)
			s.replyError(ctx, body, err)
			continue
		}
		return body, int64(consumed + length), nil
	}
}

// end marks the input ended.
func (s *stream) end() { s.endedOnce.Do(func() { close(s.ended) }) }

// bodyChunk is how much more buffer readBody allocates at a time.
const bodyChunk = 1 << 20

// readBody reads a body of length bytes into s.buf. The buffer grows with
// the bytes that arrive rather than with the length a header declares, so
// that a peer declaring a huge frame and sending little costs little.
func (s *stream) readBody(length int) ([]byte, error) {
	buf := s.buf[:0]
	for len(buf) < length {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(length-len(buf), max(bodyChunk, len(buf))))
		}
		n, err := io.ReadFull(s.in, buf[len(buf):min(cap(buf), length)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			s.buf = buf[:0]
			return nil, err
		}
	}
	s.buf = buf[:0]
	return buf, nil
}

// checkFrame reports whether body is something the connection can
// dispatch without failing: one JSON-RPC message or a batch array.
func checkFrame(body []byte) error {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			return jsonrpc2.ErrParse
		}
		return nil
	}
	_, err := jsonrpc2.DecodeMessage(body)
	return err
}

// replyError answers a malformed message: with its id when one can be read,
// else with a null id as JSON-RPC prescribes for unparsable requests.
func (s *stream) replyError(ctx context.Context, body []byte, cause error) {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	code := jsonrpc2.ParseError
	msg := "parse error: the message is not valid JSON"
	if json.Unmarshal(body, &probe) == nil {
		code = jsonrpc2.InvalidRequest
		msg = fmt.Sprintf("invalid request: %v", cause)
		if probe.Method != nil && len(probe.ID) == 0 {
			return // a malformed notification gets no answer
		}
		if len(probe.ID) == 0 && probe.Method == nil {
			return // a response we cannot use
		}
	}
	id := json.RawMessage("null")
	if len(probe.ID) > 0 && (probe.ID[0] == '"' || (probe.ID[0] >= '0' && probe.ID[0] <= '9') || probe.ID[0] == '-') {
		id = probe.ID
	}
	errObj, _ := json.Marshal(map[string]any{"code": int(code), "message": msg})
	frame := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, errObj)
	if fw, ok := s.out.(frameWriter); ok {
		_, _ = fw.WriteFrame(ctx, frame)
	}
}

// readHeader reads header lines up to the blank line that ends a header
// block holding a valid Content-Length. Lines that are not headers (the
// tail of a body whose Content-Length was too short, stray garbage) are
// skipped; a header glued to such a tail is still found.
func (s *stream) readHeader() (length, consumed int, err error) {
	length = -1
	for {
		line, err := s.in.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// An overlong line is never a header: skip it.
			consumed += len(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = s.in.ReadSlice('\n')
				consumed += len(line)
			}
			if err != nil {
				return 0, 0, eofError(err, consumed)
			}
			length = -1
			continue
		}
		if err != nil {
			return 0, 0, eofError(err, consumed+len(line))
		}
		consumed += len(line)
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if length > 0 {
				return length, consumed, nil
			}
			continue
		}
		if n, ok := contentLength(trimmed); ok {
			length = n
			continue
		}
		if bytes.IndexByte(trimmed, ':') < 0 || bytes.ContainsAny(trimmed, "{}\"") {
			length = -1 // not a header line: start over at the next one
		}
	}
}

func eofError(err error, consumed int) error {
	if errors.Is(err, io.EOF) && consumed > 0 {
		return io.ErrUnexpectedEOF
	}
	return err
}

// contentLength parses a Content-Length header, also when garbage precedes
// it on the line.
func contentLength(line []byte) (int, bool) {
	const key = "content-length:"
	// Not bytes.ToLower: it rewrites invalid UTF-8, which changes the
	// offsets, and the index would not fit the line any more.
	i := indexASCIIFold(line, key)
	if i < 0 {
		return 0, false
	}
	v := bytes.TrimSpace(line[i+len(key):])
	n, err := strconv.Atoi(string(v))
	if err != nil || n <= 0 || n > maxFrame {
		return 0, false
	}
	return n, true
}

// indexASCIIFold returns the offset of the first match of key, lower-case
// ASCII, in s under ASCII case folding, or -1.
func indexASCIIFold(s []byte, key string) int {
	for i := 0; i+len(key) <= len(s); i++ {
		j := 0
		for j < len(key) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != key[j] {
				break
			}
			j++
		}
		if j == len(key) {
			return i
		}
	}
	return -1
}

// Write implements jsonrpc2.Stream.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.out.Write(ctx, msg)
}

// WriteFrame writes an encoded body as one frame (batch responses).
func (s *stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	fw, ok := s.out.(frameWriter)
	if !ok {
		return 0, errors.New("stream cannot write raw frames")
	}
	return fw.WriteFrame(ctx, data)
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error {
	err := s.rwc.Close()
	s.closeOnce.Do(func() { close(s.closed) })
	return err
}

// pipe joins a reader and a writer into the io.ReadWriteCloser a stream
// needs; Close closes whichever of them can be closed.
type pipe struct {
	io.Reader
	io.Writer
}

func (p pipe) Close() error {
	var errs []error
	if c, ok := p.Reader.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := p.Writer.(io.Closer); ok && any(p.Writer) != any(p.Reader) {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
