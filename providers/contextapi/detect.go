package contextapi

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// Signals are what a caller found in a project, the DetectionSignals of
// the interface.
type Signals struct {
	Imports      []string `json:"imports,omitempty"`
	FilePatterns []string `json:"filePatterns,omitempty"`
	CodePatterns []string `json:"codePatterns,omitempty"`
	ConfigFiles  []string `json:"configFiles,omitempty"`
}

// DetectionResult is the outcome of DetectProjectType. Framework,
// Libraries and TestingFramework are lower-case names as the detection
// tables spell them; RecommendedFiles are topic ids, framework topics
// first, each group by score. Matches explain every detected entry.
type DetectionResult struct {
	Framework        string           `json:"framework"`
	Libraries        []string         `json:"libraries"`
	Architecture     string           `json:"architecture"`
	TestingFramework string           `json:"testingFramework"`
	RecommendedFiles []string         `json:"recommendedFiles"`
	Matches          []DetectionMatch `json:"matches,omitempty"`
	Warnings         []Warning        `json:"warnings"`
}

// DetectionMatch is one detected framework, library or testing framework
// with the files it calls for and the evidence.
type DetectionMatch struct {
	Name     string     `json:"name"`
	Category string     `json:"category"`
	Score    float64    `json:"score"`
	Files    []string   `json:"files"`
	Evidence []Evidence `json:"evidence"`
}

// Evidence is one signal that matched one pattern.
type Evidence struct {
	Signal  string  `json:"signal"`
	Kind    string  `json:"kind"`
	Pattern string  `json:"pattern"`
	Source  string  `json:"source"`
	Score   float64 `json:"score"`
}

// Detection categories, in loading order.
const (
	catFramework    = "framework"
	catLibrary      = "library"
	catTesting      = "testing"
	catArchitecture = "architecture"
)

var catOrder = map[string]int{catFramework: 0, catLibrary: 1, catTesting: 2, catArchitecture: 3}

// Signal kinds, with the weight of a match: imports are the strongest
// signal, file names the weakest (one marker file alone is not enough).
const (
	sigAny    = ""
	sigImport = "import"
	sigCode   = "code"
	sigConfig = "config"
	sigFile   = "file"
)

var sigWeight = map[string]float64{sigImport: 1, sigCode: 0.9, sigConfig: 0.8, sigFile: 0.5}

// detectThreshold is the score at which an entry counts as detected.
const detectThreshold = 0.5

type pattern struct {
	text   string
	kind   string // the column's kind, or sigAny
	source string // where the pattern was written
}

// detectionRule is one row of a detection table, or one topic's
// detectionTriggers: patterns and the files they call for.
type detectionRule struct {
	name     string
	key      string
	category string
	patterns []pattern
	files    []string
	// derived says the entry has no name of its own: its row named only
	// files, or it holds a topic's detectionTriggers.
	derived bool
}

type detectionRules struct {
	rules    []*detectionRule
	warnings []Warning
	source   bool // the domain has a detection file or detection triggers
}

// detection returns the detection rules of a domain for this version.
func (d *derived) detection(domain string) *detectionRules {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.detects[domain]; ok {
		return r
	}
	r := buildDetection(d, domain)
	d.detects[domain] = r
	return r
}

