package lsp

import (
	"encoding/json"
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/ops"
)

func TestEncodeResult(t *testing.T) {
	t.Parallel()
	big := json.RawMessage(`{"items":[{"sessionId":"a"}],"warnings":[]}`)
	tests := []struct {
		name string
		in   any
		want string
		same bool // the encoding is the input's own bytes, not a copy
	}{
		{"struct", ops.CatalogResponse{Items: []ops.Reference{{ID: "a"}}}, `{"items":[{"id":"a","domain":"","title":"","type":"","measuredTokens":0,"loadingStrategy":"","path":""}],"warnings":null}`, false},
		{"self-encoding", ops.ExecutionListResponse{}, `{"items":[],"current":"","warnings":[]}`, false},
		{"nil pointer", (*ops.CommandResponse)(nil), `null`, false},
		{"json.RawMessage", big, string(big), true},
		{"jsonrpc2.RawMessage", jsonrpc2.RawMessage(big), string(big), true},
		{"empty raw", json.RawMessage(nil), `null`, false},
		{"nil", nil, `null`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeResult(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			raw, ok := got.(jsonrpc2.RawMessage)
			if !ok {
				t.Fatalf("encodeResult gave %T, want jsonrpc2.RawMessage", got)
			}
			if string(raw) != tt.want {
				t.Errorf("encodeResult = %s, want %s", raw, tt.want)
			}
			if tt.same && &raw[0] != &big[0] {
				t.Error("raw JSON was copied instead of passed through")
			}
		})
	}
}

func TestDecodeParams(t *testing.T) {
	tests := []struct {
		params  string
		want    ops.SearchRequest
		errCode jsonrpc2.Code // 0: no error
	}{
		{``, ops.SearchRequest{}, 0},
		{`null`, ops.SearchRequest{}, 0},
		{`{}`, ops.SearchRequest{}, 0},
		// Neovim's Lua client encodes an empty table, {}, as [].
		{`[]`, ops.SearchRequest{}, 0},
		{`{"query":"x","limit":3}`, ops.SearchRequest{Query: "x", Limit: 3}, 0},
		{`{"limit":"three"}`, ops.SearchRequest{}, jsonrpc2.InvalidParams},
		{`[1]`, ops.SearchRequest{}, jsonrpc2.InvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			var got ops.SearchRequest
			err := decodeParams(json.RawMessage(tt.params), &got)
			var rpc *jsonrpc2.Error
			switch {
			case tt.errCode == 0 && err != nil:
				t.Fatalf("decodeParams(%s): %v", tt.params, err)
			case tt.errCode != 0 && (!errors.As(err, &rpc) || rpc.Code != tt.errCode):
				t.Fatalf("decodeParams(%s) = %v, want code %d", tt.params, err, tt.errCode)
			case got != tt.want:
				t.Errorf("decodeParams(%s) gave %+v, want %+v", tt.params, got, tt.want)
			}
		})
	}
}
