package present

import (
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/numfmt"
	"github.com/ctxls/ctxls/providers/refcost"
)

// Hover renders the hover of a resolved reference: the topic, section or
// domain it loads with what that costs, or why it does not resolve and
// what was meant. It reports false for text that is not a reference.
func Hover(lib *library.Snapshot, t library.Target) (string, bool) {
	switch {
	case t.Kind == library.NotAReference:
		return "", false
	case t.Kind == library.DomainTarget && t.Domain != nil:
		return domainHover(lib, t.Domain), true
	case t.Topic != nil && (t.OK() || t.Failed == library.PartSection):
		md := topicHover(lib, t.Topic, t.Section)
		if !t.OK() {
			md = fmt.Sprintf("⚠ %s\n\n%s", escape(t.Message), md)
		}
		return md, true
	}
	md := "⚠ " + escape(t.Message)
	if len(t.Candidates) > 0 {
		md += "\n\nDid you mean " + quoteList(t.Candidates) + "?"
	}
	return md, true
}

// quoteList renders names as a comma-separated list of code spans.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

// topicHover renders the hover of a topic, or of its section sec when sec
// is not nil: title, key, type, loading strategy and measured and
// declared cost, the summary, the level-two sections with their costs,
// tags, cross-domain triggers with what loading them too costs, and the
// topic's path.
func topicHover(lib *library.Snapshot, t *library.Topic, sec *library.Section) string {
	var b strings.Builder
	if sec != nil {
		fmt.Fprintf(&b, "**%s › %s** · %s\n\n", escape(Title(t)), escape(sec.Name), Tokens(sec.Tokens))
	}
	fmt.Fprintf(&b, "**%s** `%s`\n\n", escape(Title(t)), Key(t))
	line := []string{}
	if t.Meta.Type != "" {
		line = append(line, t.Meta.Type)
	}
	if t.Meta.LoadingStrategy != "" {
		line = append(line, t.Meta.LoadingStrategy)
	}
	price := Tokens(t.Tokens) + " measured"
	if d := t.Declared(); d > 0 {
		price += fmt.Sprintf(" · %s declared", numfmt.Thousands(d))
	}
	line = append(line, price)
	b.WriteString(strings.Join(line, " · "))
	b.WriteString("\n\n")
	if s := summary(t); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	if len(t.Sections) > 0 {
		b.WriteString("| Section | Tokens |\n|---|---:|\n")
		for _, s := range t.Sections {
			if s.Level != 2 {
				continue
			}
			name := escape(s.Name)
			if sec != nil && strings.EqualFold(s.Name, sec.Name) {
				name = "**" + name + "**"
			}
			tokens := numfmt.Thousands(s.Tokens)
			if s.Declared > 0 {
				tokens += fmt.Sprintf(" (%s declared)", numfmt.Thousands(s.Declared))
			}
			fmt.Fprintf(&b, "| %s | %s |\n", strings.ReplaceAll(name, "|", "\\|"), tokens)
		}
		b.WriteString("\n")
	}
	if len(t.Meta.Tags) > 0 {
		fmt.Fprintf(&b, "Tags: %s\n\n", escape(strings.Join(t.Meta.Tags, ", ")))
	}
	if len(t.Meta.CrossDomainTriggers) > 0 {
		total, triggers := refcost.WithTriggers(lib, t)
		names := make([]string, 0, len(t.Meta.CrossDomainTriggers))
		for _, id := range t.Meta.CrossDomainTriggers {
			names = append(names, "`"+id+"`")
		}
		fmt.Fprintf(&b, "Cross-domain triggers: %s\n\n", strings.Join(names, ", "))
		fmt.Fprintf(&b, "Loading it with its %d trigger%s costs %s\n\n", len(triggers), numfmt.Plural(len(triggers)), Tokens(total))
	}
	fmt.Fprintf(&b, "`%s`", RelPath(lib, t.Path))
	return b.String()
}

// domainHover renders the hover of a domain: its topics and their cost,
// the always-load topics and the index.
func domainHover(lib *library.Snapshot, d *library.Domain) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** domain · %d topics · %s\n\n", escape(d.Name), len(d.Topics), Tokens(d.Tokens()))
	var always []string
	alwaysTok := 0
	for _, t := range d.Topics {
		if t.AlwaysLoad() {
			always = append(always, "`"+t.Name+"`")
			alwaysTok += t.Tokens
		}
	}
	if len(always) > 0 {
		fmt.Fprintf(&b, "Always loaded: %s (%s)\n\n", strings.Join(always, ", "), Tokens(alwaysTok))
	}
	if d.Index != nil {
		fmt.Fprintf(&b, "Index: **%s** · %s\n\n", escape(Title(d.Index)), Tokens(d.Index.Tokens))
		fmt.Fprintf(&b, "`%s`", RelPath(lib, d.Index.Path))
	}
	return strings.TrimSpace(b.String())
}
