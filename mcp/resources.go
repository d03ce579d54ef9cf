package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/context/contextprovider"
	"github.com/ctxls/ctxls/providers/context/library"
)

// Resource URIs: a topic is ctxls://topics/ followed by its id
// ("domain/name", or a root file's name), each path element escaped; one
// section of it adds ?section=Name.
const (
	topicPrefix     = "ctxls://topics/"
	sectionTemplate = "ctxls://topics/{+topic}{?section}"
	markdownMIME    = "text/markdown"
)

// registered is a topic as the resource list last saw it: topics are
// immutable, so the same pointer means nothing to register again. A topic
// whose file, links followed, lies outside its context root is kept with
// outside set and is not a resource.
type registered struct {
	topic   *library.Topic
	outside bool
}

// TopicURI returns the resource URI of a topic id.
func TopicURI(id string) string {
	els := strings.Split(id, "/")
	for i, e := range els {
		els[i] = url.PathEscape(e)
	}
	return topicPrefix + strings.Join(els, "/")
}

// SectionURI returns the resource URI of one section of a topic.
func SectionURI(id, section string) string {
	return TopicURI(id) + "?section=" + url.QueryEscape(section)
}

func (s *Server) addResourceTemplates() {
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: sectionTemplate,
		Name:        "section",
		Title:       "A section of a topic",
		Description: "One section of a context topic, by its heading: ctxls://topics/{domain}/{topic}?section={heading}",
		MIMEType:    markdownMIME,
	}, s.readResource)
}

// syncResources registers a resource for every topic of the library and
// removes those of topics that went. The SDK tells connected clients that
// the list changed, once for a burst of changes.
func (s *Server) syncResources() {
	lib := s.ws.Library()
	topics := lib.Topics()
	s.rmu.Lock()
	defer s.rmu.Unlock()
	seen := make(map[string]bool, len(topics))
	var gone []string
	realRoots := map[string]string{}
	for _, t := range topics {
		uri := TopicURI(t.ID)
		seen[uri] = true
		r, ok := s.resources[uri]
		if ok && r.topic == t {
			continue
		}
		out := outsideRoot(t, realRoots)
		s.resources[uri] = registered{topic: t, outside: out}
		switch {
		case !out:
			s.srv.AddResource(topicResource(uri, t, lib.Counter().Name()), s.readResource)
		case ok && !r.outside:
			gone = append(gone, uri)
		}
	}
	for uri, r := range s.resources {
		if !seen[uri] {
			if !r.outside {
				gone = append(gone, uri)
			}
			delete(s.resources, uri)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
}

// outsideRoot reports whether a topic's file, links followed, lies
// outside its context root (or cannot be resolved). realRoots caches the
// resolved roots of one pass.
func outsideRoot(t *library.Topic, realRoots map[string]string) bool {
	root, ok := realRoots[t.Root]
	if !ok {
		r, err := filepath.EvalSymlinks(t.Root)
		if err != nil {
			r = ""
		}
		realRoots[t.Root], root = r, r
	}
	if root == "" {
		return true
	}
	real, err := filepath.EvalSymlinks(t.Path)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(root, real)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}

// listed reports whether a topic is served: it is a resource, inside its
// root.
func (s *Server) listed(id string) bool {
	s.rmu.Lock()
	r, ok := s.resources[TopicURI(id)]
	s.rmu.Unlock()
	return ok && !r.outside
}

// topicResource describes a topic as a resource.
func topicResource(uri string, t *library.Topic, tokenizer string) *sdk.Resource {
	title := t.Meta.Title
	if title == "" {
		title = t.Name
	}
	desc := fmt.Sprintf("%d tokens (%s)", t.Tokens, tokenizer)
	var names []string
	for _, sec := range t.Sections {
		if sec.Level == 2 {
			names = append(names, sec.Name)
		}
	}
	if len(names) > 0 {
		desc += "; sections: " + strings.Join(names, ", ")
	}
	return &sdk.Resource{
		URI:         uri,
		Name:        t.Key(),
		Title:       title,
		Description: desc,
		MIMEType:    markdownMIME,
		Size:        int64(t.Doc.Body.End - t.Doc.Body.Start),
	}
}

// readResource returns a topic, or one section of it, from the current
// library.
func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, section, err := parseTopicURI(uri)
	if err != nil {
		return nil, err
	}
	ref := contextprovider.Reference{ID: id}
	var text string
	if section == "" {
		f, err := s.provider.Materialize(ctx, ref)
		if err != nil {
			return nil, resourceError(uri, err)
		}
		if f.ID == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		text = f.Content
	} else {
		pc, err := s.provider.MaterializeSections(ctx, ref, []string{section})
		if err != nil {
			return nil, resourceError(uri, err)
		}
		if pc.ID == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		if len(pc.Sections) == 0 {
			return nil, fmt.Errorf("%s: %s", uri, joinWarnings(pc.Warnings))
		}
		text = pc.Sections[0].Content
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: markdownMIME, Text: text}}}, nil
}

// parseTopicURI splits a topic or section URI into the topic id and the
// section name.
func parseTopicURI(uri string) (id, section string, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "ctxls" || u.Host != "topics" {
		return "", "", sdk.ResourceNotFoundError(uri)
	}
	id = strings.TrimPrefix(u.Path, "/")
	if id == "" {
		return "", "", sdk.ResourceNotFoundError(uri)
	}
	return id, strings.TrimSpace(u.Query().Get("section")), nil
}

// resourceError reports a topic that escapes its root as not found, the
// same as one that does not exist, and anything else as it is.
func resourceError(uri string, err error) error {
	if errors.Is(err, contextprovider.ErrEscape) {
		return sdk.ResourceNotFoundError(uri)
	}
	return fmt.Errorf("read %s: %w", uri, err)
}

func joinWarnings(ws []contextprovider.Warning) string {
	msgs := make([]string, 0, len(ws))
	for _, w := range ws {
		msgs = append(msgs, w.Message)
	}
	return strings.Join(msgs, "; ")
}
