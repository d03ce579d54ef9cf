package lsp

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
)

// The ContextProvider methods of SPEC §4: each decodes its params,
// calls the provider and returns its result as is.

// contextProvider returns the provider or the error explaining its absence.
func contextProvider(ctx context.Context, s *Server) (*contextprovider.Provider, error) {
	if _, err := s.workspaceCtx(ctx); err != nil {
		return nil, err
	}
	p := s.provider()
	if p == nil {
		return nil, errors.New("the workspace is closed")
	}
	return p, nil
}

// providerError maps a provider's error to a JSON-RPC error: a refused
// name is a mistake in the params.
func providerError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, contextprovider.ErrEscape) {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	return err
}

func catalog(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain string `json:"domain"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.Catalog(ctx, p.Domain)
	return res, providerError(err)
}

func alwaysLoadFiles(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain string `json:"domain"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("domain", p.Domain); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.AlwaysLoadFiles(ctx, p.Domain)
	return res, providerError(err)
}

func detectProjectType(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain  string                  `json:"domain"`
		Signals contextprovider.Signals `json:"signals"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("domain", p.Domain); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.DetectProjectType(ctx, p.Domain, p.Signals)
	return res, providerError(err)
}

func conditionalContext(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain    string                          `json:"domain"`
		Detection contextprovider.DetectionResult `json:"detection"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("domain", p.Domain); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.ConditionalContext(ctx, p.Domain, p.Detection)
	return res, providerError(err)
}

func crossDomainContext(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain   string   `json:"domain"`
		Triggers []string `json:"triggers"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("domain", p.Domain); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.CrossDomainContext(ctx, p.Domain, p.Triggers)
	return res, providerError(err)
}

func reference(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain string `json:"domain"`
		File   string `json:"file"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("file", p.File); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.Reference(ctx, p.Domain, p.File)
	return res, providerError(err)
}

// refParam is a reference given as an object (a catalog entry) or as a
// string ("domain:topic", "domain/topic").
type refParam struct {
	contextprovider.Reference
}

func (r *refParam) UnmarshalJSON(b []byte) error {
	var str string
	if json.Unmarshal(b, &str) == nil {
		r.ID = str
		return nil
	}
	return json.Unmarshal(b, &r.Reference)
}

func materialize(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Reference *refParam `json:"reference"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Reference == nil || (p.Reference.ID == "" && p.Reference.Path == "") {
		return nil, requireField("reference", "")
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.Materialize(ctx, p.Reference.Reference)
	return res, providerError(err)
}

func materializeSections(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Reference *refParam `json:"reference"`
		Sections  []string  `json:"sections"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Reference == nil || (p.Reference.ID == "" && p.Reference.Path == "") {
		return nil, requireField("reference", "")
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.MaterializeSections(ctx, p.Reference.Reference, p.Sections)
	return res, providerError(err)
}

// invalidateResult is the result of ctxls/invalidate.
type invalidateResult struct {
	Removed  int                       `json:"removed"`
	Stats    contextprovider.Stats     `json:"stats"`
	Warnings []contextprovider.Warning `json:"warnings"`
}

func invalidate(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain string `json:"domain"`
		File   string `json:"file"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.File != "" && p.Domain == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: file needs a domain")
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	n, err := prov.Invalidate(p.Domain, p.File)
	if err != nil {
		return nil, providerError(err)
	}
	return invalidateResult{Removed: n, Stats: prov.Stats(), Warnings: []contextprovider.Warning{}}, nil
}

func domainIndex(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Domain string `json:"domain"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("domain", p.Domain); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.DomainIndex(ctx, p.Domain)
	return res, providerError(err)
}

func loadingProtocol(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct{}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.LoadingProtocol(ctx)
	return res, providerError(err)
}

func search(ctx context.Context, s *Server, params json.RawMessage) (any, error) {
	var p struct {
		Query  string `json:"query"`
		Domain string `json:"domain"`
		Limit  int    `json:"limit"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requireField("query", p.Query); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: limit must not be negative")
	}
	prov, err := contextProvider(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := prov.Search(ctx, p.Query, p.Domain, p.Limit)
	return res, providerError(err)
}
