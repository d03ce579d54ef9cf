package ops

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
	"github.com/ctxls/ctxls/providers/library/discover"
)

// ShowRequest names a topic, or one section of it, in any written form:
// "domain:topic", "domain/topic", "context/domain/topic.md", each with an
// optional "#Section".
type ShowRequest struct {
	Reference string `json:"reference"`
}

// ShowResponse is the text of a topic or a section and what it costs.
type ShowResponse struct {
	// Reference is the canonical domain:topic, with #Section when one
	// section was asked for.
	Reference string `json:"reference"`
	Title     string `json:"title"`
	// Tokens is the measured cost of Content, in Tokenizer.
	Tokens    int    `json:"tokens"`
	Tokenizer string `json:"tokenizer"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

// Show returns a topic's body without frontmatter, or one section of it,
// exactly. An unknown topic or section is an ErrInvalid error that says
// why.
func (o *Ops) Show(ctx context.Context, req ShowRequest) (ShowResponse, error) {
	ref := strings.TrimSpace(req.Reference)
	section := ""
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref, section = ref[:i], strings.TrimSpace(ref[i+1:])
	}
	// The path form names the file under its context root.
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "./"), discover.ContextDirName+"/")
	domain, file := "", ref
	if i := strings.IndexAny(ref, ":/"); i >= 0 {
		domain, file = ref[:i], ref[i+1:]
	}
	if file == "" && domain == "" {
		return ShowResponse{}, invalidf("%q names no topic; write domain:topic", req.Reference)
	}
	// "python" or "python:" names a domain, which has no body to show.
	if name := cmp.Or(domain, file); (file == "" || domain == "") && section == "" {
		if lib := o.Library(); lib != nil {
			if _, ok := lib.Domain(name); ok {
				return ShowResponse{}, withKind(ErrInvalid, domainNotTopic(lib, name))
			}
		}
	}
	if file == "" {
		return ShowResponse{}, invalidf("%q names no topic; write domain:topic", req.Reference)
	}
	r, err := o.prov.Reference(ctx, domain, file)
	if err != nil {
		return ShowResponse{}, err
	}
	if r.ID == "" {
		return ShowResponse{}, withKind(ErrInvalid, fmt.Errorf("unknown topic %s: %s", req.Reference, joinWarnings(r.Warnings)))
	}
	res := ShowResponse{Reference: r.Key(), Title: r.Title, Path: r.Path}
	if lib := o.Library(); lib != nil {
		res.Tokenizer = lib.Counter().Name()
	}
	if section == "" {
		f, err := o.prov.Materialize(ctx, r.Reference)
		if err != nil {
			return ShowResponse{}, fmt.Errorf("load %s: %w", r.Key(), err)
		}
		res.Tokens, res.Content = f.EstimatedTokens, f.Content
		return res, nil
	}
	pc, err := o.prov.MaterializeSections(ctx, r.Reference, []string{section})
	if err != nil {
		return ShowResponse{}, fmt.Errorf("load %s#%s: %w", r.Key(), section, err)
	}
	if len(pc.Sections) == 0 {
		return ShowResponse{}, withKind(ErrInvalid, fmt.Errorf("unknown section %s#%s: %s", r.Key(), section, joinWarnings(pc.Warnings)))
	}
	s := pc.Sections[0]
	res.Reference += "#" + s.Name
	res.Tokens, res.Content = s.EstimatedTokens, s.Content
	return res, nil
}

func joinWarnings(ws []Warning) string {
	msgs := make([]string, len(ws))
	for i, w := range ws {
		msgs[i] = w.Message
	}
	return strings.Join(msgs, "; ")
}

// domainNotTopic is the error for a domain named where a topic is wanted:
// it lists the domain's topics, the references Show takes.
func domainNotTopic(lib *library.Snapshot, domain string) error {
	var refs []string
	for _, t := range lib.Topics() {
		if t.Domain == domain {
			refs = append(refs, t.Key())
		}
	}
	if len(refs) == 0 {
		return fmt.Errorf("%s is a domain, not a topic, and has no topics", domain)
	}
	const most = 20
	list := strings.Join(refs[:min(len(refs), most)], ", ")
	if len(refs) > most {
		list += fmt.Sprintf(", … (%d in all; ctxls catalog --domain %s)", len(refs), domain)
	}
	return fmt.Errorf("%s is a domain, not a topic; show one of its topics: %s", domain, list)
}
