package lsp

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
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
		{"struct", newList([]string{"a"}, nil), `{"items":["a"],"warnings":[]}`, false},
		{"nil slice list", newList[string](nil, nil), `{"items":[],"warnings":[]}`, false},
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
