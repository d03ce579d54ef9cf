package contextapi

import (
	"context"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// FileEntry is one file of a domain index.
type FileEntry struct {
	ID              string `json:"id"`
	Path            string `json:"path"`
	Title           string `json:"title,omitempty"`
	Type            string `json:"type,omitempty"`
	LoadingStrategy string `json:"loadingStrategy,omitempty"`
	Description     string `json:"description,omitempty"`
	EstimatedTokens int    `json:"estimatedTokens,omitempty"`
	MeasuredTokens  int    `json:"measuredTokens"`
	// Listed says the index's indexedFiles names the file; Exists says the
	// file is there.
	Listed bool `json:"listed"`
	Exists bool `json:"exists"`
}

// WorkflowEntry is a loading workflow of an index: an ordered list or a
// table row that names files for a task.
type WorkflowEntry struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// DetectionHint is a set of code patterns that call for files.
type DetectionHint struct {
	Name     string   `json:"name"`
	Category string   `json:"category"`
	Patterns []string `json:"patterns"`
	Files    []string `json:"files"`
}

// DomainIndex is the structured index of a domain.
type DomainIndex struct {
	Domain         string          `json:"domain"`
	Title          string          `json:"title,omitempty"`
	Path           string          `json:"path,omitempty"`
	Files          []FileEntry     `json:"files"`
	Workflows      []WorkflowEntry `json:"workflows"`
	DetectionHints []DetectionHint `json:"detectionHints"`
	Warnings       []Warning       `json:"warnings"`
}

// DomainIndex returns a domain's index as data: every file (those its
// index.md lists and those it does not), the workflows its tables and
// ordered lists describe, and the detection hints of its detection rules.
func (p *Provider) DomainIndex(ctx context.Context, domain string) (DomainIndex, error) {
	if err := checkName(domain); err != nil {
		return DomainIndex{}, err
	}
	lib := p.library()
	dom, ok := lib.Domain(domain)
	if !ok || strings.ContainsAny(domain, `/\`) {
		return DomainIndex{Domain: domain, Files: []FileEntry{}, Workflows: []WorkflowEntry{}, DetectionHints: []DetectionHint{},
			Warnings: []Warning{notFoundDomain(lib, domain)}}, nil
	}
	v := p.cachedCatalog("index:"+domain, dom.Topics, func() any { return p.buildIndex(lib, dom) }).(DomainIndex)
	v.Files = slices.Clone(v.Files)
	v.Workflows = slices.Clone(v.Workflows)
	v.DetectionHints = slices.Clone(v.DetectionHints)
	v.Warnings = slices.Clone(v.Warnings)
	return v, nil
}

func (p *Provider) buildIndex(lib *library.Snapshot, dom *library.Domain) DomainIndex {
	di := DomainIndex{Domain: dom.Name, Files: []FileEntry{}, Workflows: []WorkflowEntry{}, DetectionHints: []DetectionHint{}, Warnings: []Warning{}}
	byID := map[string]int{}
	addTopic := func(t *library.Topic, listed bool) {
		if i, ok := byID[t.ID]; ok {
			di.Files[i].Listed = di.Files[i].Listed || listed
			return
		}
		byID[t.ID] = len(di.Files)
		di.Files = append(di.Files, FileEntry{ID: t.ID, Path: t.RelPath, Title: t.Meta.Title, Type: t.Meta.Type,
			LoadingStrategy: t.Meta.LoadingStrategy, EstimatedTokens: t.Declared(), MeasuredTokens: t.Tokens, Listed: listed, Exists: true})
	}
	idx := dom.Index
	if idx == nil {
		di.Warnings = append(di.Warnings, warnf(WarnFileNotFound, "domain %q has no index.md; listing its files", dom.Name))
	} else {
		di.Title, di.Path = idx.Meta.Title, idx.Path
		for _, f := range idx.Meta.IndexedFiles {
			id := f.ID
			if id == "" {
				id = topicID(dom.Name, f.Path)
			}
			if t, ok := lib.Topic(strings.TrimSuffix(id, ".md")); ok {
				addTopic(t, true)
				continue
			}
			byID[id] = len(di.Files)
			di.Files = append(di.Files, FileEntry{ID: id, Path: f.Path, Type: f.Type, LoadingStrategy: f.LoadingStrategy, Listed: true})
			di.Warnings = append(di.Warnings, warnf(WarnUnresolved, "index lists %s, which does not exist", id))
		}
	}
	for _, t := range dom.Topics {
		addTopic(t, false)
	}
	if idx != nil {
		descs, flows := indexProse(p.current(lib), dom.Name, idx)
		for i := range di.Files {
			if d, ok := descs[di.Files[i].ID]; ok {
				di.Files[i].Description = d
			}
		}
		di.Workflows = append(di.Workflows, flows...)
	}
	for _, r := range p.current(lib).detection(dom.Name).rules {
		h := DetectionHint{Name: r.name, Category: r.category, Patterns: []string{}, Files: slices.Clone(r.files)}
		if h.Files == nil {
			h.Files = []string{}
		}
		for _, pt := range r.patterns {
			if !slices.Contains(h.Patterns, pt.text) {
				h.Patterns = append(h.Patterns, pt.text)
			}
		}
		di.DetectionHints = append(di.DetectionHints, h)
	}
	return di
}

// indexProse reads descriptions and workflows from an index's body: a
// line or table row naming one file describes it; a table row whose first
// cell names no file and whose other cells do is a workflow; so is an
// ordered list that names files.
func indexProse(d *derived, domain string, idx *library.Topic) (map[string]string, []WorkflowEntry) {
	doc := idx.Doc
	descs := map[string]string{}
	var flows []WorkflowEntry
	resolveAll := func(s string) []string {
		var ids []string
		for _, m := range reMarkdown.FindAllString(s, -1) {
			if id, ok := d.resolveFile(domain, m); ok && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		return ids
	}
	tableLines := map[int]bool{}
	for _, tb := range doc.Tables {
		for i := range tb.Rows {
			tableLines[tb.Line+2+i] = true
		}
		tableLines[tb.Line] = true
		tableLines[tb.Line+1] = true
		for _, row := range tb.Rows {
			if len(row) < 2 {
				continue
			}
			first := resolveAll(row[0].Text)
			var rest []string
			var others []string
			for _, c := range row[1:] {
				if ids := resolveAll(c.Text); len(ids) > 0 {
					rest = append(rest, ids...)
				} else if t := plainCell(c.Text); t != "" {
					others = append(others, t)
				}
			}
			switch {
			case len(first) == 1 && len(others) > 0:
				if _, ok := descs[first[0]]; !ok {
					descs[first[0]] = strings.Join(others, " — ")
				}
			case len(first) == 0 && len(rest) > 0 && !strings.Contains(row[0].Text, "`"):
				// A first cell of code is a detection hint, not a task.
				flows = append(flows, WorkflowEntry{Name: plainCell(row[0].Text), Files: rest})
			}
		}
	}
	// Ordered lists: "1. `x.md`: what it is for".
	var cur *WorkflowEntry
	heading, headed := "", ""
	body := doc.Lines
	first := doc.Lines.LineOf(doc.Body.Start)
	for n := first; n < body.Count(); n++ {
		if tableLines[n] {
			continue
		}
		if _, in := doc.InFence(body.Start(n)); in {
			continue
		}
		line := strings.TrimSpace(string(body.Line(n)))
		if strings.HasPrefix(line, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
			cur = nil
			// "### `x.md`": the first line of prose below describes x.
			headed = ""
			if ids := resolveAll(heading); len(ids) == 1 {
				headed = ids[0]
			}
			continue
		}
		if headed != "" && line != "" && line != "---" {
			if _, ok := descs[headed]; !ok {
				if d := stripLabel(line); len(splitWords(d)) > 0 {
					descs[headed] = d
				}
			}
			headed = ""
		}
		ids := resolveAll(line)
		if len(ids) == 1 {
			if ms := reMarkdown.FindAllStringIndex(line, -1); len(ms) == 1 {
				d := strings.Trim(line[ms[0][1]:], "`*_:-–— .,;")
				if len(splitWords(d)) > 0 {
					if _, ok := descs[ids[0]]; !ok {
						descs[ids[0]] = d
					}
				}
			}
		}
		continued := cur != nil && strings.HasPrefix(string(body.Line(n)), " ")
		if (isOrdered(line) || continued) && len(ids) > 0 {
			if cur == nil {
				flows = append(flows, WorkflowEntry{Name: heading})
				cur = &flows[len(flows)-1]
			}
			for _, id := range ids {
				if !slices.Contains(cur.Files, id) {
					cur.Files = append(cur.Files, id)
				}
			}
		} else if line == "" || !isOrdered(line) && !strings.HasPrefix(string(body.Line(n)), " ") {
			if line != "" {
				cur = nil
			}
		}
	}
	return descs, flows
}

// isOrdered reports whether a line starts an ordered-list item.
func isOrdered(line string) bool {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')')
}

// stripLabel removes emphasis and a leading "Purpose:"-style label.
func stripLabel(line string) string {
	line = strings.NewReplacer("**", "", "__", "").Replace(line)
	line = strings.TrimLeft(line, "-*+ ")
	if i := strings.Index(line, ":"); i > 0 && i < 20 && !strings.ContainsAny(line[:i], " `") {
		line = strings.TrimSpace(line[i+1:])
	}
	return line
}
