package lsp

import (
	"encoding/json"
	"slices"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec marshals payloads with the protocol package's union-aware codec and
// passes already-encoded JSON (the results of custom methods) through.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case json.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	// Slices of protocol types would go through reflection, element by
	// element; each element has a generated encoder, many times faster, and
	// an answer may hold ten thousand of them.
	case []protocol.Location:
		return marshalEach(m)
	case []protocol.InlayHint:
		return marshalEach(m)
	case []protocol.CodeLens:
		return marshalEach(m)
	case []protocol.DocumentLink:
		return marshalEach(m)
	}
	return protocol.Marshal(v)
}

// marshalEach encodes a list element by element, as protocol.Marshal
// encodes it whole.
func marshalEach[T any](list []T) ([]byte, error) {
	if list == nil {
		return protocol.Marshal(list)
	}
	out := []byte{'['}
	for i := range list {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = protocol.AppendMarshal(out, &list[i]); err != nil {
			return nil, err
		}
		if i == 0 {
			// The elements of one answer are much alike: the first tells
			// the size of the others, and the buffer grows once.
			out = slices.Grow(out, (len(out)+1)*(len(list)-1)+1)
		}
	}
	return append(out, ']'), nil
}

func (codec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *jsonrpc2.RawMessage:
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	case *json.RawMessage:
		*p = append(json.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// cancelID reads the id of a $/cancelRequest.
func cancelID(params []byte) (jsonrpc2.ID, bool) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.ID) == 0 {
		return jsonrpc2.ID{}, false
	}
	var str string
	if json.Unmarshal(p.ID, &str) == nil {
		return jsonrpc2.NewStringID(str), true
	}
	n, err := strconv.ParseInt(string(p.ID), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	return jsonrpc2.NewNumberID(n), true
}