func buildDetection(d *derived, domain string) *detectionRules {
	lib := d.lib
	out := &detectionRules{}
	dom, ok := lib.Domain(domain)
	if !ok {
		return out
	}
	byKey := map[string]*detectionRule{}
	add := func(r *detectionRule) {
		if old, ok := byKey[r.key]; ok {
			old.patterns = append(old.patterns, r.patterns...)
			for _, f := range r.files {
				if !slices.Contains(old.files, f) {
					old.files = append(old.files, f)
				}
			}
			if old.category == "" {
				old.category = r.category
			}
			return
		}
		byKey[r.key] = r
		out.rules = append(out.rules, r)
	}
	// Rows that name only files (no framework or library) and topics'
	// detectionTriggers are attached to a named rule afterwards.
	var pending []*detectionRule
	for _, src := range []*library.Topic{dom.Detection, dom.Index} {
		if src == nil {
			continue
		}
		// An index's tables name situations, not frameworks: only their
		// patterns and files count.
		for _, r := range tableRules(d, src, domain, &out.warnings) {
			out.source = true
			if r.derived || src == dom.Index {
				if len(r.files) == 0 {
					continue // patterns that call for nothing
				}
				r.name, r.derived = "", true
				pending = append(pending, r)
			} else {
				add(r)
			}
		}
		if src == dom.Detection {
			out.source = true
		}
	}
	testingDomain := strings.Contains(domain, "test")
	for _, r := range out.rules {
		if r.category == "" {
			r.category = catLibrary
		}
		if testingDomain && r.category == catFramework {
			r.category = catTesting
		}
	}
	// Always-load topics are loaded in protocol step 2 whatever is
	// detected, and their triggers tend to be as broad as "import ".
	always := alwaysTopics(dom)
	for _, t := range dom.Topics {
		if len(t.Meta.DetectionTriggers) == 0 || slices.Contains(always, t) {
			continue
		}
		out.source = true
		r := &detectionRule{files: []string{t.ID}, derived: true}
		for _, trig := range t.Meta.DetectionTriggers {
			if !genericPattern(trig) {
				r.patterns = append(r.patterns, pattern{text: trig, source: t.ID})
			}
		}
		pending = append(pending, r)
	}
	for _, pr := range pending {
		if len(pr.files) == 0 {
			continue
		}
		// The most specific named rule loading the same files owns the
		// patterns.
		var owner *detectionRule
		for _, r := range out.rules {
			if !r.derived && containsAll(r.files, pr.files) && (owner == nil || len(r.files) < len(owner.files)) {
				owner = r
			}
		}
		if owner != nil {
			owner.patterns = append(owner.patterns, pr.patterns...)
			continue
		}
		pr.name = strings.TrimSuffix(path.Base(pr.files[0]), "_patterns")
		pr.key = strings.ToLower(pr.name)
		pr.category = catLibrary
		if t, ok := lib.Topic(pr.files[0]); ok && t.Meta.Type == "framework" {
			pr.category = catFramework
			if testingDomain {
				pr.category = catTesting
			}
		}
		add(pr)
	}
	out.rules = slices.DeleteFunc(out.rules, func(r *detectionRule) bool { return len(r.patterns) == 0 })
	return out
}

func containsAll(set, sub []string) bool {
	for _, s := range sub {
		if !slices.Contains(set, s) {
			return false
		}
	}
	return len(sub) > 0
}

// tableRules reads the pipe tables of a detection file. In each table a
// "files to load" column names the topics, a name column (Framework,
// Library, Context…) names the entry, and the backticked text of the other
// columns are the patterns.
func tableRules(d *derived, det *library.Topic, domain string, warns *[]Warning) []*detectionRule {
	doc, err := det.Doc.Held(context.Background())
	if err != nil {
		*warns = append(*warns, warnf(WarnNoDetection, "%s skipped: %v", det.Key(), err))
		return nil
	}
	var out []*detectionRule
	unresolved := map[string]bool{}
	for _, tb := range doc.Tables {
		heading := headingBefore(doc, tb.Line)
		header := make([]string, len(tb.Header))
		for i, c := range tb.Header {
			header[i] = strings.ToLower(strings.Trim(c.Text, "*_ "))
		}
		filesCol := pickColumn(header, -1, func(h string) bool { return strings.Contains(h, "to load") }, func(h string) bool { return h == "load" }, func(h string) bool {
			return strings.Contains(h, "load") || strings.Contains(h, "topic")
		})
		nameCol := -1
		for _, pass := range []bool{true, false} {
			// Prefer a column of names over one of backticked packages.
			nameCol = pickColumn(header, filesCol, func(h string) bool {
				for _, w := range []string{"framework", "librar", "orm", "context", "signal", "tool", "technology", "package", "name", "platform", "runtime", "type", "system"} {
					if strings.Contains(h, w) {
						return !pass || !codeOnlyColumn(doc, tb, slices.Index(header, h))
					}
				}
				return false
			})
			if nameCol >= 0 {
				break
			}
		}
		if nameCol < 0 && len(header) > 0 && filesCol != 0 && !codeOnlyColumn(doc, tb, 0) {
			nameCol = 0
		}
		if filesCol < 0 && nameCol < 0 {
			continue
		}
		category := categoryOf(heading, header, nameCol)
		for _, row := range tb.Rows {
			r := &detectionRule{category: category}
			if nameCol >= 0 && nameCol < len(row) {
				r.name = plainCell(row[nameCol].Text)
			}
			if filesCol >= 0 && filesCol < len(row) {
				for _, m := range reMarkdown.FindAllString(row[filesCol].Text, -1) {
					id, ok := d.resolveFile(domain, m)
					if !ok {
						if !unresolved[m] {
							unresolved[m] = true
							*warns = append(*warns, warnf(WarnUnresolved, "%s names %s, which is not a topic", det.Key(), m))
						}
						continue
					}
					if !slices.Contains(r.files, id) {
						r.files = append(r.files, id)
					}
				}
			}
			for i, c := range row {
				if i == filesCol || i == nameCol || i >= len(header) || strings.Contains(header[i], "doc") {
					continue
				}
				kind := columnKind(header[i])
				for _, s := range document.CodeSpans(doc.Text, c.Span) {
					txt := strings.TrimSpace(string(doc.Slice(s)))
					if !genericPattern(txt) {
						r.patterns = append(r.patterns, pattern{text: txt, kind: kind, source: det.ID + "#" + heading})
					}
				}
			}
			lname := strings.ToLower(r.name)
			if r.name == "" || lname == "any" || lname == "all" || strings.HasPrefix(lname, "always") || strings.HasPrefix(lname, "all of") {
				if len(r.files) == 0 {
					continue
				}
				r.name, r.derived = "", true
			}
			if len(r.patterns) == 0 && filesCol < 0 && nameCol >= 0 && nameCol < len(row) {
				// A table listing packages in its name column: the names
				// are the patterns.
				for _, s := range document.CodeSpans(doc.Text, row[nameCol].Span) {
					if txt := strings.TrimSpace(string(doc.Slice(s))); !genericPattern(txt) {
						r.patterns = append(r.patterns, pattern{text: txt, kind: sigAny, source: det.ID + "#" + heading})
					}
				}
			}
			if len(r.patterns) == 0 {
				continue
			}
			r.key = strings.ToLower(r.name)
			out = append(out, r)
		}
	}
	return out
}

