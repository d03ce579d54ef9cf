package contextapi

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// ProtocolStep is one step of the loading protocol.
type ProtocolStep struct {
	Step        int    `json:"step"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Method is the JSON-RPC method that performs the step.
	Method string `json:"method"`
}

// LoadingProtocol is the loading protocol as data: its steps, the file
// budget per invocation (tokenBudget, as the interface names it), the
// token limit and the priority order used when over budget.
type LoadingProtocol struct {
	Steps         []ProtocolStep `json:"steps"`
	TokenBudget   int            `json:"tokenBudget"`
	TokenLimit    int            `json:"tokenLimit"`
	PriorityOrder []string       `json:"priorityOrder"`
	// Path is the loading_protocol.md the steps were read from, if any.
	Path     string    `json:"path,omitempty"`
	Warnings []Warning `json:"warnings"`
}

// defaultSteps are the five steps of the protocol with their methods.
var defaultSteps = []ProtocolStep{
	{1, "Read the domain index", "Identify the domain and read its index to learn which topics exist.", "ctxls/domainIndex"},
	{2, "Load the always-load files", "Load the topics every invocation in the domain needs.", "ctxls/alwaysLoadFiles"},
	{3, "Detect the project type", "Match imports, files and code against the domain's detection rules.", "ctxls/detectProjectType"},
	{4, "Load conditional context", "Load the framework and library topics detection calls for, within the budget.", "ctxls/conditionalContext"},
	{5, "Check cross-domain triggers", "Add topics from other domains whose trigger conditions hold, highest relevance first.", "ctxls/crossDomainContext"},
}

var reStep = regexp.MustCompile(`(?i)^step\s+(\d+)\s*[:.)\-–—]?\s*(.*)$`)

// LoadingProtocol returns the loading protocol: the steps of the root
// loading_protocol.md when it has "Step N: …" headings, else the five
// standard steps; the budget comes from the configuration.
func (p *Provider) LoadingProtocol(ctx context.Context) (LoadingProtocol, error) {
	lib := p.library()
	var topics []*library.Topic
	t, ok := lib.RootFile("loading_protocol")
	if ok {
		topics = []*library.Topic{t}
	}
	budget := defaultBudget(lib.Config().Budget)
	v := p.cachedCatalog("protocol", topics, func() any {
		lp := LoadingProtocol{PriorityOrder: []string{KindAlways.String(), KindFramework.String(), KindLibrary.String(), KindCrossDomain.String()}}
		if t != nil {
			lp.Path = t.Path
			lp.Steps = protocolSteps(t)
		}
		if len(lp.Steps) == 0 {
			lp.Steps = append([]ProtocolStep(nil), defaultSteps...)
		}
		return lp
	}).(LoadingProtocol)
	v.Steps = append([]ProtocolStep(nil), v.Steps...)
	v.TokenBudget, v.TokenLimit = budget.Files, budget.Tokens
	v.Warnings = []Warning{}
	if t == nil {
		v.Warnings = append(v.Warnings, warnf(WarnFileNotFound, "no loading_protocol.md at a context root; using the standard five steps"))
	}
	return v, nil
}

// protocolSteps reads "Step N: Name" headings and their first paragraph.
func protocolSteps(t *library.Topic) []ProtocolStep {
	var out []ProtocolStep
	for _, s := range t.Doc.Sections() {
		m := reStep.FindStringSubmatch(strings.TrimSpace(s.Text))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		st := ProtocolStep{Step: n, Name: strings.Trim(m[2], "*_ ")}
		if st.Name == "" {
			st.Name = s.Text
		}
		body := string(t.Doc.Slice(s.Content))
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			body = body[i+1:]
		} else {
			body = ""
		}
		st.Description = strings.TrimSpace(strings.TrimPrefix(strings.NewReplacer("**", "", "__", "").Replace(firstParagraph(body)), "Action:"))
		if mm := reMethod.FindString(body); mm != "" {
			st.Method = mm
		} else if n >= 1 && n <= len(defaultSteps) {
			st.Method = defaultSteps[n-1].Method
		}
		out = append(out, st)
	}
	return out
}

var reMethod = regexp.MustCompile(`ctxls/[A-Za-z/]+`)

// firstParagraph returns the first block of non-empty lines outside code
// fences, joined into one line.
func firstParagraph(s string) string {
	var lines []string
	inFence := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			inFence = !inFence
			if len(lines) > 0 {
				break
			}
			continue
		}
		if inFence || strings.HasPrefix(l, "#") {
			if len(lines) > 0 {
				break
			}
			continue
		}
		if l == "" {
			if len(lines) > 0 {
				break
			}
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, " ")
}
