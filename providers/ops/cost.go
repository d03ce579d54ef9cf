package ops

import (
	"context"
	"fmt"
	"path/filepath"

	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
	"github.com/ctxls/ctxls/providers/refcost"
	"github.com/ctxls/ctxls/providers/refs"
)

// listLimit bounds the references a cost reply lists: a document may make
// hundreds of thousands, and the totals already account for them all.
const listLimit = 500

// CommandInfo is one command of the workspace with the references it
// makes and their total token cost.
type CommandInfo struct {
	Name        string `json:"name"`
	Path        string `json:"path"`
	URI         string `json:"uri"`
	Description string `json:"description,omitempty"`
	// References are the command's references in key form, each once, at
	// most 500; OmittedReferences counts the others.
	References        []string `json:"references"`
	OmittedReferences int      `json:"omittedReferences,omitempty"`
	// Tokens is the total cost of loading the references.
	Tokens int `json:"tokens"`
	// Unresolved is the number of references that do not resolve.
	Unresolved int `json:"unresolved,omitempty"`
}

// CommandsResponse lists every command.
type CommandsResponse = List[CommandInfo]

// Commands lists every command with its references and their total token
// cost: the cost of running each command.
func (o *Ops) Commands(ctx context.Context, _ Empty) (CommandsResponse, error) {
	return withHeavy(o, ctx, func(ctx context.Context) (CommandsResponse, error) {
		lib := o.Library()
		var items []CommandInfo
		for _, c := range lib.Commands() {
			info := CommandInfo{Name: c.Name, Path: c.Path, URI: string(uri.File(c.Path)), Description: c.Description, References: []string{}}
			if f, ok := lib.File(c.Path); ok {
				s, err := o.costs.Summary(ctx, lib, f)
				if err != nil {
					return CommandsResponse{}, err
				}
				info.Tokens, info.Unresolved = s.Total, s.Unresolved
				info.References = append(info.References, s.Keys...)
				info.OmittedReferences = s.OmittedKeys
			}
			items = append(items, info)
		}
		return newList(items, nil), nil
	})
}

// DocumentCostRequest names a document by its file URI or absolute path.
type DocumentCostRequest struct {
	URI string `json:"uri"`
}

// DocumentCostItem is one reference of a document and what loading it
// costs.
type DocumentCostItem struct {
	// Reference is the key form: "python:fastapi_patterns",
	// "python:x#Section", "python".
	Reference string `json:"reference"`
	// Form is the form the reference was written in.
	Form    string `json:"form"`
	Domain  string `json:"domain,omitempty"`
	Topic   string `json:"topic,omitempty"`
	Section string `json:"section,omitempty"`
	Title   string `json:"title,omitempty"`
	// Tokens is the measured cost of what the reference loads; 0 when it
	// does not resolve.
	Tokens int `json:"tokens"`
	// Counted says whether Tokens is part of the total: a topic referred
	// to twice counts once.
	Counted  bool   `json:"counted"`
	Resolved bool   `json:"resolved"`
	Path     string `json:"path,omitempty"`
	// Line is the zero-based line of the reference in the document.
	Line int `json:"line"`
	// Message says why the reference does not resolve.
	Message string `json:"message,omitempty"`
}

// TopicCost is what the references of a document to one topic cost.
type TopicCost struct {
	Domain string `json:"domain,omitempty"`
	Topic  string `json:"topic"`
	Title  string `json:"title,omitempty"`
	Path   string `json:"path"`
	// Tokens is the part of the document's total the topic accounts for:
	// the topic when loaded whole, else the sections named.
	Tokens int `json:"tokens"`
	// References is the number of references to the topic or its
	// sections.
	References int `json:"references"`
}

// DocumentCostResponse is the references of a document and their total
// cost: the totals, the cost per topic, and the first 500 references with
// a count of the others. A document that cannot be read gives no items
// and a warning of code unreadable-document.
type DocumentCostResponse struct {
	URI   string `json:"uri"`
	Total int    `json:"total"`
	// References is the number of references, listed or not; Unresolved
	// the number of those that do not resolve.
	References int `json:"references"`
	Unresolved int `json:"unresolved"`
	// Topics is the cost of each topic the document loads, in order of
	// first reference.
	Topics []TopicCost        `json:"topics"`
	Items  []DocumentCostItem `json:"items"`
	// Omitted is the number of references not listed in Items.
	Omitted int `json:"omitted"`
	// Tokenizer names the encoding every token figure is counted in.
	Tokenizer string    `json:"tokenizer"`
	Warnings  []Warning `json:"warnings"`
}

