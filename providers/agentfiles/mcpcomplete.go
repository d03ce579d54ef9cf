package agentfiles

import (
	"path"
	"slices"

	"github.com/ctxls/ctxls/providers/document"
)

// mcpDocsURL is the page each agent documents its MCP server keys on.
var mcpDocsURL = map[*mcpAgent]string{
	claudeMCP: "https://code.claude.com/docs/en/mcp",
	cursorMCP: "https://cursor.com/docs/mcp",
	vscodeMCP: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
	geminiMCP: "https://geminicli.com/docs/tools/mcp-server/",
	codexMCP:  "https://developers.openai.com/codex/mcp",
}

// mcpKeyDocs says what the keys every agent shares do; the others point
// at the agent's page.
var mcpKeyDocs = map[string]struct{ typ, doc string }{
	"type":    {"string", "The transport: how the agent talks to the server."},
	"command": {"string", "The program the agent starts for a stdio server; its arguments go in args."},
	"args":    {"list of strings", "The arguments of command, one a string."},
	"env":     {"map of strings", "Environment variables the server is started with, each value a string."},
	"url":     {"string", "The address of a remote server."},
	"headers": {"map of strings", "HTTP headers sent to a remote server, each value a string."},
}

// mcpServerFields returns the documented keys of a server of agent, as
// completion and hover show them.
func mcpServerFields(agent *mcpAgent) []Field {
	out := make([]Field, 0, len(agent.keys))
	for _, k := range agent.keys {
		f := Field{Name: k, Type: "value", Doc: "A server key " + agent.name + " documents: see " + mcpDocsURL[agent] + "."}
		if d, ok := mcpKeyDocs[k]; ok {
			f.Type, f.Doc = d.typ, d.doc+" See "+mcpDocsURL[agent]+"."
		}
		if k == "type" {
			f.Values = agent.types
		}
		out = append(out, f)
	}
	return out
}

// mcpTopFields are the top-level keys of an MCP configuration of agent.
func mcpTopFields(agent *mcpAgent) []Field {
	out := []Field{{Name: agent.serversKey, Type: "object", Doc: "The MCP servers " + agent.name + " starts or connects to, by name. See " + mcpDocsURL[agent] + "."}}
	if agent == vscodeMCP {
		out = append(out, Field{Name: "inputs", Type: "list of objects", Doc: "Values VS Code asks for when a server starts (a token, a key), named in the servers as ${input:id}. See " + mcpDocsURL[agent] + "."})
	}
	return out
}

// jsonSpot is what a byte offset of JSON text, as it is being typed, is
// on: a key or a string value, and the keys of the objects around it.
type jsonSpot struct {
	Spot
	// path holds the key each enclosing object or array was opened
	// under, outermost first; the root has none.
	path []string
}

