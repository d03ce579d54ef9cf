package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/providers/library"
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
	c, ok := refs.CompletionAt(v.doc, off, refOptions(v.lib))
	if !ok {
		return &protocol.CompletionList{Items: []protocol.CompletionItem{}}, nil
	}
	rng := v.rng(c.Replace)
	var items []protocol.CompletionItem
	incomplete := false
	switch c.Kind {
	case refs.CompleteDomain:
		for _, d := range v.lib.Domains() {
			item := protocol.CompletionItem{
				Label:  d.Name,
				Kind:   protocol.CompletionItemKindModule,
				Detail: protocol.NewOptional(fmt.Sprintf("%d topics · %s", len(d.Topics), tok(d.Tokens()))),
				LabelDetails: &protocol.CompletionItemLabelDetails{
					Description: ptr(fmt.Sprintf("%d topics", len(d.Topics))),
				},
				SortText: protocol.NewOptional(d.Name),
				TextEdit: &protocol.TextEdit{Range: rng, NewText: d.Name},
			}
			if d.Index != nil {
				item.Documentation = markup(domainMarkdown(v.lib, d))
			}
			items = append(items, item)
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
			topics = bestTopics(topics, c.Prefix, maxCompletionItems)
			incomplete = true
		}
		eager := len(topics) <= eagerDocs
		for _, t := range topics {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			items = append(items, topicItem(v.lib, t, rng, eager))
		}
	case refs.CompleteSection:
		t, ok := v.lib.Topic(c.Domain + "/" + c.Topic)
		if !ok {
			break
		}
		for i, sec := range t.Sections {
			detail := tok(sec.Tokens)
			if sec.Declared > 0 {
				detail += fmt.Sprintf(" · %s declared", thousands(sec.Declared))
			}
			item := protocol.CompletionItem{
				Label:  sec.Name,
				Kind:   protocol.CompletionItemKindField,
				Detail: protocol.NewOptional(detail),
				LabelDetails: &protocol.CompletionItemLabelDetails{
					Description: ptr(tok(sec.Tokens)),
				},
				SortText: protocol.NewOptional(fmt.Sprintf("%04d", i)), // document order
				TextEdit: &protocol.TextEdit{Range: rng, NewText: sec.Name},
			}
			if len(sec.Keywords) > 0 {
				item.Documentation = markup("Keywords: " + mdEscape(strings.Join(sec.Keywords, ", ")))
			}
			items = append(items, item)
		}
	}
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	return &protocol.CompletionList{IsIncomplete: incomplete, Items: items}, nil
}

// maxCompletionItems bounds the topics one completion answer carries.
const maxCompletionItems = 300

// bestTopics picks up to n topics matching prefix: always-load topics and
// names starting with the prefix first, then names containing it, then
// names holding its characters in order.
func bestTopics(topics []*library.Topic, prefix string, n int) []*library.Topic {
	p := strings.ToLower(prefix)
	var tiers [4][]*library.Topic
	for _, t := range topics {
		name := strings.ToLower(t.Name)
		switch {
		case p == "" && t.AlwaysLoad(), p != "" && strings.HasPrefix(name, p) && t.AlwaysLoad():
			tiers[0] = append(tiers[0], t)
		case strings.HasPrefix(name, p):
			tiers[1] = append(tiers[1], t)
		case strings.Contains(name, p):
			tiers[2] = append(tiers[2], t)
		case subsequence(p, name):
			tiers[3] = append(tiers[3], t)
		}
	}
	out := make([]*library.Topic, 0, n)
	for _, tier := range tiers {
		for _, t := range tier {
			if len(out) == n {
				return out
			}
			out = append(out, t)
		}
	}
	return out
}

// topicItem is the completion item of a topic: its name, with title and
// measured cost as detail; always-load topics sort first.
func topicItem(lib *library.Library, t *library.Topic, rng protocol.Range, eager bool) protocol.CompletionItem {
	sort := "1" + t.Name
	if t.AlwaysLoad() {
		sort = "0" + t.Name
	}
	item := protocol.CompletionItem{
		Label:    t.Name,
		Kind:     protocol.CompletionItemKindFile,
		Detail:   protocol.NewOptional(title(t) + " · " + tok(t.Tokens)),
		SortText: protocol.NewOptional(sort),
		TextEdit: &protocol.TextEdit{Range: rng, NewText: t.Name},
	}
	// The cost shows in every row of the list, not only in the focused
	// item's detail.
	desc := tok(t.Tokens)
	if typ := t.Meta.Type; typ != "" {
		desc = typ + " · " + desc
	}
	item.LabelDetails = &protocol.CompletionItemLabelDetails{Description: ptr(desc)}
	if eager {
		item.Documentation = markup(topicDoc(t))
	} else {
		item.Data = completionDataOf(t.ID)
	}
	return item
}

// completionDataOf encodes completionData without reflection: long
// lists carry one per item.
func completionDataOf(id string) []byte {
	q, _ := json.Marshal(id) // a string always encodes
	return append(append([]byte(`{"topic":`), q...), '}')
}

// topicDoc is a topic's documentation in completion lists: its summary
// and its loading facts.
func topicDoc(t *library.Topic) string {
	var b strings.Builder
	if s := summary(t); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	facts := slices.DeleteFunc([]string{t.Meta.Type, t.Meta.LoadingStrategy, tok(t.Tokens)}, func(s string) bool { return s == "" })
	b.WriteString(strings.Join(facts, " · "))
	if len(t.Sections) > 0 {
		fmt.Fprintf(&b, " · %d sections", len(t.Sections))
	}
	return b.String()
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
	if t, ok := ws.Library().Topic(data.Topic); ok {
		item.Documentation = markup(topicDoc(t))
	}
	return item, nil
}

// markup wraps markdown text for the protocol.
func markup(md string) *protocol.MarkupContent {
	return &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}
}
