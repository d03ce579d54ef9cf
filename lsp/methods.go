package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// method handles one custom JSON-RPC method. params is the raw params
// value (nil when absent); the result is encoded with encoding/json.
type method func(ctx context.Context, s *Server, params json.RawMessage) (any, error)

// customMethods are the ctxls/* methods next to LSP, by name. Each
// feature's handlers live in their own file.
var customMethods = map[string]method{
	"ctxls/commands":     commands,
	"ctxls/documentCost": documentCost,
	"ctxls/sessionCost":  sessionCost,

	"ctxls/catalog":             catalog,
	"ctxls/domainIndex":         domainIndex,
	"ctxls/loadingProtocol":     loadingProtocol,
	"ctxls/search":              search,
	"ctxls/alwaysLoadFiles":     alwaysLoadFiles,
	"ctxls/detectProjectType":   detectProjectType,
	"ctxls/conditionalContext":  conditionalContext,
	"ctxls/crossDomainContext":  crossDomainContext,
	"ctxls/reference":           reference,
	"ctxls/materialize":         materialize,
	"ctxls/materializeSections": materializeSections,
	"ctxls/invalidate":          invalidate,

	"ctxls/execution/create":             executionCreate,
	"ctxls/execution/getOrCreate":        executionGetOrCreate,
	"ctxls/execution/startCommand":       executionStartCommand,
	"ctxls/execution/completeCommand":    executionCompleteCommand,
	"ctxls/execution/recordContextLoad":  executionRecordContextLoad,
	"ctxls/execution/getCachedContext":   executionGetCachedContext,
	"ctxls/execution/recordMemoryLoad":   executionRecordMemoryLoad,
	"ctxls/execution/getCachedMemory":    executionGetCachedMemory,
	"ctxls/execution/setSharedData":      executionSetSharedData,
	"ctxls/execution/getSharedData":      executionGetSharedData,
	"ctxls/execution/getPreviousCommand": executionGetPreviousCommand,
	"ctxls/execution/list":               executionList,
	"ctxls/execution/get":                executionGet,
	"ctxls/execution/setCurrent":         executionSetCurrent,
	"ctxls/execution/delete":             executionDelete,

	"ctxls/chain/list":    chainList,
	"ctxls/chain/preview": chainPreview,
	"ctxls/chain/run":     chainRun,
	"ctxls/chain/resume":  chainResume,
	"ctxls/chain/cancel":  chainCancel,

	"ctxls/history/append":        historyAppend,
	"ctxls/history/list":          historyList,
	"ctxls/history/conversations": historyConversations,
	"ctxls/history/buildContext":  historyBuildContext,
	"ctxls/history/delete":        historyDelete,
}

// decodeParams decodes params into v, strictly enough to catch mistakes:
// a value of the wrong type is an InvalidParams error naming the field.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		var te *json.UnmarshalTypeError
		if ok := asTypeError(err, &te); ok && te.Field != "" {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %s must be %s, not %s", te.Field, te.Type, te.Value)
		}
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

func asTypeError(err error, te **json.UnmarshalTypeError) bool {
	t, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*te = t
	}
	return ok
}

// requireField returns an InvalidParams error when a required string
// parameter is empty.
func requireField(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %s is required", name)
	}
	return nil
}

// encodeResult encodes a custom method's result with encoding/json (so
// providers' struct tags apply as written) into a raw message the
// connection sends verbatim. A result that is JSON already (a provider's
// cached encoding, such as the 10,000-item execution list) goes out as it
// is: json.Marshal would scan and compact all of it again.
func encodeResult(v any) (any, error) {
	switch r := v.(type) {
	case json.RawMessage:
		if len(r) == 0 {
			return jsonrpc2.RawMessage("null"), nil
		}
		return jsonrpc2.RawMessage(r), nil
	case jsonrpc2.RawMessage:
		if len(r) == 0 {
			return jsonrpc2.RawMessage("null"), nil
		}
		return r, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	return jsonrpc2.RawMessage(raw), nil
}

// warning is one entry of a result's warnings list.
type warning struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// list is the shape of every list result: items is never null.
type list[T any] struct {
	Items    []T       `json:"items"`
	Warnings []warning `json:"warnings"`
}

func newList[T any](items []T, warnings []warning) list[T] {
	if items == nil {
		items = []T{}
	}
	if warnings == nil {
		warnings = []warning{}
	}
	return list[T]{Items: items, Warnings: warnings}
}
