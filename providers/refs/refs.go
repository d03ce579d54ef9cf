// Package refs finds the references to context topics that a markdown file
// makes, with the exact byte range of every part, and tells what is being
// typed at a cursor for completion.
//
// A reference is written in one of five forms (see Form). The scanner works
// on a parsed document.Doc: it skips the frontmatter (which it reads through
// its YAML nodes instead), fenced code blocks (where only the call form is
// recognised), HTML comments and URLs. It walks the text byte by byte and
// stops only at the few characters that can end or open a reference (':',
// '(', ']', '<' and the '.' of ".md"), so it runs in time linear in the size
// of the document.
package refs

import (
	"context"
	"strings"

	"github.com/ctxls/ctxls/providers/document"
)

// Form says how a reference is written.
type Form int

const (
	// KeyForm is "domain:topic" or "domain:topic#Section" in prose or inline
	// code, recognised only for known domains.
	KeyForm Form = iota
	// CallForm is a ContextProvider or ExecutionContext call whose domain and
	// topic arguments are string literals, such as
	// getReference("python", "fastapi_patterns").
	CallForm
	// IDForm is "domain/topic" in a frontmatter field: crossDomainTriggers,
	// indexedFiles[].id, or an entry of a command's context list.
	IDForm
	// DomainForm names a domain alone: an entry without '/' of a context
	// list, or the string domain argument of a call such as
	// getDomainIndex("python").
	DomainForm
	// PathForm is a relative or absolute path to a markdown file: a link
	// target, a path in inline code, a bare path in prose, or
	// indexedFiles[].path.
	PathForm
)

// String returns "key", "call", "id", "domain" or "path".
func (f Form) String() string {
	switch f {
	case KeyForm:
		return "key"
	case CallForm:
		return "call"
	case IDForm:
		return "id"
	case DomainForm:
		return "domain"
	case PathForm:
		return "path"
	}
	return "unknown"
}

// Where tells in which part of the document a reference was found.
type Where int

const (
	// Prose is ordinary text, headings and list items included.
	Prose Where = iota
	// InlineCode is the inside of an inline code span.
	InlineCode
	// Link is a link's text or target, or an autolink.
	Link
	// Fence is the inside of a fenced code block.
	Fence
	// Frontmatter is the YAML frontmatter block.
	Frontmatter
	// Table is a pipe table row outside inline code and links.
	Table
)

// String returns "prose", "inline-code", "link", "fence", "frontmatter" or
// "table".
func (w Where) String() string {
	switch w {
	case Prose:
		return "prose"
	case InlineCode:
		return "inline-code"
	case Link:
		return "link"
	case Fence:
		return "fence"
	case Frontmatter:
		return "frontmatter"
	case Table:
		return "table"
	}
	return "unknown"
}

// Ref is one reference found in a document. Every span is a byte range in
// document.Doc.Text; parts that are absent have a zero span.
type Ref struct {
	Form  Form
	Where Where
	// Span covers the whole reference as written: "python:x#Sec", a call
	// from its function name to its closing parenthesis, a frontmatter
	// value without its quotes, a link target.
	Span document.Span
	// Domain is the domain as written; "" for the path form.
	Domain     string
	DomainSpan document.Span
	// Topic is the topic as written without a trailing ".md"; "" for the
	// domain and path forms. Nested topics keep their '/': "frameworks/fastapi".
	Topic string
	// TopicSpan covers Topic (without the ".md" the text may carry).
	TopicSpan document.Span
	// Section is the section name after '#', or "".
	Section     string
	SectionSpan document.Span
	// Path is the path of the path form as written, without "#fragment".
	Path     string
	PathSpan document.Span
	// Fragment is the path form's fragment without '#', or "".
	Fragment string
	// Call is the function name of a reference found in a call, such as
	// "getConditionalContext"; "" otherwise.
	Call string
	// Field is the frontmatter field a reference was found in:
	// "crossDomainTriggers", "indexedFiles" or "context"; "" elsewhere.
	Field string
}

