package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/contextapi"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/ops"
	"github.com/ctxls/ctxls/providers/tokens"
)

// Resource URIs: a topic is ctxls://topics/ followed by its id
// ("domain/name", or a root file's name), each path element escaped; one
// section of it adds ?section=Name. A skill is ctxls://skills/ and its
// name.
const (
	topicPrefix     = "ctxls://topics/"
	skillPrefix     = "ctxls://skills/"
	sectionTemplate = "ctxls://topics/{+topic}{?section}"
	markdownMIME    = "text/markdown"
)

// registered is a topic or skill as the resource list last saw it: both
// are immutable, so the same pointer means nothing to register again. One
// whose file, links followed, lies outside its root (the context root of a
// topic, the workspace of a skill) is kept with outside set and is not a
// resource.
type registered struct {
	topic   *library.Topic
	skill   *agentfiles.File
	outside bool
}

// topicURI returns the resource URI of a topic id.
func topicURI(id string) string {
	els := strings.Split(id, "/")
	for i, e := range els {
		els[i] = url.PathEscape(e)
	}
	return topicPrefix + strings.Join(els, "/")
}

// skillURI returns the resource URI of a skill.
func skillURI(name string) string { return skillPrefix + url.PathEscape(name) }

// sectionURI returns the resource URI of one section of a topic.
func sectionURI(id, section string) string {
	return topicURI(id) + "?section=" + url.QueryEscape(section)
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

// syncResources registers a resource for every topic and skill of the
// workspace and removes those that went. The SDK tells connected clients
// that the list changed, once for a burst of changes.
func (s *Server) syncResources() {
	// One snapshot for the topics and the skills alike.
	snap := s.ws.Snapshot()
	lib := snap.Library()
	topics := lib.Topics()
	set, err := snap.AgentFiles(context.Background())
	if err != nil {
		s.log.Warn("mcp: agent files", "err", err)
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	seen := make(map[string]bool, len(topics))
	var gone []string
	realRoots := map[string]*fsguard.Root{}
	served := s.served
	copied := false
	setServed := func(id string, inside, gone bool) {
		if v, ok := served[id]; ok != !gone || v != inside {
			if !copied {
				served, copied = maps.Clone(served), true
			}
			if gone {
				delete(served, id)
			} else {
				served[id] = inside
			}
		}
	}
	// register keeps now at uri and, when it is new there, adds its
	// resource or drops the one its file no longer serves. It reports
	// whether now is new and whether its file lies outside root.
	register := func(uri string, now registered, root, path string, resource func(uri string) *sdk.Resource) (changed, outside bool) {
		seen[uri] = true
		r, ok := s.resources[uri]
		if ok && r.topic == now.topic && r.skill == now.skill {
			return false, r.outside
		}
		now.outside = outsideRoot(root, path, realRoots)
		s.resources[uri] = now
		switch {
		case !now.outside:
			s.srv.AddResource(resource(uri), s.readResource)
		case ok && !r.outside:
			gone = append(gone, uri)
		}
		return true, now.outside
	}
	for _, t := range topics {
		changed, out := register(topicURI(t.ID), registered{topic: t}, t.Root, t.Path, func(uri string) *sdk.Resource {
			return topicResource(uri, t, lib.Counter().Name())
		})
		if changed {
			setServed(t.ID, !out, false)
		}
	}
	if set != nil {
		for _, f := range set.Files {
			if f.Kind != agentfiles.KindSkill || f.Doc == nil {
				continue
			}
			name := f.SkillName()
			if seen[skillURI(name)] {
				continue // two skills of one name: the first is served
			}
			register(skillURI(name), registered{skill: f}, set.Root, f.Path, func(uri string) *sdk.Resource {
				return skillResource(uri, name, f, lib.Counter())
			})
		}
	}
	for uri, r := range s.resources {
		if !seen[uri] {
			if !r.outside {
				gone = append(gone, uri)
			}
			if r.topic != nil {
				setServed(r.topic.ID, false, true)
			}
			delete(s.resources, uri)
		}
	}
	s.served = served
	if len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
}

// outsideRoot reports whether file p, links followed, lies outside root
// (or cannot be resolved), by the workspace's root check. guards caches
// the roots of one pass.
func outsideRoot(root, p string, guards map[string]*fsguard.Root) bool {
	g, ok := guards[root]
	if !ok {
		g = fsguard.NewRoot(root)
		guards[root] = g
	}
	_, err := g.Stat(p)
	return err != nil
}

// listedSet returns the test of whether a topic is served: a topic whose
// file lies outside its root is not. A topic the resource list has not
// seen yet (the library changed, its update is on the way) is checked on
// the spot. The set it reads is replaced, never changed, so the test takes
// no lock.
func (s *Server) listedSet() func(id string) bool {
	s.rmu.Lock()
	served := s.served
	s.rmu.Unlock()
	lib := s.ws.Snapshot().Library()
	realRoots := map[string]*fsguard.Root{}
	return func(id string) bool {
		if inside, ok := served[id]; ok {
			return inside
		}
		t, ok := lib.Topic(id)
		return ok && !outsideRoot(t.Root, t.Path, realRoots)
	}
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

// skillResource describes a skill as a resource.
func skillResource(uri, name string, f *agentfiles.File, counter tokens.Counter) *sdk.Resource {
	body := f.Doc.Slice(f.Doc.Body)
	return &sdk.Resource{
		URI:         uri,
		Name:        name,
		Title:       name,
		Description: fmt.Sprintf("skill, %d tokens (%s): %s", counter.Count(string(body)), counter.Name(), f.Meta.Description),
		MIMEType:    markdownMIME,
		Size:        int64(len(body)),
	}
}

// readResource returns a topic, one section of it or a skill, as the
// workspace holds it now.
func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	if strings.HasPrefix(uri, skillPrefix) {
		return s.readSkill(uri)
	}
	id, section, err := parseTopicURI(uri)
	if err != nil {
		return nil, err
	}
	ref := &ops.TopicRef{Reference: contextapi.Reference{ID: id}}
	var text string
	if section == "" {
		f, err := s.ops.Materialize(ctx, ops.MaterializeRequest{Reference: ref})
		if err != nil {
			return nil, resourceError(uri, err)
		}
		if f.ID == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		text = f.Content
	} else {
		pc, err := s.ops.MaterializeSections(ctx, ops.MaterializeSectionsRequest{Reference: ref, Sections: []string{section}})
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

// readSkill reads a skill as the resource list last saw it, after
// checking again that its file, links followed, is inside the workspace.
func (s *Server) readSkill(uri string) (*sdk.ReadResourceResult, error) {
	s.rmu.Lock()
	r, ok := s.resources[uri]
	s.rmu.Unlock()
	set, _ := s.ws.Snapshot().AgentFiles(context.Background())
	if !ok || r.skill == nil || r.outside || set == nil || outsideRoot(set.Root, r.skill.Path, map[string]*fsguard.Root{}) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: markdownMIME, Text: string(r.skill.Doc.Slice(r.skill.Doc.Body))}}}, nil
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
// same as one that does not exist, and anything else with the code of its
// kind.
func resourceError(uri string, err error) error {
	if errors.Is(err, contextapi.ErrEscape) {
		return sdk.ResourceNotFoundError(uri)
	}
	if code, ok := ops.ErrorCode(ops.MCP, err); ok {
		return &jsonrpc.Error{Code: code, Message: fmt.Sprintf("read %s: %v", uri, err)}
	}
	return fmt.Errorf("read %s: %w", uri, err)
}

func joinWarnings(ws []contextapi.Warning) string {
	msgs := make([]string, 0, len(ws))
	for _, w := range ws {
		msgs = append(msgs, w.Message)
	}
	return strings.Join(msgs, "; ")
}
