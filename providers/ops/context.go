package ops

import (
	"context"
	"encoding/json"

	"github.com/ctxls/ctxls/providers/contextapi"
)

// Response types of the context operations, as the ContextProvider
// returns them.
type (
	Reference         = contextapi.Reference
	SearchItem        = contextapi.SearchItem
	ContextFile       = contextapi.ContextFile
	ReferenceResponse = contextapi.ReferenceResult
	FileResponse      = contextapi.FileResult
	SectionsResponse  = contextapi.PartialContextFile
	DomainIndex       = contextapi.DomainIndex
	LoadingProtocol   = contextapi.LoadingProtocol
	DetectionResult   = contextapi.DetectionResult
	Signals           = contextapi.Signals
	CacheStats        = contextapi.Stats
	CatalogResponse   = List[Reference]
	SearchResponse    = List[SearchItem]
	ContextFileList   = List[ContextFile]
)

// CatalogRequest asks for the topics of one domain, or of all when Domain
// is empty.
type CatalogRequest struct {
	Domain string `json:"domain,omitempty"`
}

// Catalog lists topics with their metadata and token costs.
func (o *Ops) Catalog(ctx context.Context, req CatalogRequest) (CatalogResponse, error) {
	return provide(o, ctx, nil, func(ctx context.Context) (CatalogResponse, error) {
		return o.prov.Catalog(ctx, req.Domain)
	})
}

// SearchRequest asks for the topics matching Query, best first.
type SearchRequest struct {
	Query  string `json:"query"`
	Domain string `json:"domain,omitempty"`
	// Limit is the most results returned; 0 means the default of 50.
	Limit int `json:"limit,omitempty"`
}

// Search ranks topics by how well their tags, section keywords, titles,
// detection triggers and names match the query.
func (o *Ops) Search(ctx context.Context, req SearchRequest) (SearchResponse, error) {
	return provide(o, ctx, []field{{"query", req.Query}}, func(ctx context.Context) (SearchResponse, error) {
		if req.Limit < 0 {
			return SearchResponse{}, invalidf("limit must not be negative")
		}
		return o.prov.Search(ctx, req.Query, req.Domain, req.Limit)
	})
}

// ReferenceRequest names a file of a domain.
type ReferenceRequest struct {
	Domain string `json:"domain,omitempty"`
	File   string `json:"file"`
}

// Reference returns the metadata of one file without its content.
func (o *Ops) Reference(ctx context.Context, req ReferenceRequest) (ReferenceResponse, error) {
	if err := require(field{"file", req.File}); err != nil {
		return ReferenceResponse{}, err
	}
	res, err := o.prov.Reference(ctx, req.Domain, req.File)
	return res, err
}

// TopicRef names a topic: on the wire either a catalog entry or a string
// such as "domain:topic" or "domain/topic".
type TopicRef struct {
	contextapi.Reference
}

// UnmarshalJSON accepts a string or an object.
func (r *TopicRef) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		r.ID = s
		return nil
	}
	return json.Unmarshal(b, &r.Reference)
}

func (r *TopicRef) empty() bool { return r == nil || (r.ID == "" && r.Path == "") }

// MaterializeRequest names the topic whose content is loaded.
type MaterializeRequest struct {
	Reference *TopicRef `json:"reference"`
}

// Materialize loads a topic's body without frontmatter.
func (o *Ops) Materialize(ctx context.Context, req MaterializeRequest) (FileResponse, error) {
	if req.Reference.empty() {
		return FileResponse{}, require(field{name: "reference"})
	}
	res, err := o.prov.Materialize(ctx, req.Reference.Reference)
	return res, err
}

// MaterializeSectionsRequest names a topic and the sections to load.
type MaterializeSectionsRequest struct {
	Reference *TopicRef `json:"reference"`
	Sections  []string  `json:"sections"`
}