// jsonSpotAt reads text up to off, which need not be valid JSON, and
// says what off is on: a key (inside its quotes, or where one can be
// typed) or a string value, at any depth.
func jsonSpotAt(text []byte, off int) (jsonSpot, bool) {
	if off < 0 || off > len(text) {
		return jsonSpot{}, false
	}
	type level struct {
		kind    byte
		under   string // the key this container was opened under
		lastKey string
	}
	var stack []level
	in := false
	strStart := -1
	lastSig, sigBefore := byte(0), byte(0)
	for i := 0; i < off; i++ {
		ch := text[i]
		if in {
			switch ch {
			case '\\':
				i++
			case '"':
				in = false
				if n := len(stack); n > 0 && stack[n-1].kind == '{' && (sigBefore == '{' || sigBefore == ',') {
					stack[n-1].lastKey = string(text[strStart+1 : i])
				}
				lastSig = '"'
			case '\n':
				in = false
			}
			continue
		}
		switch ch {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			in, strStart, sigBefore = true, i, lastSig
			continue
		case '{', '[':
			under := ""
			if n := len(stack); n > 0 {
				under = stack[n-1].lastKey
				if stack[n-1].kind == '[' {
					under = "[]"
				}
			}
			if len(stack) > maxJSONDepth {
				return jsonSpot{}, false
			}
			stack = append(stack, level{kind: ch, under: under})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		lastSig = ch
	}
	if len(stack) == 0 {
		return jsonSpot{}, false
	}
	top := stack[len(stack)-1]
	var p []string
	for _, l := range stack[1:] {
		p = append(p, l.under)
	}
	if !in {
		if top.kind != '{' || (lastSig != '{' && lastSig != ',') {
			return jsonSpot{}, false
		}
		return jsonSpot{Spot: Spot{Replace: document.Span{Start: off, End: off}, KeySpan: document.Span{Start: off, End: off}}, path: p}, true
	}
	end := off
	for end < len(text) && text[end] != '"' && text[end] != '\n' {
		end++
	}
	content := document.Span{Start: strStart + 1, End: end}
	if top.kind != '{' {
		return jsonSpot{}, false
	}
	switch sigBefore {
	case '{', ',':
		colon := false
		for j := end + 1; j < len(text); j++ {
			if c := text[j]; c != ' ' && c != '\t' {
				colon = c == ':'
				break
			}
		}
		key := string(text[content.Start:content.End])
		return jsonSpot{Spot: Spot{Key: key, Replace: content, KeySpan: content, Colon: colon}, path: p}, true
	case ':':
		return jsonSpot{Spot: Spot{Key: top.lastKey, Value: true, Replace: content}, path: p}, true
	}
	return jsonSpot{}, false
}

// mcpJSONAgent returns the agent of a JSON MCP configuration at rel, or
// nil: Gemini CLI's settings hold much besides servers, and Codex's
// configuration is TOML.
func mcpJSONAgent(rel string) *mcpAgent {
	a := mcpConfigOf(path.Clean(rel))
	if a == claudeMCP || a == cursorMCP || a == vscodeMCP {
		return a
	}
	return nil
}

// mcpFieldsAt returns the fields that belong where spot is, in the
// configuration of agent: the top-level keys, or a server's keys.
func mcpFieldsAt(agent *mcpAgent, spot jsonSpot) []Field {
	switch {
	case len(spot.path) == 0:
		return mcpTopFields(agent)
	case len(spot.path) == 2 && spot.path[0] == agent.serversKey:
		return mcpServerFields(agent)
	}
	return nil
}

// CompleteMCP returns the keys, or the values of a key, that can be typed
// at byte offset off of the MCP configuration at rel (.mcp.json,
// .cursor/mcp.json, .vscode/mcp.json), and the span they replace; ok is
// false for other files.
func CompleteMCP(rel string, text []byte, off int) ([]Completion, document.Span, bool) {
	agent := mcpJSONAgent(rel)
	if agent == nil {
		return nil, document.Span{}, false
	}
	spot, ok := jsonSpotAt(text, off)
	if !ok {
		return nil, document.Span{Start: off, End: off}, true
	}
	fields := mcpFieldsAt(agent, spot)
	quoted := spot.Replace.Start > 0 && text[spot.Replace.Start-1] == '"'
	var items []Completion
	if !spot.Value {
		for _, f := range fields {
			insert := f.Name
			if !quoted {
				insert = `"` + f.Name + `": `
			}
			items = append(items, Completion{Label: f.Name, Insert: insert, Detail: f.Type, Doc: f.Doc})
		}
		return items, spot.Replace, true
	}
	i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == spot.Key })
	if i < 0 {
		return nil, spot.Replace, true
	}
	for _, v := range fields[i].Values {
		items = append(items, Completion{Label: v, Insert: v, Detail: spot.Key, Doc: fields[i].Doc, Value: true})
	}
	return items, spot.Replace, true
}

// MCPFieldAt returns the documented key under byte offset off of the MCP
// configuration at rel, and the span of the key, for hover.
func MCPFieldAt(rel string, text []byte, off int) (Field, document.Span, bool) {
	agent := mcpJSONAgent(rel)
	if agent == nil {
		return Field{}, document.Span{}, false
	}
	spot, ok := jsonSpotAt(text, off)
	if !ok || spot.Value || off >= spot.KeySpan.End {
		return Field{}, document.Span{}, false
	}
	for _, f := range mcpFieldsAt(agent, spot) {
		if f.Name == spot.Key {
			return f, spot.KeySpan, true
		}
	}
	return Field{}, document.Span{}, false
}