// keywords are language keywords that, written alone, match every
// source file and so detect nothing.
var keywords = map[string]bool{
	"import": true, "from": true, "def": true, "class": true, "async": true, "await": true, "return": true,
	"using": true, "new": true, "var": true, "let": true, "const": true, "function": true, "func": true,
	"package": true, "public": true, "private": true, "static": true, "export": true, "require": true,
}

// genericPattern reports whether a pattern is empty or a bare keyword.
func genericPattern(p string) bool {
	p = strings.ToLower(strings.TrimSpace(p))
	return len(p) < 2 || keywords[p]
}

// headingBefore is the text of the nearest heading above a line.
func headingBefore(doc *document.Doc, line int) string {
	h := ""
	for _, hd := range doc.Headings {
		if hd.Line >= line {
			break
		}
		h = hd.Text
	}
	return h
}

// pickColumn returns the first column matching the earliest test that
// any column passes, skipping column skip.
func pickColumn(header []string, skip int, tests ...func(string) bool) int {
	for _, test := range tests {
		for i, h := range header {
			if i != skip && test(h) {
				return i
			}
		}
	}
	return -1
}

// codeOnlyColumn reports whether a column's cells are mostly inline code.
func codeOnlyColumn(doc *document.Doc, tb document.Table, col int) bool {
	code := 0
	for _, row := range tb.Rows {
		if col < len(row) && len(document.CodeSpans(doc.Text, row[col].Span)) > 0 {
			code++
		}
	}
	return code*2 > len(tb.Rows)
}

func categoryOf(heading string, header []string, nameCol int) string {
	text := strings.ToLower(heading)
	if nameCol >= 0 {
		text += " " + header[nameCol]
	}
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("test") && has("framework", "runner"):
		return catTesting
	case has("test"):
		return catLibrary
	case has("architect"):
		return catArchitecture
	case has("framework", "platform"):
		return catFramework
	case has("librar", "orm", "database", "package", "depend"):
		return catLibrary
	}
	return ""
}

