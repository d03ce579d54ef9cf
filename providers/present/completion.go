package present

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// Item is a completion item as an editor lists it.
type Item struct {
	// Label is the text shown and inserted.
	Label string
	// Detail is shown with the focused item.
	Detail string
	// Description is shown in every row, after the label.
	Description string
	// SortText orders the items.
	SortText string
	// Doc is the item's markdown documentation, or "" for none.
	Doc string
}

// DomainItem is the completion item of a domain: its topic count and
// cost, documented by its hover when it has an index.
func DomainItem(lib *library.Snapshot, d *library.Domain) Item {
	it := Item{
		Label:       d.Name,
		Detail:      fmt.Sprintf("%d topics · %s", len(d.Topics), Tokens(d.Tokens())),
		Description: fmt.Sprintf("%d topics", len(d.Topics)),
		SortText:    d.Name,
	}
	if d.Index != nil {
		it.Doc = domainHover(lib, d)
	}
	return it
}

// TopicItem is the completion item of a topic: its name, with title and
// measured cost as detail and its type and cost in every row;
// always-load topics sort first. It carries TopicDoc when withDoc is
// true.
func TopicItem(t *library.Topic, withDoc bool) Item {
	sort := "1" + t.Name
	if t.AlwaysLoad() {
		sort = "0" + t.Name
	}
	desc := Tokens(t.Tokens)
	if typ := t.Meta.Type; typ != "" {
		desc = typ + " · " + desc
	}
	it := Item{
		Label:       t.Name,
		Detail:      Title(t) + " · " + Tokens(t.Tokens),
		Description: desc,
		SortText:    sort,
	}
	if withDoc {
		it.Doc = TopicDoc(t)
	}
	return it
}

// TopicDoc is a topic's documentation in completion lists: its summary
// and its loading facts.
func TopicDoc(t *library.Topic) string {
	var b strings.Builder
	if s := summary(t); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	facts := slices.DeleteFunc([]string{t.Meta.Type, t.Meta.LoadingStrategy, Tokens(t.Tokens)}, func(s string) bool { return s == "" })
	b.WriteString(strings.Join(facts, " · "))
	if len(t.Sections) > 0 {
		fmt.Fprintf(&b, " · %d sections", len(t.Sections))
	}
	return b.String()
}

// SectionItem is the completion item of the i-th section of a topic: its
// measured and declared cost, in document order, documented by its
// keywords.
func SectionItem(i int, sec *library.Section) Item {
	detail := Tokens(sec.Tokens)
	if sec.Declared > 0 {
		detail += fmt.Sprintf(" · %s declared", numfmt.Thousands(sec.Declared))
	}
	it := Item{
		Label:       sec.Name,
		Detail:      detail,
		Description: Tokens(sec.Tokens),
		SortText:    fmt.Sprintf("%04d", i),
	}
	if len(sec.Keywords) > 0 {
		it.Doc = "Keywords: " + escape(strings.Join(sec.Keywords, ", "))
	}
	return it
}

// BestTopics picks up to n topics matching prefix, ignoring case:
// always-load topics (starting with the prefix, when there is one) first,
// then names starting with the prefix, then names containing it, then
// names holding its characters in order; within a tier, in the order
// given.
func BestTopics(topics []*library.Topic, prefix string, n int) []*library.Topic {
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
