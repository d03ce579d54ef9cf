package library

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/numfmt"
)

// Topic types and loading strategies a topic's frontmatter may declare.
var (
	types      = []string{"always", "framework", "reference", "pattern", "index", "detection"}
	strategies = []string{"always", "onDemand", "lazy"}
)

// requiredFields must be present in a topic's frontmatter.
var requiredFields = []string{"id", "domain", "title", "type", "estimatedTokens", "loadingStrategy"}

// knownFields are the frontmatter fields of topics, plus the fields
// commands and skills use.
var knownFields = map[string]bool{
	"id": true, "domain": true, "title": true, "type": true, "estimatedTokens": true,
	"loadingStrategy": true, "version": true, "lastUpdated": true, "maintainedFor": true,
	"sections": true, "tags": true, "crossDomainTriggers": true, "detectionTriggers": true,
	"indexedFiles": true,
}

// Metadata is a topic's effective metadata: frontmatter fields where given,
// derived values (path, first heading, footer, headings) elsewhere.
type Metadata struct {
	ID                  string         `json:"id"`
	Domain              string         `json:"domain"`
	Title               string         `json:"title"`
	Type                string         `json:"type"`
	EstimatedTokens     int            `json:"estimatedTokens,omitempty"`
	LoadingStrategy     string         `json:"loadingStrategy"`
	Version             string         `json:"version,omitempty"`
	LastUpdated         string         `json:"lastUpdated,omitempty"`
	MaintainedFor       string         `json:"maintainedFor,omitempty"`
	Sections            []SectionMeta  `json:"sections,omitempty"`
	Tags                []string       `json:"tags,omitempty"`
	CrossDomainTriggers []string       `json:"crossDomainTriggers,omitempty"`
	DetectionTriggers   []string       `json:"detectionTriggers,omitempty"`
	IndexedFiles        []IndexedFile  `json:"indexedFiles,omitempty"`
	Extra               map[string]any `json:"extra,omitempty"`
	// declared lists the fields present in the frontmatter: a dozen at
	// most, and a slice of shared key strings costs a fraction of a map
	// in a model that keeps one per topic.
	declared []string
}

// declares reports whether the frontmatter sets field.
func (m *Metadata) declares(field string) bool { return slices.Contains(m.declared, field) }

// SectionMeta is a section as the frontmatter declares it.
type SectionMeta struct {
	Name            string   `json:"name" yaml:"name"`
	EstimatedTokens int      `json:"estimatedTokens,omitempty" yaml:"estimatedTokens"`
	Keywords        []string `json:"keywords,omitempty" yaml:"keywords"`
}

// IndexedFile is one entry of an index's indexedFiles list.
type IndexedFile struct {
	ID              string `json:"id" yaml:"id"`
	Path            string `json:"path" yaml:"path"`
	Type            string `json:"type,omitempty" yaml:"type"`
	LoadingStrategy string `json:"loadingStrategy,omitempty" yaml:"loadingStrategy"`
}

var (
	semverRE = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	wordRE   = regexp.MustCompile(`[A-Za-z0-9]+`)
)

// metaProblem is a frontmatter problem found while decoding.
type metaProblem struct {
	code    string
	span    document.Span
	message string
}

