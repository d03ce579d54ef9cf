package lsp

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestInprocContextProviderMethods(t *testing.T) {
	t.Parallel()
	c := inprocStart(t, inprocCopyLibrary(t), inprocOptions{})
	tests := []struct {
		method   string
		params   map[string]any
		check    func(t *testing.T, raw map[string]json.RawMessage)
		wantCode jsonrpc2.Code // error expected when not 0
	}{
		{method: "ctxls/catalog", params: map[string]any{"domain": "python"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			var items []struct {
				ID             string `json:"id"`
				MeasuredTokens int    `json:"measuredTokens"`
			}
			json.Unmarshal(raw["items"], &items)
			if len(items) < 5 {
				t.Errorf("catalog python: %d items", len(items))
			}
			for _, it := range items {
				if it.MeasuredTokens <= 0 {
					t.Errorf("%s has no measured tokens", it.ID)
				}
			}
		}},
		{method: "ctxls/catalog", params: map[string]any{"domain": "nosuch"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if string(raw["items"]) != "[]" || string(raw["warnings"]) == "[]" {
				t.Errorf("missing domain: items %s warnings %s", raw["items"], raw["warnings"])
			}
		}},
		{method: "ctxls/reference", params: map[string]any{"domain": "python", "file": "fastapi_patterns"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if string(raw["id"]) != `"python/fastapi_patterns"` {
				t.Errorf("reference id %s", raw["id"])
			}
		}},
		{method: "ctxls/reference", params: map[string]any{"domain": "python", "file": "../../etc/passwd"}, wantCode: jsonrpc2.InvalidParams},
		{method: "ctxls/reference", params: map[string]any{"domain": 3}, wantCode: jsonrpc2.InvalidParams},
		{method: "ctxls/materialize", params: map[string]any{"reference": "python:fastapi_patterns"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if len(raw["content"]) < 100 {
				t.Errorf("materialize content %s", raw["content"])
			}
		}},
		{method: "ctxls/materializeSections", params: map[string]any{"reference": map[string]any{"id": "python/fastapi_patterns"}, "sections": []string{"Dependency Injection"}}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			var secs []struct{ Name string }
			json.Unmarshal(raw["sections"], &secs)
			if len(secs) != 1 || secs[0].Name != "Dependency Injection" {
				t.Errorf("sections %s", raw["sections"])
			}
		}},
		{method: "ctxls/materialize", params: map[string]any{}, wantCode: jsonrpc2.InvalidParams},
		{method: "ctxls/alwaysLoadFiles", params: map[string]any{"domain": "python"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if string(raw["items"]) == "[]" {
				t.Error("python has always-load files")
			}
		}},
		{method: "ctxls/search", params: map[string]any{"query": "fastapi"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			var items []struct {
				Reference struct{ ID string } `json:"reference"`
			}
			json.Unmarshal(raw["items"], &items)
			if len(items) == 0 || items[0].Reference.ID != "python/fastapi_patterns" {
				t.Errorf("search fastapi: %s", raw["items"])
			}
		}},
		{method: "ctxls/search", params: map[string]any{}, wantCode: jsonrpc2.InvalidParams},
		{method: "ctxls/domainIndex", params: map[string]any{"domain": "python"}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if len(raw) == 0 || string(raw["warnings"]) != "[]" {
				t.Errorf("domainIndex python: %v", raw)
			}
		}},
		{method: "ctxls/loadingProtocol", params: map[string]any{}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if _, ok := raw["warnings"]; !ok {
				t.Errorf("loadingProtocol: %v", raw)
			}
		}},
		{method: "ctxls/invalidate", params: map[string]any{}, check: func(t *testing.T, raw map[string]json.RawMessage) {
			if _, ok := raw["removed"]; !ok {
				t.Errorf("invalidate: %v", raw)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			if tc.wantCode != 0 {
				if e := c.callErr(tc.method, tc.params); e.Code != tc.wantCode {
					t.Fatalf("got %v, want code %d", e, tc.wantCode)
				}
				return
			}
			var raw json.RawMessage
			c.mustCall(tc.method, tc.params, &raw)
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("result %s: %v", raw, err)
			}
			tc.check(t, m)
		})
	}
}