// MaterializeSections loads some sections of a topic.
func (o *Ops) MaterializeSections(ctx context.Context, req MaterializeSectionsRequest) (SectionsResponse, error) {
	if req.Reference.empty() {
		return SectionsResponse{}, require(field{name: "reference"})
	}
	res, err := o.prov.MaterializeSections(ctx, req.Reference.Reference, req.Sections)
	return res, err
}

// DomainRequest names a domain.
type DomainRequest struct {
	Domain string `json:"domain"`
}

// DomainIndex returns the index of a domain: its files, workflows and
// detection hints.
func (o *Ops) DomainIndex(ctx context.Context, req DomainRequest) (DomainIndex, error) {
	return provide(o, ctx, []field{{"domain", req.Domain}}, func(ctx context.Context) (DomainIndex, error) {
		return o.prov.DomainIndex(ctx, req.Domain)
	})
}

// Empty is the request of an operation that takes no parameters.
type Empty struct{}

// LoadingProtocol returns the library's loading protocol.
func (o *Ops) LoadingProtocol(ctx context.Context, _ Empty) (LoadingProtocol, error) {
	res, err := o.prov.LoadingProtocol(ctx)
	return res, err
}

// AlwaysLoadFiles returns the files of a domain that are always loaded.
func (o *Ops) AlwaysLoadFiles(ctx context.Context, req DomainRequest) (ContextFileList, error) {
	return provide(o, ctx, []field{{"domain", req.Domain}}, func(ctx context.Context) (ContextFileList, error) {
		return o.prov.AlwaysLoadFiles(ctx, req.Domain)
	})
}

// DetectRequest gives the signals of a project to match against a
// domain's detection rules.
type DetectRequest struct {
	Domain  string  `json:"domain"`
	Signals Signals `json:"signals"`
}

// DetectProjectType matches a project's signals against a domain's
// detection rules.
func (o *Ops) DetectProjectType(ctx context.Context, req DetectRequest) (DetectionResult, error) {
	return provideIn(o, ctx, req.Domain, req.Signals, o.prov.DetectProjectType)
}

// ConditionalRequest gives a detection result whose context is wanted.
type ConditionalRequest struct {
	Domain    string          `json:"domain"`
	Detection DetectionResult `json:"detection"`
}

// ConditionalContext returns the files a detection result calls for,
// within the loading protocol's budget.
func (o *Ops) ConditionalContext(ctx context.Context, req ConditionalRequest) (ContextFileList, error) {
	return provideIn(o, ctx, req.Domain, req.Detection, o.prov.ConditionalContext)
}

// CrossDomainRequest gives the triggers met while working in a domain.
type CrossDomainRequest struct {
	Domain   string   `json:"domain"`
	Triggers []string `json:"triggers"`
}

// CrossDomainContext returns the files of other domains that the triggers
// call for.
func (o *Ops) CrossDomainContext(ctx context.Context, req CrossDomainRequest) (ContextFileList, error) {
	return provideIn(o, ctx, req.Domain, req.Triggers, o.prov.CrossDomainContext)
}

// InvalidateRequest names the cache entries to drop: all when Domain is
// empty, a domain's, or one file's.
type InvalidateRequest struct {
	Domain string `json:"domain"`
	File   string `json:"file"`
}

// InvalidateResponse says how many entries were dropped and what the
// caches hold now.
type InvalidateResponse struct {
	Removed  int        `json:"removed"`
	Stats    CacheStats `json:"stats"`
	Warnings []Warning  `json:"warnings"`
}

// Invalidate drops entries of the ContextProvider's caches.
func (o *Ops) Invalidate(_ context.Context, req InvalidateRequest) (InvalidateResponse, error) {
	if req.File != "" && req.Domain == "" {
		return InvalidateResponse{}, invalidf("file needs a domain")
	}
	n, err := o.prov.Invalidate(req.Domain, req.File)
	if err != nil {
		return InvalidateResponse{}, err
	}
	return InvalidateResponse{Removed: n, Stats: o.prov.Stats(), Warnings: []Warning{}}, nil
}