// decodeMeta reads the frontmatter of a topic file into m, recording what it
// declares, and returns the problems found. requireAll is false for files
// outside a domain (root files) and for non-topic files.
func decodeMeta(doc *document.Doc, m *Metadata, required bool) []metaProblem {
	root := doc.Frontmatter.Root()
	if !root.Exists() {
		return nil
	}
	m.declared = make([]string, 0, root.Len())
	var probs []metaProblem
	bad := func(n document.Node, code, format string, args ...any) {
		probs = append(probs, metaProblem{code, doc.NodeSpan(n), fmt.Sprintf(format, args...)})
	}
	str := func(key string, n document.Node) (string, bool) {
		if n.Kind() != document.ScalarNode || n.Tag() == "!!null" {
			bad(n, codeInvalidValue, "%s must be a string", key)
			return "", false
		}
		return n.Value(), true
	}
	oneOf := func(key string, n document.Node, values []string) (string, bool) {
		s, ok := str(key, n)
		if ok && !slices.Contains(values, s) {
			bad(n, codeInvalidValue, "%s %q is not one of %s", key, s, strings.Join(values, ", "))
			return "", false
		}
		return s, ok
	}
	strList := func(key string, n document.Node) []string {
		if n.Kind() == document.ScalarNode && n.Tag() == "!!null" {
			return nil
		}
		return listOf(n, bad, key+" must be a list of strings", func(c document.Node) (string, bool) {
			if c.Kind() != document.ScalarNode {
				bad(c, codeInvalidValue, "%s entries must be strings", key)
				return "", false
			}
			return c.Value(), true
		})
	}
	for k, v := range root.Entries() {
		key := k.Value()
		if !slices.Contains(m.declared, key) {
			m.declared = append(m.declared, key)
		}
		switch key {
		case "id":
			if s, ok := str(key, v); ok {
				m.ID = s
			}
		case "domain":
			if s, ok := str(key, v); ok {
				m.Domain = s
			}
		case "title":
			if s, ok := str(key, v); ok {
				m.Title = s
			}
		case "type":
			if s, ok := oneOf(key, v, types); ok {
				m.Type = s
			}
		case "loadingStrategy":
			if s, ok := oneOf(key, v, strategies); ok {
				m.LoadingStrategy = s
			}
		case "estimatedTokens":
			n, err := strconv.Atoi(v.Value())
			if v.Kind() != document.ScalarNode || err != nil || n < 1 {
				bad(v, codeInvalidValue, "estimatedTokens must be a whole number of at least 1, not %q", v.Value())
			} else {
				m.EstimatedTokens = n
			}
		case "version":
			if s, ok := str(key, v); ok {
				if !semverRE.MatchString(s) {
					bad(v, codeInvalidValue, "version %q is not a semantic version such as 1.2.0 or 0.3.0-alpha", s)
				}
				m.Version = s
			}
		case "lastUpdated":
			if s, ok := str(key, v); ok {
				if _, err := time.Parse("2006-01-02", s); err != nil {
					bad(v, codeInvalidValue, "lastUpdated %q is not a date such as 2026-02-10", s)
				}
				m.LastUpdated = s
			}
		case "maintainedFor":
			if s, ok := str(key, v); ok {
				m.MaintainedFor = s
			}
		case "tags":
			m.Tags = strList(key, v)
		case "crossDomainTriggers":
			m.CrossDomainTriggers = strList(key, v)
		case "detectionTriggers":
			m.DetectionTriggers = strList(key, v)
		case "sections":
			m.Sections = decodeSections(v, bad)
		case "indexedFiles":
			m.IndexedFiles = decodeIndexed(v, bad)
		default:
			if m.Extra == nil {
				m.Extra = map[string]any{}
			}
			var val any
			_ = v.Decode(&val)
			m.Extra[key] = val
			if required {
				probs = append(probs, metaProblem{codeUnknownField, doc.NodeSpan(k), fmt.Sprintf("unknown frontmatter field %q (kept, but no tool reads it)", key)})
			}
		}
	}
	if required {
		var missing []string
		for _, f := range requiredFields {
			if !m.declares(f) {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			s := document.Span{Start: doc.Frontmatter.Span.Start, End: doc.Frontmatter.Span.Start + 3}
			probs = append(probs, metaProblem{CodeMissingField, s, fmt.Sprintf("frontmatter lacks required field%s %s", numfmt.Plural(len(missing)), strings.Join(missing, ", "))})
		}
	}
	return probs
}

// badFunc reports a problem of a frontmatter node: its code and message.
type badFunc func(n document.Node, code, format string, args ...any)

// listOf decodes a sequence node item by item. A node that is not a
// sequence is reported with message notList and gives nil; an item that
// item rejects (having reported why) is left out.
func listOf[T any](v document.Node, bad badFunc, notList string, item func(document.Node) (T, bool)) []T {
	if v.Kind() != document.SequenceNode {
		bad(v, codeInvalidValue, "%s", notList)
		return nil
	}
	var out []T
	for n := range v.Items() {
		if x, ok := item(n); ok {
			out = append(out, x)
		}
	}
	return out
}

func decodeSections(v document.Node, bad badFunc) []SectionMeta {
	return listOf(v, bad, "sections must be a list of {name, estimatedTokens, keywords}", func(item document.Node) (SectionMeta, bool) {
		var s SectionMeta
		if item.Kind() != document.MappingNode {
			bad(item, codeInvalidValue, "a section must be a mapping with name, estimatedTokens and keywords")
			return s, false
		}
		for k, val := range item.Entries() {
			switch k.Value() {
			case "name":
				s.Name = val.Value()
			case "estimatedTokens":
				n, err := strconv.Atoi(val.Value())
				if err != nil || n < 1 {
					bad(val, codeInvalidValue, "section estimatedTokens must be a whole number of at least 1, not %q", val.Value())
				} else {
					s.EstimatedTokens = n
				}
			case "keywords":
				if val.Kind() != document.SequenceNode {
					bad(val, codeInvalidValue, "section keywords must be a list of strings")
					continue
				}
				for kw := range val.Items() {
					s.Keywords = append(s.Keywords, kw.Value())
				}
			}
		}
		if s.Name == "" {
			bad(item, codeInvalidValue, "a section needs a name")
			return s, false
		}
		return s, true
	})
}

func decodeIndexed(v document.Node, bad badFunc) []IndexedFile {
	return listOf(v, bad, "indexedFiles must be a list of {id, path, type, loadingStrategy}", func(item document.Node) (IndexedFile, bool) {
		var f IndexedFile
		if item.Kind() != document.MappingNode || item.Decode(&f) != nil {
			bad(item, codeInvalidValue, "an indexedFiles entry must be a mapping with id, path, type and loadingStrategy")
			return f, false
		}
		if f.Type != "" && !slices.Contains(types, f.Type) {
			bad(item, codeInvalidValue, "indexedFiles type %q is not one of %s", f.Type, strings.Join(types, ", "))
		}
		if f.LoadingStrategy != "" && !slices.Contains(strategies, f.LoadingStrategy) {
			bad(item, codeInvalidValue, "indexedFiles loadingStrategy %q is not one of %s", f.LoadingStrategy, strings.Join(strategies, ", "))
		}
		return f, true
	})
}

// derive fills the fields the frontmatter left out from the path, the
// first heading, the headings and the footer (the seed's fallback rules).
func derive(m *Metadata, doc *document.Doc, domain, id, stem string) {
	if !m.declares("id") {
		m.ID = id
	}
	if !m.declares("domain") {
		m.Domain = domain
	}
	if m.Title == "" {
		m.Title = doc.Title()
		if m.Title == "" {
			m.Title = humanize(stem)
		}
	}
	if m.Type == "" {
		switch path.Base(stem) {
		case "index":
			m.Type = "index"
		case "context_detection":
			m.Type = "detection"
		default:
			m.Type = "reference"
		}
	}
	if m.LoadingStrategy == "" {
		switch m.Type {
		case "always", "detection", "index":
			m.LoadingStrategy = "always"
		default:
			m.LoadingStrategy = "onDemand"
		}
	}
	if m.Version == "" {
		m.Version = doc.Footer.Version
	}
	if m.LastUpdated == "" {
		m.LastUpdated = doc.Footer.LastUpdated
	}
	if m.MaintainedFor == "" {
		m.MaintainedFor = doc.Footer.MaintainedFor
	}
	if !m.declares("tags") {
		m.Tags = deriveTags(domain, stem)
	}
	if !m.declares("sections") {
		for _, s := range doc.Sections() {
			if s.Level == 2 {
				name, _ := headingName(s.Text)
				m.Sections = append(m.Sections, SectionMeta{Name: name, Keywords: keywords(unnumbered(name))})
			}
		}
	}
}

// deriveTags makes tags from the domain and the file name's words.
func deriveTags(domain, stem string) []string {
	var tags []string
	if domain != "" {
		tags = append(tags, domain)
	}
	for _, w := range wordRE.FindAllString(strings.ToLower(path.Base(stem)), -1) {
		if !slices.Contains(tags, w) && w != "md" {
			tags = append(tags, w)
		}
	}
	return tags
}

// keywords makes section keywords from a heading's words.
func keywords(heading string) []string {
	var out []string
	for _, w := range wordRE.FindAllString(strings.ToLower(heading), -1) {
		if len(w) > 2 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// humanize turns "fastapi_patterns" into "Fastapi Patterns".
func humanize(stem string) string {
	words := strings.FieldsFunc(path.Base(stem), func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
