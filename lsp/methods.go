package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/ops"
)

// method handles one custom JSON-RPC method. params is the raw params
// value (nil when absent); the result is encoded with encoding/json.
type method func(ctx context.Context, s *Server, params json.RawMessage) (any, error)

// customMethods are the ctxls/* methods next to LSP, by name. Each is an
// operation of package ops, or, where the protocol adds to it (progress
// of a running chain), a handler in its feature's file.
var customMethods = map[string]method{
	"ctxls/commands":     op((*ops.Ops).Commands),
	"ctxls/documentCost": op((*ops.Ops).DocumentCost),
	"ctxls/sessionCost":  op((*ops.Ops).SessionCost),

	"ctxls/inventory":           op((*ops.Ops).Inventory),
	"ctxls/inventory/search":    op((*ops.Ops).SearchInventory),
	"ctxls/catalog":             op((*ops.Ops).Catalog),
	"ctxls/domainIndex":         op((*ops.Ops).DomainIndex),
	"ctxls/loadingProtocol":     op((*ops.Ops).LoadingProtocol),
	"ctxls/search":              op((*ops.Ops).Search),
	"ctxls/alwaysLoadFiles":     op((*ops.Ops).AlwaysLoadFiles),
	"ctxls/detectProjectType":   op((*ops.Ops).DetectProjectType),
	"ctxls/conditionalContext":  op((*ops.Ops).ConditionalContext),
	"ctxls/crossDomainContext":  op((*ops.Ops).CrossDomainContext),
	"ctxls/reference":           op((*ops.Ops).Reference),
	"ctxls/materialize":         op((*ops.Ops).Materialize),
	"ctxls/materializeSections": op((*ops.Ops).MaterializeSections),
	"ctxls/invalidate":          op((*ops.Ops).Invalidate),

	"ctxls/execution/create":             op((*ops.Ops).CreateExecution),
	"ctxls/execution/getOrCreate":        op((*ops.Ops).GetOrCreateExecution),
	"ctxls/execution/startCommand":       op((*ops.Ops).StartCommand),
	"ctxls/execution/completeCommand":    op((*ops.Ops).CompleteCommand),
	"ctxls/execution/recordContextLoad":  op((*ops.Ops).RecordContextLoad),
	"ctxls/execution/getCachedContext":   op((*ops.Ops).CachedContext),
	"ctxls/execution/recordMemoryLoad":   op((*ops.Ops).RecordMemoryLoad),
	"ctxls/execution/getCachedMemory":    op((*ops.Ops).CachedMemory),
	"ctxls/execution/setSharedData":      op((*ops.Ops).SetSharedData),
	"ctxls/execution/getSharedData":      op((*ops.Ops).SharedData),
	"ctxls/execution/getPreviousCommand": op((*ops.Ops).PreviousCommand),
	"ctxls/execution/list":               op((*ops.Ops).Executions),
	"ctxls/execution/get":                op((*ops.Ops).Execution),
	"ctxls/execution/setCurrent":         op((*ops.Ops).SetCurrentExecution),
	"ctxls/execution/delete":             op((*ops.Ops).DeleteExecution),

	"ctxls/chain/list":    op((*ops.Ops).Chains),
	"ctxls/chain/preview": op((*ops.Ops).PreviewChain),
	"ctxls/chain/run":     handle((*Server).chainRun),
	"ctxls/chain/resume":  handle((*Server).chainResume),
	"ctxls/chain/cancel":  op((*ops.Ops).CancelChain),

	"ctxls/trust":        op((*ops.Ops).Trust),
	"ctxls/trust/grant":  op((*ops.Ops).GrantTrust),
	"ctxls/trust/revoke": op((*ops.Ops).RevokeTrust),

	"ctxls/history/append":        op((*ops.Ops).AppendMessage),
	"ctxls/history/list":          op((*ops.Ops).History),
	"ctxls/history/conversations": op((*ops.Ops).Conversations),
	"ctxls/history/buildContext":  op((*ops.Ops).BuildHistory),
	"ctxls/history/delete":        op((*ops.Ops).DeleteConversation),
}

// handle makes a method of a typed handler: params are decoded into Req
// and the Resp returned is the result.
func handle[Req, Resp any](fn func(s *Server, ctx context.Context, req Req) (Resp, error)) method {
	return func(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
		var req Req
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		res, err := fn(s, ctx, req)
		if err != nil {
			return nil, opsError(err)
		}
		return res, nil
	}
}

// op makes a method of an operation, run on the live workspace's Ops.
func op[Req, Resp any](fn func(o *ops.Ops, ctx context.Context, req Req) (Resp, error)) method {
	return handle(func(s *Server, ctx context.Context, req Req) (Resp, error) {
		o, err := s.operations(ctx)
		if err != nil {
			var zero Resp
			return zero, err
		}
		return fn(o, ctx, req)
	})
}

// opsError gives an ops error the JSON-RPC code of its kind, with the
// operation's message.
func opsError(err error) error {
	var rpc *jsonrpc2.Error
	if errors.As(err, &rpc) {
		return err
	}
	if code, ok := ops.ErrorCode(ops.LSP, err); ok {
		return jsonrpc2.NewError(jsonrpc2.Code(code), err.Error())
	}
	return err
}

// decodeParams decodes params into v, strictly enough to catch mistakes:
// a value of the wrong type is an InvalidParams error naming the field
// and the JSON value expected, in the client's terms rather than Go's.
// Absent params, null and [] (how some clients encode an empty object)
// are an empty object.
func decodeParams(params json.RawMessage, v any) error {
	switch string(params) {
	case "", "null", "[]":
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %s must be %s, not %s", te.Field, jsonKind(te.Type), jsonValue(te.Value))
		case errors.As(err, &te):
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: params must be %s, not %s", jsonKind(te.Type), jsonValue(te.Value))
		case errors.As(err, &se):
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: not valid JSON at byte %d: %v", se.Offset, err)
		}
		// Otherwise the error comes from a type's own UnmarshalJSON, whose
		// message is written for people.
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// jsonKind names the JSON value that decodes into t: "a string", "an
// object" and so on.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a different value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a different value"
}

// jsonValue names the JSON value the decoder met, as encoding/json
// reports it ("string", "number 1.5", "bool"), with an article.
func jsonValue(v string) string {
	switch {
	case v == "bool":
		return "true or false"
	case v == "array", v == "object":
		return "an " + v
	case v == "":
		return "that value"
	}
	return "a " + v
}

// encodeResult encodes a custom method's result with encoding/json (so
// the struct tags of package ops apply as written) into a raw message the
// connection sends verbatim.
func encodeResult(v any) (any, error) {
	var raw []byte
	var err error
	switch r := v.(type) {
	case json.RawMessage:
		raw = r
	case jsonrpc2.RawMessage:
		raw = r
	default:
		raw, err = json.Marshal(v)
	}
	if err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	if len(raw) == 0 {
		return jsonrpc2.RawMessage("null"), nil
	}
	return jsonrpc2.RawMessage(raw), nil
}
