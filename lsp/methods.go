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

// customMethods are the ctxls/* methods next to LSP, by name: the
// methods of ops.Methods, each registered with an operation of package
// ops of its params and result types or, where the protocol adds to it
// (progress of a running chain), a handler in its feature's file.
var customMethods = methodTable(
	op(ops.MethodCommands, (*ops.Ops).Commands),
	op(ops.MethodDocumentCost, (*ops.Ops).DocumentCost),
	op(ops.MethodSessionCost, (*ops.Ops).SessionCost),

	op(ops.MethodInventory, (*ops.Ops).Inventory),
	op(ops.MethodInventorySearch, (*ops.Ops).SearchInventory),
	op(ops.MethodCatalog, (*ops.Ops).Catalog),
	op(ops.MethodDomainIndex, (*ops.Ops).DomainIndex),
	op(ops.MethodLoadingProtocol, (*ops.Ops).LoadingProtocol),
	op(ops.MethodSearch, (*ops.Ops).Search),
	op(ops.MethodAlwaysLoadFiles, (*ops.Ops).AlwaysLoadFiles),
	op(ops.MethodDetectProjectType, (*ops.Ops).DetectProjectType),
	op(ops.MethodConditionalContext, (*ops.Ops).ConditionalContext),
	op(ops.MethodCrossDomainContext, (*ops.Ops).CrossDomainContext),
	op(ops.MethodReference, (*ops.Ops).Reference),
	op(ops.MethodMaterialize, (*ops.Ops).Materialize),
	op(ops.MethodMaterializeSections, (*ops.Ops).MaterializeSections),
	op(ops.MethodInvalidate, (*ops.Ops).Invalidate),

	op(ops.MethodExecutionCreate, (*ops.Ops).CreateExecution),
	op(ops.MethodExecutionGetOrCreate, (*ops.Ops).GetOrCreateExecution),
	op(ops.MethodExecutionStartCommand, (*ops.Ops).StartCommand),
	op(ops.MethodExecutionCompleteCommand, (*ops.Ops).CompleteCommand),
	op(ops.MethodExecutionRecordContextLoad, (*ops.Ops).RecordContextLoad),
	op(ops.MethodExecutionGetCachedContext, (*ops.Ops).CachedContext),
	op(ops.MethodExecutionRecordMemoryLoad, (*ops.Ops).RecordMemoryLoad),
	op(ops.MethodExecutionGetCachedMemory, (*ops.Ops).CachedMemory),
	op(ops.MethodExecutionSetSharedData, (*ops.Ops).SetSharedData),
	op(ops.MethodExecutionGetSharedData, (*ops.Ops).SharedData),
	op(ops.MethodExecutionGetPreviousCommand, (*ops.Ops).PreviousCommand),
	op(ops.MethodExecutionList, (*ops.Ops).Executions),
	op(ops.MethodExecutionGet, (*ops.Ops).Execution),
	op(ops.MethodExecutionSetCurrent, (*ops.Ops).SetCurrentExecution),
	op(ops.MethodExecutionDelete, (*ops.Ops).DeleteExecution),

	op(ops.MethodChainList, (*ops.Ops).Chains),
	op(ops.MethodChainPreview, (*ops.Ops).PreviewChain),
	handle(ops.MethodChainRun, (*Server).chainRun),
	handle(ops.MethodChainResume, (*Server).chainResume),
	op(ops.MethodChainCancel, (*ops.Ops).CancelChain),

	op(ops.MethodTrust, (*ops.Ops).Trust),
	op(ops.MethodTrustGrant, (*ops.Ops).GrantTrust),
	op(ops.MethodTrustRevoke, (*ops.Ops).RevokeTrust),

	op(ops.MethodHistoryAppend, (*ops.Ops).AppendMessage),
	op(ops.MethodHistoryList, (*ops.Ops).History),
	op(ops.MethodHistoryConversations, (*ops.Ops).Conversations),
	op(ops.MethodHistoryBuildContext, (*ops.Ops).BuildHistory),
	op(ops.MethodHistoryDelete, (*ops.Ops).DeleteConversation),
)

// registered is a method with its name.
type registered struct {
	name string
	call method
}

// methodTable returns the methods by name.
func methodTable(ms ...registered) map[string]method {
	t := make(map[string]method, len(ms))
	for _, m := range ms {
		t[m.name] = m.call
	}
	return t
}

// handle registers m with a typed handler: params are decoded into Req
// and the Resp returned is the result.
func handle[Req, Resp any](m ops.Method[Req, Resp], fn func(s *Server, ctx context.Context, req Req) (Resp, error)) registered {
	return registered{name: string(m), call: func(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
		var req Req
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		res, err := fn(s, ctx, req)
		if err != nil {
			return nil, opsError(err)
		}
		return res, nil
	}}
}

// op registers m with an operation, run on the live workspace's Ops.
func op[Req, Resp any](m ops.Method[Req, Resp], fn func(o *ops.Ops, ctx context.Context, req Req) (Resp, error)) registered {
	return handle(m, func(s *Server, ctx context.Context, req Req) (Resp, error) {
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
