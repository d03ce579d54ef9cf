package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/present"
	"github.com/ctxls/ctxls/providers/refs"
)

// eagerDocs is the number of items up to which completion items carry
// their documentation; longer lists get it on completionItem/resolve.
const eagerDocs = 40

// completionData is what an item carries to completionItem/resolve.
type completionData struct {
	Topic string `json:"topic,omitempty"`
}

// Completion offers domains, topics of a domain and sections of a topic,
// depending on what refs.CompletionAt says is being typed.
func (s *Server) Completion(ctx context.Context, params *protocol.CompletionParams) (protocol.CompletionResult, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off, err := v.offset(params.Position)
	if err != nil {
		return nil, err
	}
	if l, ok := s.frontmatterCompletion(ctx, v, off); ok {
		return l, nil
	}
	if l, ok := s.memoryCompletion(ctx, v, off); ok {
		return l, nil
	}
	c, ok := refs.CompletionAt(v.doc, off, refOptions(v.lib))
	if !ok {
		return &protocol.CompletionList{Items: []protocol.CompletionItem{}}, nil
	}
	rng := v.rng(c.Replace)
	s.mu.Lock()
	shared := s.caps.editRange
	s.mu.Unlock()
	// Every item replaces the same range: a client that takes it once for
	// the list gets a third of the bytes to read.
	edit := &rng
	if shared {
		edit = nil
	}
	var items []protocol.CompletionItem
	incomplete := false
	switch c.Kind {
	case refs.CompleteDomain:
		domains := v.lib.Domains()
		items = make([]protocol.CompletionItem, 0, len(domains))
		for _, d := range domains {
			items = append(items, completionItem(present.DomainItem(v.lib, d), protocol.CompletionItemKindModule, edit))
		}
	case refs.CompleteTopic:
		d, ok := v.lib.Domain(c.Domain)
		if !ok {
			break
		}
		topics := d.Topics
		if len(topics) > maxCompletionItems {
			// A huge domain: send the best matches of what is typed and let
			// the client ask again as the user types on.
			topics = present.BestTopics(topics, c.Prefix, maxCompletionItems)
			incomplete = true
		}
		eager := len(topics) <= eagerDocs
		items = make([]protocol.CompletionItem, 0, len(topics))
		for _, t := range topics {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			items = append(items, topicItem(t, edit, eager))
		}
	case refs.CompleteSection:
		t, ok := v.lib.Topic(c.Domain + "/" + c.Topic)
		if !ok {
			break
		}
		items = make([]protocol.CompletionItem, 0, len(t.Sections))
		for i := range t.Sections {
			items = append(items, completionItem(present.SectionItem(i, &t.Sections[i]), protocol.CompletionItemKindField, edit))
		}
	}
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	list := &protocol.CompletionList{IsIncomplete: incomplete, Items: items}
	if shared {
		list.ItemDefaults = &protocol.CompletionItemDefaults{EditRange: &rng}
	}
	return list, nil
}

