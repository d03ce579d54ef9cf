package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// typedHandler is a tool's logic: its typed input, and the text block and
// structured output of its answer. An error is a tool error: the client
// gets it as a result with isError set and the message as its text.
type typedHandler[In, Out any] func(ctx context.Context, in In) (text string, out Out, err error)

// addTool registers a tool whose input and output schemas are derived from
// In and Out. Like the SDK's generic AddTool it validates the arguments
// against the input schema before decoding them; unlike it, it does not
// decode and validate its own output again: the output is encoded from
// Out, the type the schema describes, and on a catalog of 10,000 topics
// that second pass cost more than the rest of the call.
func addTool[In, Out any](srv *sdk.Server, t *sdk.Tool, h typedHandler[In, Out]) {
	inSchema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	outSchema, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", t.Name, err))
	}
	plainTypes(inSchema)
	plainTypes(outSchema)
	resolved, err := inSchema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	tt := *t
	tt.InputSchema, tt.OutputSchema = inSchema, outSchema
	srv.AddTool(&tt, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return toolError(fmt.Errorf("arguments are not a JSON object: %v", err)), nil
			}
		}
		if err := resolved.Validate(args); err != nil {
			return toolError(fmt.Errorf("invalid arguments: %v", err)), nil
		}
		var in In
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return toolError(fmt.Errorf("invalid arguments: %v", err)), nil
			}
		}
		text, out, err := h(withClient(ctx, req.ClientInfo()), in)
		if err != nil {
			return toolError(err), nil
		}
		structured, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encode the output: %w", t.Name, err)
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: text}},
			StructuredContent: json.RawMessage(structured),
		}, nil
	})
}

// plainTypes gives every schema under s one type where it was inferred
// as that type or null (Go slices, maps and pointers): a tool's arguments
// are never null, its outputs encode empty lists as [] rather than null,
// and clients and their checks (the MCP Inspector among them) expect
// plain JSON Schema types, not a list of two.
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Type == "" {
		switch {
		case s.Types[0] == "null":
			s.Type, s.Types = s.Types[1], nil
		case s.Types[1] == "null":
			s.Type, s.Types = s.Types[0], nil
		}
	}
	for _, p := range s.Properties {
		plainTypes(p)
	}
	for _, d := range s.Defs {
		plainTypes(d)
	}
	plainTypes(s.Items)
	plainTypes(s.AdditionalProperties)
	for _, l := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems} {
		for _, c := range l {
			plainTypes(c)
		}
	}
}

// toolError is the result of a call that failed.
func toolError(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{}
	res.SetError(err)
	return res
}