// Options tunes recognition to the library the document belongs to.
type Options struct {
	// IsDomain reports whether name is a known domain; the key form is only
	// recognised for known domains. nil means no key form is recognised.
	IsDomain func(name string) bool
	// Sections, when non-nil, returns the section names of a topic. In
	// prose, the longest of them that the text after '#' starts with
	// (ignoring case) is taken as the section; without a match the
	// heuristic described at ScanList applies.
	Sections func(domain, topic string) []string
	// BareNames makes a file name without a directory in prose, such as
	// "**file_formats.md**", a path reference. Index and detection files
	// list their topics that way; elsewhere such a name is just text.
	BareNames bool
	// SizeHint is how many references the document probably holds, such
	// as the count of its previous scan: the scan then makes room for them
	// once instead of growing as it goes, which for a long command file
	// edited keystroke by keystroke is most of what a scan allocates.
	SizeHint int
	// Fields are the frontmatter fields read as references. The kind of
	// file decides (see TopicFields, CommandFields, SkillFields): the same
	// key means something else elsewhere, as "context: fork" in a Claude
	// Code skill. None are read when it is zero.
	Fields Fields
}

// Fields is a set of frontmatter fields that hold references.
type Fields uint8

// Frontmatter fields that hold references.
const (
	// ContextList is "context" as a list or a scalar of topic ids and
	// domains, as commands and topics write it.
	ContextList Fields = 1 << iota
	// ContextMapping is "context" as a mapping of a Forge skill,
	// {primary: [domain], topics: [topic]}.
	ContextMapping
	// TopicLists are a topic's crossDomainTriggers and indexedFiles.
	TopicLists
)

// The fields each kind of file holds references in.
const (
	TopicFields   = ContextList | ContextMapping | TopicLists
	CommandFields = ContextList | ContextMapping
	// SkillFields leaves out a scalar context: Claude Code documents
	// "context: fork" for skills, which names no domain.
	SkillFields = ContextMapping
)

// ScanList returns the references of doc sorted by Span.Start, without
// overlaps, in their compact form.
//
// The end of a section name after '#' is decided as follows. Inside inline
// code the name runs to the end of the code span, and after an opening
// quote (`"python:x#Name"`) to the closing quote on the same line. In prose
// the longest section name known through Options.Sections that the text
// starts with wins. Otherwise the name stops at the end of the line or at
// one of "`|()[]{}<>,;:!?*\"'", and within that it takes the first word (so
// a slug such as "security-issues" is one word); when that word is
// capitalised it goes on over capitalised words, numbers, and lower-case
// joining words ("to", "and", "of", …) or symbols ("/", "&", "-") that are
// followed by a capitalised word, up to eight words, and it stops after a
// word ending in '.'. A trailing '.' is never part of the name. So
// "see python:x#Security Issues for details." yields "Security Issues" and
// "python:x#How to Use" yields "How to Use".
//
// A released document whose text cannot be read back has no references
// to give.
func ScanList(doc *document.Doc, opts Options) List {
	if doc == nil {
		return List{}
	}
	doc, err := doc.Held(context.Background())
	if err != nil {
		return List{}
	}
	s := newScanner(doc, opts)
	s.frontmatter()
	s.prose()
	s.codePaths()
	s.fences()
	return s.out.List()
}

// templated reports a reference with a template placeholder such as
// "{domain}", "<topic>" or "${lang}" in a name: documentation writes
// python:{topic} to explain a pattern, not to name a topic.
func templated(r Ref) bool {
	for _, v := range [...]string{r.Domain, r.Topic, r.Path, r.Section} {
		if placeholder(v) {
			return true
		}
	}
	return false
}

// placeholder reports whether s holds a {…} or <…> placeholder.
func placeholder(s string) bool {
	if i := strings.IndexByte(s, '{'); i >= 0 && strings.IndexByte(s[i:], '}') > 0 {
		return true
	}
	if i := strings.IndexByte(s, '<'); i >= 0 && strings.IndexByte(s[i:], '>') > 0 {
		return true
	}
	return false
}

// dropMD removes a trailing ".md" from a topic as written.
func dropMD(topic string) string {
	if len(topic) > 3 && strings.HasSuffix(topic, ".md") {
		return topic[:len(topic)-3]
	}
	return topic
}