// frontmatterCompletion completes the frontmatter keys of an agent file,
// their values, and the skill names of a subagent's skills.
func (s *Server) frontmatterCompletion(ctx context.Context, v *view, off int) (*protocol.CompletionList, bool) {
	fileKind := s.agentKind(ctx, v)
	if fileKind == agentfiles.KindUnknown {
		return nil, false
	}
	var items []agentfiles.Completion
	var rep document.Span
	var ok bool
	switch fileKind {
	case agentfiles.KindMCP:
		rel, _ := fsguard.Rel(v.lib.Dir(), v.path)
		items, rep, ok = agentfiles.CompleteMCP(rel, v.doc.Text, off)
	case agentfiles.KindOpenCodeConfig:
		if set := s.agentSet(ctx, v.ws); set != nil {
			items, rep, ok = set.CompleteOpenCode(v.doc.Text, off, maxCompletionItems)
		}
	default:
		items, rep, ok = s.agentSet(ctx, v.ws).CompleteFrontmatter(fileKind, v.doc.Text, off)
	}
	if !ok {
		return nil, false
	}
	rng := v.rng(rep)
	out := make([]protocol.CompletionItem, 0, len(items))
	for i, it := range items {
		kind := protocol.CompletionItemKindProperty
		doc := it.Doc
		if it.Value {
			kind = protocol.CompletionItemKindValue
		} else if f, ok := agentfiles.FieldNamed(fileKind, it.Label); ok {
			doc = present.FieldDoc(f)
		}
		item := protocol.CompletionItem{
			Label:    it.Label,
			Kind:     kind,
			Detail:   protocol.NewOptional(it.Detail),
			SortText: protocol.NewOptional(fmt.Sprintf("%04d", i)), // the schema's order
			TextEdit: &protocol.TextEdit{Range: rng, NewText: it.Insert},
		}
		if doc != "" {
			item.Documentation = markup(doc)
		}
		out = append(out, item)
	}
	return &protocol.CompletionList{Items: out}, true
}

// agentKind is the kind of agent file the view shows: the agent files'
// kind of it, which knows what the project's settings add, else what its
// path says.
func (s *Server) agentKind(ctx context.Context, v *view) agentfiles.Kind {
	rel, ok := fsguard.Rel(v.lib.Dir(), v.path)
	if !ok {
		return agentfiles.KindUnknown
	}
	if set := s.agentSet(ctx, v.ws); set != nil {
		if f, ok := set.File(v.path); ok {
			return f.Kind
		}
	}
	return agentfiles.Classify(rel, nil)
}

// maxCompletionItems bounds the topics one completion answer carries.
const maxCompletionItems = 300

// topicItem is the completion item of a topic; without its documentation
// (eager false) it carries what completionItem/resolve needs to add it.
func topicItem(t *library.Topic, rng *protocol.Range, eager bool) protocol.CompletionItem {
	item := completionItem(present.TopicItem(t, eager), protocol.CompletionItemKindFile, rng)
	if !eager {
		item.Data = completionDataOf(t.ID)
	}
	return item
}

// completionItem converts an item replacing rng, or the list's default
// edit range when rng is nil.
func completionItem(it present.Item, kind protocol.CompletionItemKind, rng *protocol.Range) protocol.CompletionItem {
	item := protocol.CompletionItem{
		Label:        it.Label,
		Kind:         kind,
		Detail:       protocol.NewOptional(it.Detail),
		LabelDetails: &protocol.CompletionItemLabelDetails{Description: ptr(it.Description)},
		SortText:     protocol.NewOptional(it.SortText),
	}
	if rng != nil {
		item.TextEdit = &protocol.TextEdit{Range: *rng, NewText: it.Label}
	}
	if it.Doc != "" {
		item.Documentation = markup(it.Doc)
	}
	return item
}

// completionDataOf encodes completionData without reflection: long
// lists carry one per item.
func completionDataOf(id string) []byte {
	q, _ := json.Marshal(id) // a string always encodes
	return append(append([]byte(`{"topic":`), q...), '}')
}

// CompletionResolve adds the documentation left out of long lists.
func (s *Server) CompletionResolve(ctx context.Context, item *protocol.CompletionItem) (*protocol.CompletionItem, error) {
	if len(item.Data) == 0 || item.Documentation != nil {
		return item, nil
	}
	var data completionData
	if json.Unmarshal(item.Data, &data) != nil || data.Topic == "" {
		return item, nil
	}
	ws, err := s.workspaceCtx(ctx)
	if err != nil {
		return nil, err
	}
	if t, ok := ws.Snapshot().Library().Topic(data.Topic); ok {
		item.Documentation = markup(present.TopicDoc(t))
	}
	return item, nil
}

// markup wraps markdown text for the protocol.
func markup(md string) *protocol.MarkupContent {
	return &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}
}