func columnKind(h string) string {
	has := func(ws ...string) bool {
		for _, w := range ws {
			if strings.Contains(h, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("import", "using", "namespace", "package"):
		return sigImport
	case has("config"):
		return sigConfig
	case has("marker", "file", "director", "folder", "path"):
		return sigFile
	case has("code", "shape", "pattern", "see", "usage", "decorator", "attribute", "syntax"):
		return sigCode
	}
	return sigAny
}

// plainCell strips emphasis and links from a table cell.
func plainCell(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
	if i := strings.Index(s, "]("); i > 0 && strings.HasPrefix(s, "[") {
		s = s[1:i]
	}
	return strings.TrimSpace(strings.Trim(s, "*_ "))
}

// resolveFile turns a file named in a table ("fastapi_patterns.md",
// "testing/pytest_patterns.md", "../security/x.md",
// "{domain}/performance_patterns.md") into a topic id: relative to the
// domain, then to the context root, then the one topic anywhere with that
// file name ("security_guidelines.md" named in python/index.md).
func (d *derived) resolveFile(domain, name string) (string, bool) {
	lib := d.lib
	name = strings.ReplaceAll(name, "{domain}", domain)
	name = strings.TrimSuffix(name, ".md")
	name = strings.TrimPrefix(name, "./")
	for strings.HasPrefix(name, "../") {
		name = strings.TrimPrefix(name, "../")
	}
	name = strings.TrimPrefix(name, "context/")
	var cands []string
	if domain != "" {
		cands = append(cands, domain+"/"+name)
	}
	cands = append(cands, name)
	for _, id := range cands {
		if checkName(id) != nil {
			continue
		}
		if _, ok := lib.Topic(id); ok {
			return id, true
		}
	}
	if !strings.Contains(name, "/") {
		if ids := d.stems()[name]; len(ids) == 1 {
			return ids[0], true
		}
	}
	return "", false
}

// stems maps file names to the ids of the topics that have them.
func (d *derived) stems() map[string][]string {
	d.stemsOnce.Do(func() {
		d.stemIDs = map[string][]string{}
		for _, t := range d.lib.Topics() {
			base := path.Base(t.Name)
			d.stemIDs[base] = append(d.stemIDs[base], t.ID)
		}
	})
	return d.stemIDs
}

// matchSignal scores one signal against one pattern, 0 when they do not
// match.
//
// mod returns the module an import names (module, or a memo of it: the
// same signals and patterns meet again for every rule).
func matchSignal(sig, sigKind string, p pattern, mod func(string) string) float64 {
	s := strings.ToLower(strings.TrimSpace(sig))
	q := strings.ToLower(strings.TrimSpace(p.text))
	if s == "" || q == "" {
		return 0
	}
	if s == q {
		return 1
	}
	if len(q) >= 3 && strings.Contains(s, q) {
		return 0.9
	}
	best := 0.0
	if sigKind == sigImport || p.kind == sigImport {
		if sameModule(mod(s), mod(q)) {
			best = 0.85
		}
	}
	if sigKind == sigFile || sigKind == sigConfig || p.kind == sigFile || p.kind == sigConfig {
		best = max(best, matchPath(s, q))
	}
	if best == 0 && len(s) >= 3 && containsWord(q, s) {
		best = 0.6
	}
	return best
}

// DetectProjectType matches signals against the detection tables of the
// domain's context_detection.md and its topics' detectionTriggers, and
// returns what was detected, ranked.
func (p *Provider) DetectProjectType(ctx context.Context, domain string, signals Signals) (DetectionResult, error) {
	if err := checkName(domain); err != nil {
		return DetectionResult{}, err
	}
	res := DetectionResult{Libraries: []string{}, RecommendedFiles: []string{}, Warnings: []Warning{}}
	lib := p.library()
	if _, ok := lib.Domain(domain); !ok || strings.ContainsAny(domain, `/\`) {
		res.Warnings = append(res.Warnings, notFoundDomain(lib, domain))
		return res, nil
	}
	rules := p.current(lib).detection(domain)
	res.Warnings = append(res.Warnings, rules.warnings...)
	if !rules.source {
		res.Warnings = append(res.Warnings, warnf(WarnNoDetection, "domain %q has no context_detection.md and no topic declares detectionTriggers; nothing to detect", domain))
		return res, nil
	}
	type sig struct{ text, kind string }
	var sigs []sig
	for _, g := range []struct {
		kind string
		list []string
	}{{sigImport, signals.Imports}, {sigCode, signals.CodePatterns}, {sigConfig, signals.ConfigFiles}, {sigFile, signals.FilePatterns}} {
		for _, s := range g.list {
			sigs = append(sigs, sig{s, g.kind})
		}
	}
	// score[i][j] is how well signal j matches rule i; a signal counts
	// only for the rules it matches best ("from unittest.mock import" is
	// mocking, not unittest, though both match).
	type hit struct {
		score float64
		pat   pattern
	}
	modules := map[string]string{}
	mod := func(x string) string {
		m, ok := modules[x]
		if !ok {
			m = module(x)
			modules[x] = m
		}
		return m
	}
	scores := make([][]hit, len(rules.rules))
	top := make([]float64, len(sigs))
	for i, r := range rules.rules {
		scores[i] = make([]hit, len(sigs))
		for j, s := range sigs {
			for _, pt := range r.patterns {
				if sc := matchSignal(s.text, s.kind, pt, mod); sc > scores[i][j].score {
					scores[i][j] = hit{sc, pt}
				}
			}
			top[j] = max(top[j], scores[i][j].score)
		}
	}
	for i, r := range rules.rules {
		m := DetectionMatch{Name: r.name, Category: r.category, Files: r.files}
		miss := 1.0
		for j, s := range sigs {
			best, bp := scores[i][j].score, scores[i][j].pat
			if best == 0 || best < top[j]-0.01 {
				continue
			}
			e := best * sigWeight[s.kind]
			miss *= 1 - e
			m.Evidence = append(m.Evidence, Evidence{Signal: s.text, Kind: s.kind, Pattern: bp.text, Source: bp.source, Score: round2(e)})
		}
		m.Score = round2(1 - miss)
		if m.Score >= detectThreshold {
			if m.Files == nil {
				m.Files = []string{}
			}
			res.Matches = append(res.Matches, m)
		}
	}
	slices.SortStableFunc(res.Matches, func(a, b DetectionMatch) int {
		if catOrder[a.Category] != catOrder[b.Category] {
			return catOrder[a.Category] - catOrder[b.Category]
		}
		return cmp.Compare(b.Score, a.Score) // highest first
	})
	for _, m := range res.Matches {
		name := strings.ToLower(m.Name)
		switch m.Category {
		case catFramework:
			if res.Framework == "" {
				res.Framework = name
			} else {
				// A second framework still counts; list it with the
				// libraries so nothing detected is lost.
				res.Libraries = append(res.Libraries, name)
			}
		case catTesting:
			if res.TestingFramework == "" {
				res.TestingFramework = name
			}
		case catArchitecture:
			if res.Architecture == "" {
				res.Architecture = name
			}
		default:
			res.Libraries = append(res.Libraries, name)
		}
		for _, f := range m.Files {
			if !slices.Contains(res.RecommendedFiles, f) {
				res.RecommendedFiles = append(res.RecommendedFiles, f)
			}
		}
	}
	return res, nil
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// ConditionalContext loads the files a detection result calls for within
// the budget of the library's configuration: the domain's always-load
// files are counted first (and not returned: AlwaysLoadFiles returns
// them), then framework files, then library and testing files, then
// cross-cutting topics: the crossDomainTriggers into other domains of the
// topics chosen so far, and the cross-domain matrix rows of the domain
// whose trigger condition names a detected framework or library. Files
// that do not fit are left out with a warning.
func (p *Provider) ConditionalContext(ctx context.Context, domain string, det DetectionResult) (List[ContextFile], error) {
	lib, dom, out, err := p.domainFiles(domain)
	if err != nil || dom == nil {
		return out, err
	}
	var reqs []Request
	always := map[string]bool{}
	for _, t := range alwaysTopics(dom) {
		always[t.ID] = true
		// A detection file costs tokens but takes no file slot.
		reqs = append(reqs, Request{ID: t.ID, Kind: classify(t), Reason: "always"})
	}
	qualify := func(f string) string {
		if strings.ContainsAny(f, "/:") {
			return f
		}
		return domain + "/" + strings.TrimSuffix(f, ".md")
	}
	kindOf := func(cat string) Kind {
		if cat == catFramework {
			return KindFramework
		}
		return KindLibrary
	}
	if len(det.Matches) > 0 {
		for _, m := range det.Matches {
			rel := m.Score
			if m.Category != catFramework && m.Category != catLibrary {
				// Testing and architecture topics share the library
				// slot but rank below the libraries the code uses.
				rel /= 2
			}
			for _, f := range m.Files {
				reqs = append(reqs, Request{ID: qualify(f), Kind: kindOf(m.Category), Relevance: round2(rel), Reason: m.Category + ": " + m.Name})
			}
		}
	} else {
		// A result written by hand: names without matches. Find their
		// files in the detection rules.
		rules := p.current(lib).detection(domain)
		byName := func(name string, kind Kind, reason string) {
			if name == "" {
				return
			}
			for _, r := range rules.rules {
				if r.key == strings.ToLower(name) {
					for _, f := range r.files {
						reqs = append(reqs, Request{ID: f, Kind: kind, Reason: reason + ": " + name})
					}
				}
			}
		}
		byName(det.Framework, KindFramework, catFramework)
		for _, l := range det.Libraries {
			byName(l, KindLibrary, catLibrary)
		}
		byName(det.TestingFramework, KindLibrary, catTesting)
		for i, f := range det.RecommendedFiles {
			// Earlier recommendations rank higher.
			reqs = append(reqs, Request{ID: qualify(f), Relevance: 1 / float64(i+1), Reason: "recommended"})
		}
	}
	budget := lib.Config().Budget
	plan := p.Plan(ctx, reqs, budget)
	// Cross-cutting topics come last in the priority order, so planning
	// again with them keeps every choice of the first plan and spends
	// only the budget it left.
	cross := p.crossCutting(lib, dom, plan, detectedNames(det), &out.Warnings)
	if len(cross) > 0 {
		for _, h := range cross {
			reqs = append(reqs, Request{ID: h.id, Kind: KindCrossDomain, Relevance: h.relevance, Reason: "cross-domain: " + h.matched[0]})
		}
		plan = p.Plan(ctx, reqs, budget)
	}
	out.Warnings = append(out.Warnings, plan.Warnings...)
	for _, it := range plan.Items {
		if always[it.ID] {
			continue
		}
		f, err := p.planFile(ctx, it)
		if err != nil {
			out.Warnings = append(out.Warnings, warnf(WarnFileNotFound, "%s skipped: %v", it.ID, err))
			continue
		}
		if it.Kind == KindCrossDomain {
			for _, h := range cross {
				if h.id == it.ID {
					f.MatchedOn = h.matched
				}
			}
		}
		out.Items = append(out.Items, f)
	}
	return out, nil
}

// detectedNames are the names a detection result detected, which the
// cross-domain matrix's trigger conditions may mention.
func detectedNames(det DetectionResult) []string {
	names := slices.Concat([]string{det.Framework, det.TestingFramework, det.Architecture}, det.Libraries)
	return slices.DeleteFunc(names, func(s string) bool { return s == "" })
}

// crossCutting returns the cross-cutting topics of a conditional-context
// plan, by relevance: the crossDomainTriggers (into other domains) of the
// topics the plan keeps, and the topics of the matrix rows for dom whose
// trigger condition names a detected entry. Topics the plan already holds
// or dropped are left out, so a topic is never asked for twice.
func (p *Provider) crossCutting(lib *library.Snapshot, dom *library.Domain, plan Plan, names []string, warns *[]Warning) []crossHit {
	hits := &hitSet{byID: map[string]*crossHit{}}
	for _, it := range plan.Items {
		if it.File == nil {
			continue
		}
		for _, target := range it.File.Meta.CrossDomainTriggers {
			// A trigger naming no topic is a diagnostic of its file.
			if t, ok := lib.Topic(strings.TrimSuffix(target, ".md")); ok && t.Domain != dom.Name {
				hits.add(t.ID, triggerRelevance, it.ID+" crossDomainTriggers")
			}
		}
	}
	if trigs := triggerTerms(names); len(trigs) > 0 {
		m := p.current(lib).crossMatrix()
		*warns = append(*warns, m.warnings...)
		p.matrixHits(lib, m, dom, trigs, hits, warns)
	}
	held := map[string]bool{}
	for _, it := range plan.Items {
		held[it.ID] = true
	}
	for _, d := range plan.Dropped {
		held[d.ID] = true
	}
	return slices.DeleteFunc(hits.sorted(), func(h crossHit) bool { return held[h.id] })
}

// planFile materializes a plan item: the whole file, or its sections.
func (p *Provider) planFile(ctx context.Context, it PlanItem) (ContextFile, error) {
	f, err := p.file(ctx, it.File)
	if err != nil {
		return ContextFile{}, err
	}
	if len(it.Sections) > 0 {
		doc, err := it.File.Doc.Held(ctx)
		if err != nil {
			return ContextFile{}, fmt.Errorf("%s: %w", it.File.Key(), err)
		}
		var b strings.Builder
		for _, name := range it.Sections {
			if s, ok := it.File.Section(name); ok {
				b.Write(doc.Slice(s.Content))
			}
		}
		f.Content = b.String()
		f.EstimatedTokens = it.Tokens
	}
	f.Reason = it.Reason
	if f.Reason == "" {
		f.Reason = it.Kind.String()
	}
	f.Relevance = it.Relevance
	return f, nil
}
