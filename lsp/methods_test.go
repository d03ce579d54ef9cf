package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
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
		{"nil pointer", (*ops.CommandResponse)(nil), `null`, false},
		{"json.RawMessage", big, string(big), true},
		{"jsonrpc2.RawMessage", jsonrpc2.RawMessage(big), string(big), true},
		{"empty raw", json.RawMessage(nil), `null`, false},
		{"nil", nil, `null`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
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
	t.Parallel()
	tests := []struct {
		params  string
		want    ops.SearchRequest
		errCode jsonrpc2.Code // 0: no error
		wantMsg string        // the error message, when errCode is set
	}{
		{``, ops.SearchRequest{}, 0, ""},
		{`null`, ops.SearchRequest{}, 0, ""},
		{`{}`, ops.SearchRequest{}, 0, ""},
		// Neovim's Lua client encodes an empty table, {}, as [].
		{`[]`, ops.SearchRequest{}, 0, ""},
		{`{"query":"x","limit":3}`, ops.SearchRequest{Query: "x", Limit: 3}, 0, ""},
		{`{"limit":"three"}`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: limit must be an integer, not a string"},
		{`{"limit":1.5}`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: limit must be an integer, not a number 1.5"},
		{`{"query":{}}`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: query must be a string, not an object"},
		{`{"query":true}`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: query must be a string, not true or false"},
		{`[1]`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: params must be an object, not an array"},
		{`"x"`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: params must be an object, not a string"},
		{`7`, ops.SearchRequest{}, jsonrpc2.InvalidParams, "invalid params: params must be an object, not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			t.Parallel()
			var got ops.SearchRequest
			err := decodeParams(json.RawMessage(tt.params), &got)
			var rpc *jsonrpc2.Error
			switch {
			case tt.errCode == 0 && err != nil:
				t.Fatalf("decodeParams(%s): %v", tt.params, err)
			case tt.errCode != 0 && (!errors.As(err, &rpc) || rpc.Code != tt.errCode):
				t.Fatalf("decodeParams(%s) = %v, want code %d", tt.params, err, tt.errCode)
			case tt.errCode != 0 && rpc.Message != tt.wantMsg:
				t.Errorf("decodeParams(%s) says %q, want %q", tt.params, rpc.Message, tt.wantMsg)
			case got != tt.want:
				t.Errorf("decodeParams(%s) gave %+v, want %+v", tt.params, got, tt.want)
			}
		})
	}
}

// TestDecodeParamsNoGoTypes decodes a value of the wrong kind into each
// field of the requests of the custom methods, and params that are not an
// object, and checks that each message names the field and no Go type.
func TestDecodeParamsNoGoTypes(t *testing.T) {
	t.Parallel()
	reqs := []any{
		ops.ChainRequest{}, ops.CheckRequest{}, ops.CatalogRequest{}, ops.SearchRequest{}, ops.ReferenceRequest{},
		ops.MaterializeRequest{}, ops.MaterializeSectionsRequest{}, ops.DomainRequest{}, ops.DetectRequest{},
		ops.ConditionalRequest{}, ops.CrossDomainRequest{}, ops.InvalidateRequest{}, ops.DocumentCostRequest{},
		ops.CreateExecutionRequest{}, ops.ProjectRequest{}, ops.SessionRequest{}, ops.CommandRequest{},
		ops.PreviousCommandRequest{}, ops.ContextLoadRequest{}, ops.MemoryLoadRequest{}, ops.SharedDataRequest{},
		ops.DeleteExecutionRequest{}, ops.AppendMessageRequest{}, ops.HistoryListRequest{}, ops.BuildHistoryRequest{},
		ops.DeleteConversationRequest{}, ops.ShowRequest{},
	}
	checked := 0
	for _, req := range reqs {
		rt := reflect.TypeOf(req)
		cases := map[string]string{"": `"x"`}
		own := map[string]bool{} // fields that decode themselves and word their errors
		unmarshaler := reflect.TypeFor[json.Unmarshaler]()
		for f := range rt.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			wrong := `{}`
			if k := f.Type.Kind(); k == reflect.Struct || k == reflect.Map {
				wrong = `"x"`
			}
			cases[name] = fmt.Sprintf(`{%q:%s}`, name, wrong)
			own[name] = reflect.PointerTo(f.Type).Implements(unmarshaler)
		}
		for field, params := range cases {
			v := reflect.New(rt).Interface()
			err := decodeParams(json.RawMessage(params), v)
			if err == nil {
				continue // a field that takes any JSON value
			}
			checked++
			var rpc *jsonrpc2.Error
			if !errors.As(err, &rpc) || rpc.Code != jsonrpc2.InvalidParams {
				t.Errorf("%s %s: %v, want InvalidParams", rt.Name(), params, err)
				continue
			}
			if field != "" && !own[field] && !strings.Contains(rpc.Message, field+" must be") {
				t.Errorf("%s %s: message %q does not name the field", rt.Name(), params, rpc.Message)
			}
			for _, goish := range []string{"Go ", "ops.", "struct", "int64", "float64", "[]", "map[", "interface", "json."} {
				if strings.Contains(rpc.Message, goish) {
					t.Errorf("%s %s: message %q names a Go type (%q)", rt.Name(), params, rpc.Message, goish)
				}
			}
		}
	}
	if checked < len(reqs)*2 {
		t.Fatalf("only %d wrong params were refused", checked)
	}
}

// The server answers exactly the methods of ops.Methods, which the
// extension's request types are generated from: a method added to one and
// not the other fails here.
func TestCustomMethodsAreOpsMethods(t *testing.T) {
	t.Parallel()
	var want []string
	for _, m := range ops.Methods() {
		want = append(want, m.Name)
	}
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(customMethods))
	if !slices.Equal(got, want) {
		t.Errorf("the server registers\n%v\nops.Methods lists\n%v", got, want)
	}
}
