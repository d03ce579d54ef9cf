package refcost

import (
	"context"
	"fmt"

	"github.com/ctxls/ctxls/providers/library"
)

// Summary is what loading the references of a document costs, in a size
// bounded whatever the number of references: the totals, the cost per
// topic, and the first references and distinct reference texts up to a
// limit, with a count of the rest.
type Summary struct {
	// Total is the document's total, repeats counted once.
	Total int
	// References is the number of references priced.
	References int
	// Unresolved is the number of references that do not resolve.
	Unresolved int
	// Counted is the number of references that count in Total: distinct
	// topics and sections loaded.
	Counted int
	// Topics is the cost of each topic loaded, in order of first reference.
	Topics []TopicCost
	// Items are the first references, at most the limit, resolved without
	// close names for failures; OmittedItems counts the rest.
	Items        []Item
	OmittedItems int
	// Keys are the distinct references in key form (see Text), in order of
	// first appearance, at most the limit; OmittedKeys counts the rest.
	Keys        []string
	OmittedKeys int
}

// TopicCost is what the references to one topic cost.
type TopicCost struct {
	Topic *library.Topic
	// Tokens is the part of the document's total this topic accounts for:
	// the topic when loaded whole, else the sections named.
	Tokens int
	// References is the number of references to the topic or its sections.
	References int
}

// brief is what pricing keeps of one resolved reference.
type brief struct {
	topic   *library.Topic
	section *library.Section
	domain  *library.Domain
	kind    library.TargetKind
}

// summarize prices the references of f against lib, leaving out text that
// only looks like a reference and counting a topic or section referred to
// twice once, keeping at most limit items and limit keys. It resolves each reference
// once without looking for close names (the listed ones twice, for their
// message), holds a few words per reference and each distinct key while
// it works, and stops with the context's error when ctx is done.
func summarize(ctx context.Context, lib *library.Snapshot, f *library.File, limit int) (*Summary, error) {
	targets := make([]brief, f.Refs.Len())
	whole := map[*library.Topic]bool{}
	for i, r := range f.Refs.All() {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("price %s: %w", f.Path, err)
			}
		}
		t := lib.ResolveBrief(f, r)
		targets[i] = brief{topic: t.Topic, section: t.Section, domain: t.Domain, kind: t.Kind}
		if t.Topic != nil && t.Section == nil && t.OK() {
			whole[t.Topic] = true
		}
	}
	s := &Summary{}
	type sectionKey struct {
		topic   *library.Topic
		section *library.Section
	}
	seen := map[sectionKey]bool{}
	topicAt := map[*library.Topic]int{}
	keys := map[string]bool{}
	for i, r := range f.Refs.All() {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("price %s: %w", f.Path, err)
			}
		}
		b := targets[i]
		if b.kind == library.NotAReference {
			continue
		}
		s.References++
		ok := b.kind == library.TopicTarget || b.kind == library.SectionTarget || b.kind == library.DomainTarget
		it := Item{Ref: r}
		if !ok {
			s.Unresolved++
		}
		if ok && b.topic != nil {
			it.Tokens = b.topic.Tokens
			if b.section != nil {
				it.Tokens = b.section.Tokens
			}
			k := sectionKey{b.topic, b.section}
			if !seen[k] && (b.section == nil || !whole[b.topic]) {
				seen[k] = true
				it.Counted = true
				s.Counted++
				s.Total += it.Tokens
			}
			j, known := topicAt[b.topic]
			if !known {
				j = len(s.Topics)
				topicAt[b.topic] = j
				s.Topics = append(s.Topics, TopicCost{Topic: b.topic})
			}
			s.Topics[j].References++
			if it.Counted {
				s.Topics[j].Tokens += it.Tokens
			}
		}
		it.Target = library.Target{Kind: b.kind, Topic: b.topic, Section: b.section, Domain: b.domain}
		if len(s.Items) < limit {
			// Only what is listed is resolved again, for its message.
			it.Target = lib.ResolveBrief(f, r)
			s.Items = append(s.Items, it)
		} else {
			s.OmittedItems++
		}
		if text := Text(r, it.Target); !keys[text] {
			keys[text] = true
			if len(s.Keys) < limit {
				s.Keys = append(s.Keys, text)
			} else {
				s.OmittedKeys++
			}
		}
	}
	return s, nil
}