// DocumentCost returns the references of a document, as the editor has it
// when it is open, and what loading them costs.
func (o *Ops) DocumentCost(ctx context.Context, req DocumentCostRequest) (DocumentCostResponse, error) {
	if err := require(field{"uri", req.URI}); err != nil {
		return DocumentCostResponse{}, err
	}
	return withHeavy(o, ctx, func(ctx context.Context) (DocumentCostResponse, error) {
		res := DocumentCostResponse{URI: req.URI, Topics: []TopicCost{}, Items: []DocumentCostItem{}, Warnings: []Warning{}}
		snap := o.opts.Snapshot()
		lib := snap.Library()
		res.Tokenizer = lib.Counter().Name()
		f, err := o.document(ctx, snap, req.URI)
		if err != nil {
			res.Warnings = append(res.Warnings, Warning{Message: err.Error(), Code: "unreadable-document"})
			return res, nil
		}
		s, err := o.costs.Summary(ctx, lib, f)
		if err != nil {
			return DocumentCostResponse{}, err
		}
		res.Total, res.References, res.Unresolved, res.Omitted = s.Total, s.References, s.Unresolved, s.OmittedItems
		for _, tc := range s.Topics {
			t := tc.Topic
			res.Topics = append(res.Topics, TopicCost{Domain: t.Domain, Topic: t.Name, Title: t.Meta.Title, Path: t.Path, Tokens: tc.Tokens, References: tc.References})
		}
		for _, rc := range s.Items {
			it := DocumentCostItem{
				Reference: refcost.Text(rc.Ref, rc.Target),
				Form:      rc.Ref.Form.String(),
				Domain:    rc.Ref.Domain,
				Topic:     rc.Ref.Topic,
				Section:   rc.Ref.Section,
				Tokens:    rc.Tokens,
				Counted:   rc.Counted,
				Resolved:  rc.Target.OK(),
				Line:      f.Doc.Lines.LineOf(rc.Ref.Span.Start),
				Message:   rc.Target.Message,
			}
			if t := rc.Target.Topic; t != nil {
				it.Domain, it.Topic, it.Title, it.Path = t.Domain, t.Name, t.Meta.Title, t.Path
				if rc.Target.Section != nil {
					it.Section = rc.Target.Section.Name
				}
			}
			if rc.Ref.Form == refs.PathForm && rc.Target.Topic == nil {
				it.Topic = ""
			}
			res.Items = append(res.Items, it)
		}
		return res, nil
	})
}

// CostSummary prices the references of f, a document of lib (the library
// of the snapshot the caller's request took), through the cache the cost
// operations share: once per library version and document text.
func (o *Ops) CostSummary(ctx context.Context, lib *library.Snapshot, f *library.File) (*refcost.Summary, error) {
	return withHeavy(o, ctx, func(ctx context.Context) (*refcost.Summary, error) {
		return o.costs.Summary(ctx, lib, f)
	})
}

// document returns the document named by a URI or absolute path: the
// editor's text when open, the library's copy or the disk otherwise.
func (o *Ops) document(ctx context.Context, snap Snapshot, raw string) (*library.File, error) {
	path, err := pathOf(raw)
	if err != nil {
		return nil, err
	}
	lib := snap.Library()
	f, known := lib.File(path)
	text, _, open := snap.Overlay(path)
	switch {
	case known && f.Doc != nil && (!open || f.Doc.SameString(text)):
		return f, nil
	case open:
		return lib.ParseFile(path, []byte(text), f), nil
	}
	data, err := lib.ReadDocument(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, discover.UnwrapPath(err))
	}
	if document.IsBinary(data) {
		return nil, fmt.Errorf("%s is not a text file", path)
	}
	return lib.ParseFile(path, data, f), nil
}

// pathOf converts a file URI or an absolute path into a cleaned absolute
// path.
func pathOf(raw string) (string, error) {
	if filepath.IsAbs(raw) {
		return filepath.Clean(raw), nil
	}
	u, err := uri.Parse(raw)
	if err != nil {
		return "", invalidf("invalid uri %q: %v", raw, err)
	}
	if !u.IsFile() {
		return "", invalidf("not a file uri: %s", raw)
	}
	p := u.FsPath()
	if p == "" || !filepath.IsAbs(p) {
		return "", invalidf("not an absolute file uri: %s", raw)
	}
	return filepath.Clean(p), nil
}
