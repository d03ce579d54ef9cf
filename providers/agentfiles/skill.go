package agentfiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/fsguard"
	"github.com/ctxls/ctxls/providers/internal/glob"
	"github.com/ctxls/ctxls/providers/tokens"
)

// skillFields are the fields of the Agent Skills specification and the
// ones Claude Code adds. context is a string ("fork") for Claude Code and
// a mapping of topic lists in Forge libraries; both are accepted.
var skillFields = []field{
	{"name", tString, "The skill's name: 1-64 lowercase letters, digits and single hyphens, equal to the skill's folder. Required.", nil},
	{"description", tString, "What the skill does and when to use it, 1-1024 characters. The agent picks skills by it: only name and description are loaded at session start. Required.", nil},
	{"license", tString, "The license of the skill, a name or the file that holds it.", nil},
	{"compatibility", tString, "What the skill needs from its environment (products, packages, network), at most 500 characters.", nil},
	{"metadata", tMap, "A map of string keys to string values, for properties the specification does not define.", nil},
	{"allowed-tools", tStringOrList, "Tools the skill may use without asking, space-separated or a list (experimental).", nil},
	{"when_to_use", tString, "Claude Code: when to use the skill, shown after the description in the skill listing; the two together are cut at 1,536 characters.", nil},
	{"argument-hint", tStringOrList, "Claude Code: the arguments shown after the skill's name when it is invoked as /name, such as [issue-number].", nil},
	{"disable-model-invocation", tBool, "Claude Code: true keeps the model from invoking the skill on its own; only the user runs it.", boolValues},
	{"user-invocable", tBool, "Claude Code: false hides the skill from the / menu; the model can still invoke it.", boolValues},
	{"model", tString, "Claude Code: the model the skill runs with.", []string{"sonnet", "opus", "haiku", "inherit"}},
	{"effort", tString, "Claude Code: the reasoning effort of the model while the skill runs.", []string{"low", "medium", "high", "xhigh", "max"}},
	{"context", tContext, "Claude Code: fork runs the skill in a subagent of its own context. A Forge skill's mapping of primary and topics lists names the topics it loads.", []string{"fork"}},
	{"agent", tString, "Claude Code: the subagent type that runs the skill when context is fork.", nil},
	{"paths", tStringOrList, "Claude Code: globs of the files the skill applies to; the skill is offered when such files are involved.", nil},
	{"hooks", tMap, "Claude Code: hooks that run while the skill is active.", nil},
}

// skillNameRE is the specification's name: lowercase letters, digits and
// single hyphens between them.
var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// The Agent Skills specification, named in messages of its rules.
const specName = "the Agent Skills specification"

func (c *checker) skill(ctx context.Context) {
	lim := c.s.cfg.Limits
	aud := c.s.audienceOf(c.f.Rel, c.f.via)
	if o := c.f.aliasOf; o != nil {
		aud = c.s.audienceOf(o.Rel, o.via) // the original's places, this one among them
	}
	c.aud = aud
	root := c.frontmatter(false, "a skill")
	switch {
	case c.f.Doc.Frontmatter == nil:
		switch {
		case aud.codex:
			c.add(c.lineSpan(0), diag.SkillNotLoaded, "this skill has no YAML frontmatter, so Codex skips it: it needs a name and a description between --- lines at the top")
		case aud.spec:
			c.add(c.lineSpan(0), diag.SkillDescriptionMissing, "this skill has no YAML frontmatter: %s requires a name and a description between --- lines at the top, and agents pick skills by the description", specName)
		default:
			c.add(c.lineSpan(0), diag.SkillDescriptionMissing, "this skill has no frontmatter, so Claude Code describes it by its first paragraph; add a description of what it does and when to use it, between --- lines at the top")
		}
	case root.Exists():
		c.typed(root, skillFields, diag.SkillFieldInvalid)
		if _, v := root.Field("context"); v.Exists() && !isString(v) && v.Kind() != document.MappingNode && v.Tag() != "!!null" {
			c.add(c.nodeSpan(v), diag.SkillFieldInvalid, "context must be a string (fork runs the skill in a subagent)")
		}
		c.skillName(root)
		c.skillClaude(root)
		// A skill's paths may name files the project does not have yet,
		// so only their syntax is checked.
		_, pv := root.Field("paths")
		c.globs(pv, glob.Options{}, diag.SkillFieldInvalid, "", "paths")
		desc, dk, dv := str(root, "description")
		n := utf8.RuneCountInString(desc)
		switch {
		case !dk.Exists() || dv.Tag() == "!!null" || (isString(dv) && strings.TrimSpace(desc) == ""):
			switch {
			case aud.codex:
				c.add(c.headSpan(dk), diag.SkillNotLoaded, "this skill has no description, so Codex skips it; say what it does and when to use it")
			case aud.spec:
				c.add(c.headSpan(dk), diag.SkillDescriptionMissing, "a skill needs a description of what it does and when to use it (%s requires one): agents pick skills by it", specName)
			default:
				c.add(c.headSpan(dk), diag.SkillDescriptionMissing, "this skill has no description, so Claude Code describes it by its first paragraph; say what it does and when to use it")
			}
		case !isString(dv) && aud.codex:
			c.add(c.nodeSpan(dv), diag.SkillNotLoaded, "description is not a string, so Codex skips the skill")
		case !isString(dv):
			c.add(c.nodeSpan(dv), diag.SkillDescriptionMissing, "description must be a string")
		case n > lim.SkillDescription && aud.codex:
			c.add(c.nodeSpan(dv), diag.SkillNotLoaded, "description is %d characters, over the %d Codex reads, so Codex skips the skill", n, lim.SkillDescription)
		case n > lim.SkillDescription && aud.spec:
			c.add(c.nodeSpan(dv), diag.SkillDescriptionTooLong, "description is %d characters, over the %d %s allows", n, lim.SkillDescription, specName)
		}
		if comp, _, cv := str(root, "compatibility"); aud.spec && cv.Exists() && utf8.RuneCountInString(comp) > lim.SkillCompatibility {
			c.add(c.nodeSpan(cv), diag.SkillCompatibilityLong, "compatibility is %d characters, over the %d %s allows", utf8.RuneCountInString(comp), lim.SkillCompatibility, specName)
		}
		if _, mv := root.Field("metadata"); aud.spec && mv.Exists() && mv.Kind() == document.MappingNode {
			for k, v := range mv.Entries() {
				switch {
				case isString(v):
				case v.Kind() == document.SequenceNode:
					c.add(c.valueSpan(k, v), diag.SkillMetadataInvalid, "metadata.%s is a list, where %s allows string values only; agents that follow it may drop it", k.Value(), specName)
				case v.Kind() == document.MappingNode:
					c.add(c.valueSpan(k, v), diag.SkillMetadataInvalid, "metadata.%s is a map, where %s allows string values only; agents that follow it may drop it", k.Value(), specName)
				default:
					c.add(c.valueSpan(k, v), diag.SkillMetadataInvalid, "metadata.%s is not a string, where %s allows string values only; quote it", k.Value(), specName)
				}
			}
		}
		when, _, _ := str(root, "when_to_use")
		if n := utf8.RuneCountInString(desc) + utf8.RuneCountInString(when); dv.Exists() && isString(dv) && n > lim.SkillListing {
			c.add(c.nodeSpan(dv), diag.SkillListingTooLong, "description and when_to_use are %d characters together; the skill listing shows the first %d and cuts the rest, after %q",
				n, lim.SkillListing, cutPoint(desc+when, lim.SkillListing))
		}
	}
	c.skillBody()
	c.skillLinks(ctx)
}

// headSpan is where a missing field is reported: the key when present,
// else the frontmatter's opening line.
func (c *checker) headSpan(k document.Node) document.Span {
	if k.Exists() {
		return c.nodeSpan(k)
	}
	return c.lineSpan(0)
}

// skillName checks the name against the specification and the folder.
// Claude Code names a skill after its folder when it has no name, and
// after its name when it has one, so a missing or different name matters
// only to the agents that follow the specification.
func (c *checker) skillName(root document.Node) {
	aud := c.aud
	name, k, v := str(root, "name")
	folder := path.Base(path.Dir(c.f.Rel))
	switch {
	case !k.Exists() || v.Tag() == "!!null" || (isString(v) && name == ""):
		switch {
		case aud.codex:
			c.add(c.headSpan(k), diag.SkillNotLoaded, "this skill has no name, so Codex skips it; name it %s, after its folder", folder)
		case aud.spec:
			c.add(c.headSpan(k), diag.SkillNameMissing, "this skill has no name: %s requires one, equal to the folder's name, %s", specName, folder)
		}
		return
	case !isString(v):
		c.add(c.nodeSpan(v), diag.SkillNameInvalid, "name must be a string of lowercase letters, digits and hyphens")
		return
	}
	if len(name) > 64 && aud.codex {
		c.add(c.f.Doc.ValueSpan(v), diag.SkillNotLoaded, "name is %d characters, over the 64 Codex reads, so Codex skips the skill", len(name))
	} else if why := skillNameProblem(name); why != "" {
		c.add(c.f.Doc.ValueSpan(v), diag.SkillNameInvalid, "name %q %s", name, why)
	}
	switch {
	case name == folder || !aud.spec:
	case folder == "skills":
		// A SKILL.md right in a skills folder: the folder holds the skill
		// rather than names it, and an installer names it after its name.
	case skillNameProblem(folder) == "":
		d := c.add(c.f.Doc.ValueSpan(v), diag.SkillNameMismatch, "name %q differs from the skill's folder, %s; %s requires them equal", name, folder, specName)
		if d != nil {
			d.Fixes = []diag.Fix{{Title: fmt.Sprintf("Rename the skill to %s (its folder)", folder), Edits: []diag.Edit{{Span: c.f.Doc.NodeSpan(v), NewText: folder}}, Preferred: true}}
		}
	default:
		// The folder's name cannot be a skill's name, so renaming the
		// skill cannot fix it: the folder has to move.
		c.add(c.f.Doc.ValueSpan(v), diag.SkillNameMismatch, "name %q differs from the skill's folder, %q, which is no valid skill name (%s requires them equal); rename the folder", name, folder, specName)
	}
}

// skillNameProblem says what is wrong with a skill name, or "".
func skillNameProblem(name string) string {
	switch {
	case len(name) > 64:
		return fmt.Sprintf("is %d characters, over 64", len(name))
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return "must not start or end with a hyphen"
	case strings.Contains(name, "--"):
		return "must not hold two hyphens in a row"
	case !skillNameRE.MatchString(name):
		return "must be lowercase letters, digits and hyphens"
	}
	return ""
}

// cutPoint returns the last words before the cut at n characters.
func cutPoint(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[max(0, n-30):n])
}

// skillCounter returns the tokenizer a skill's body is measured in: that
// of the agent that loads it, Claude's for a skill of Claude Code, else
// o200k_base for one of Codex, else the workspace's.
func (c *checker) skillCounter() tokens.Counter {
	name := ""
	switch {
	case c.aud.claude:
		name = tokens.Claude
	case c.aud.codex:
		name = tokens.O200kBase
	}
	if name != "" {
		if t, err := tokens.New(name); err == nil {
			return t
		}
	}
	return c.s.counter()
}

// skillBody warns about a body past the recommended lines or tokens.
func (c *checker) skillBody() {
	lim := c.s.cfg.Limits
	doc := c.f.Doc
	first := doc.Lines.LineOf(doc.Body.Start)
	if doc.Body.Start >= len(doc.Text) {
		return
	}
	lines := doc.Lines.Count() - first
	if len(doc.Text) > 0 && doc.Text[len(doc.Text)-1] == '\n' {
		lines-- // the empty "line" after the last line break
	}
	if lines > lim.SkillBodyLines {
		c.add(c.lineSpan(first+lim.SkillBodyLines), diag.SkillBodyTooLong, "the body is %d lines, over the %d the specification recommends; move details into references/ files the body links to", lines, lim.SkillBodyLines)
		return
	}
	counter := c.skillCounter()
	if n := counter.Count(string(doc.Text[doc.Body.Start:])); n > lim.SkillBodyTokens {
		if d := c.add(c.lineSpan(first), diag.SkillBodyTooLong, "the body is %d tokens (%s), over the %d the specification recommends; it is loaded whole when the skill activates", n, counter.Name(), lim.SkillBodyTokens); d != nil {
			d.Tokenizer = counter.Name()
		}
	}
}

var (
	// mdLink matches an inline link or image target: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)`)
	// linkDef matches a link reference definition: [label]: target.
	linkDef = regexp.MustCompile(`^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)`)
	// barePath matches a relative file path in the text: a folder, a
	// name and an extension, after a space, a quote, a bracket, a table
	// bar or an emphasis mark, as in prose, list items, table cells and
	// code spans.
	barePath = regexp.MustCompile(`(?:^|[\s(\x60"'|*\[])((?:\./)?[\w-][\w.-]*(?:/[\w.-]+)*/[\w.-]*\w\.[A-Za-z0-9]+)`)
	// producesCue matches what comes before a path the skill tells the
	// agent to make, not to read: "write the plan to", "save as", "creates".
	producesCue = regexp.MustCompile(`(?i)\b(?:write|writes|writing|written|save|saves|saving|saved|create|creates|creating|created|generate|generates|generated|output|outputs|produce|produces|emit|emits|append|appends|store|stores|record|records|download|downloads)\b`)
	// exampleCue matches what comes right before a path given as an
	// example of a layout: "e.g.", "for example", "such as", "like".
	exampleCue = regexp.MustCompile(`(?i)(?:\be\.g\.,?|\bi\.e\.,?|\bfor example,?|\bsuch as|\blike|\bsay)\s*\x60*$`)
	// exampleAfter matches what comes right after a path given as an
	// example: "`scripts/x.py` as an example".
	exampleAfter = regexp.MustCompile(`(?i)^\x60*[,)]?\s*(?:as an? example|as examples|for example|for instance)`)
	// readCue matches words before a code span that point the agent at a
	// file: "Read the guide in `references/x.md`", "Details: `...`".
	readCue = regexp.MustCompile(`(?i)\b(?:read|reads|see|load|loads|consult|open|follow|refer|run|runs|execute|invoke|details?|documented|described)\b`)
	// itemStart matches what comes before a code span that starts a list
	// item or a table cell: a list of the skill's files.
	itemStart = regexp.MustCompile(`(?:^\s*(?:[-*+]|\d+[.)])|\|)\s*$`)
	// runCommand matches the start of a code span that runs a file.
	runCommand = regexp.MustCompile(`^(?:uv run|python3?|node|bash|sh|ruby|deno run|bun|npx tsx|tsx)\s+$`)
	// mdName matches a bare markdown file name in prose: see FORMS.md.
	mdName = regexp.MustCompile(`(?:^|[\s(])([\w-]+\.md)\b`)
)

// findAll is re.FindAllSubmatchIndex(text, -1) on a line that holds need,
// which every match of re holds; on any other line it is nil.
func findAll(re *regexp.Regexp, text []byte, need string) [][]int {
	if !bytes.Contains(text, []byte(need)) {
		return nil
	}
	return re.FindAllSubmatchIndex(text, -1)
}

// hasScheme reports whether t starts with a URL scheme ("https:",
// "mailto:"): a letter, then letters, digits, "+", "." or "-", then ":".
func hasScheme(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// mdNames is mdName's matches on the line text at offset start, tried only
// when a ".md" of the line lies outside its links, which are checked as
// links.
func mdNames(text []byte, start int, links []document.Span) [][]int {
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(".md"))
		if j < 0 {
			return nil
		}
		i += j
		if _, in := spanAt(links, start+i); !in {
			return mdName.FindAllSubmatchIndex(text, -1)
		}
		i += 3
	}
}

// linkDefAt is linkDef's match on text, tried only where a definition can
// start: a "[" after at most three spaces, and a "]:" further on.
func linkDefAt(text []byte) []int {
	t := bytes.TrimLeft(text, " ")
	if len(text)-len(t) > 3 || len(t) == 0 || t[0] != '[' || !bytes.Contains(t, []byte("]:")) {
		return nil
	}
	return linkDef.FindSubmatchIndex(text)
}

// lastWords returns the last n words of b.
func lastWords(b []byte, n int) []byte {
	i := len(b)
	for ; i > 0 && n >= 0; i-- {
		if b[i-1] == ' ' && (i == len(b) || b[i] != ' ') {
			n--
		}
	}
	return b[i:]
}

// under reports whether the relative slash path p is root or lies below
// it; "." holds every path that does not climb out of it.
func under(p, root string) bool {
	if root == "." {
		return !fsguard.Climbs(p)
	}
	return fsguard.Within(root, p)
}

// outputFolders are folders a skill writes into as it runs.
var outputFolders = []string{"output", "outputs", "out", "tmp", "temp", "build", "dist", "results", "generated"}

// specFolders are the folders of a skill the specification names.
var specFolders = []string{"scripts", "references", "assets"}

// skillLinks checks the paths the text tells the agent to read, open or
// run, and reports only those it clearly points at as files of the skill
// that are not there:
//   - a link's target, relative to the skill's folder;
//   - a path elsewhere in the text (prose, a list item, a table cell, a
//     code span) whose first folder is one the specification names
//     (scripts/, references/, assets/) or one the skill has. A path of
//     any other folder may be a file of the user's project (app/page.tsx
//     in a migration guide), one the skill writes (quality/PROGRESS.md), a
//     branch (release/v1.2.0) or a model: it is not the skill's to check.
//     Nor is a path the text says the agent makes ("write the plan to
//     references/plan.md") or gives as an example ("e.g. assets/x.png"),
//     nor one the project itself has.
//
// A link that leaves the skill's folder is reported only for a skill that
// travels (see travelRoot): a project's own skill runs in the repository.
func (c *checker) skillLinks(ctx context.Context) {
	doc := c.f.Doc
	dir := path.Dir(c.f.Rel)
	travel, travelWhat := c.s.travelRoot(c.f.Rel)
	// seen holds the starts of the paths of the line checked so far: a
	// path is checked once, whichever pattern finds it.
	var seen []int
	check := func(target string, span document.Span, bare bool) {
		if slices.Contains(seen, span.Start) {
			return
		}
		seen = append(seen, span.Start)
		t := strings.Trim(target, "<>")
		if t == "" || t[0] == '#' || t[0] == '/' || t[0] == '~' || hasScheme(t) || strings.ContainsAny(t, "{}<>$*") {
			return
		}
		if i := strings.IndexAny(t, "#?"); i >= 0 {
			t = t[:i]
		}
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		if t == "" || !strings.ContainsAny(t, "./") {
			return // [title](URL): a placeholder, not a path
		}
		rel := path.Join(dir, t)
		exists, escapes := c.lookRel(rel)
		if !exists && bare && c.existsRel(path.Clean(t)) {
			return // a path of the project the skill works on, not of the skill
		}
		switch {
		case !exists:
			c.add(span, diag.SkillLinkBroken, "%s names no file (looked for %s)", target, rel)
		case escapes:
			// Where the link leads is left out, as for an import.
			c.add(span, diag.SkillLinkOutside, "%s leads out of the workspace through a symbolic link: ctxls does not read it, and a skill installed elsewhere will not have it", target)
		case travel != "" && !under(rel, travel) && !under(travel, rel):
			switch travelWhat {
			case "plugin":
				c.add(span, diag.SkillLinkOutside, "%s leaves the plugin's folder, %s; an installed plugin is copied on its own, so the file will not be there", target, travel)
			case "package":
				c.add(span, diag.SkillLinkOutside, "%s leaves %s, the packages this skill ships with; installed from its package, the skill will not have it", target, travel)
			default:
				c.add(span, diag.SkillLinkOutside, "%s leaves the skill's folder; a skill of a collection is installed on its own, so the file will not be there", target)
			}
		}
	}
	spans := c.f.Doc.BodyCodeSpans()
	// A link the author commented out is not one the reader follows.
	comments := c.bodyComments()
	codes := append(slices.Clone(spans), comments...)
	first := doc.Lines.LineOf(doc.Body.Start)
	// The lines are read in order, each found from the end of the one
	// before, rather than looked up one by one.
	next := doc.Lines.Start(first)
	for n := first; n < doc.Lines.Count(); n++ {
		// A body of a million lines stops when the request does.
		if n%1024 == 0 && ctx.Err() != nil {
			return
		}
		start, end := next, len(doc.Text)
		if i := bytes.IndexByte(doc.Text[start:], '\n'); i >= 0 {
			end = start + i
		}
		next = min(end+1, len(doc.Text))
		if _, in := doc.InFence(start); in {
			continue
		}
		text := bytes.TrimSuffix(doc.Text[start:end], []byte("\r"))
		seen = seen[:0]
		var links []document.Span
		// Each pattern runs only on lines that hold what it needs: a body
		// of a million lines is read in well under a second.
		for _, m := range findAll(mdLink, text, "](") {
			links = append(links, document.Span{Start: start + m[0], End: start + m[1]})
			if _, in := spanAt(codes, start+m[0]); in {
				continue
			}
			check(string(text[m[2]:m[3]]), document.Span{Start: start + m[2], End: start + m[3]}, false)
		}
		if m := linkDefAt(text); m != nil {
			check(string(text[m[2]:m[3]]), document.Span{Start: start + m[2], End: start + m[3]}, false)
		}
		for _, m := range findAll(barePath, text, "/") {
			sp := document.Span{Start: start + m[2], End: start + m[3]}
			if _, in := spanAt(links, sp.Start); in {
				continue // a link's text or target, checked above
			}
			if _, in := spanAt(comments, sp.Start); in {
				continue
			}
			p := strings.TrimPrefix(string(text[m[2]:m[3]]), "./")
			first := p[:strings.IndexByte(p, '/')]
			if !slices.Contains(specFolders, first) && !c.s.hasDir(path.Join(dir, first)) {
				continue // not the skill's: see the doc comment
			}
			if slices.Contains(outputFolders, first) || c.s.exists(path.Join(dir, first, ".gitignore")) {
				continue // what the skill makes when it runs
			}
			before := lastWords(text[:m[2]], 6)
			if producesCue.Match(before) || exampleCue.Match(before) || exampleAfter.Match(text[m[3]:]) {
				continue
			}
			// In code, a path is often an example of a layout ("ask for
			// `references/idea.md`"); it points at a file when it starts a
			// list item or a table cell, follows a word that sends the
			// agent to it, or is run.
			if code, ok := spanAt(spans, sp.Start); ok {
				open := code.Start
				for open > start && doc.Text[open-1] == '\x60' {
					open--
				}
				lead := doc.Text[start:open]
				if !itemStart.Match(lead) && !readCue.Match(lastWords(lead, 4)) && !runCommand.Match(doc.Text[code.Start:sp.Start]) {
					continue
				}
			}
			check(string(text[m[2]:m[3]]), sp, true)
		}
		// A bare file name in prose ("read FORMS.md") is checked only when
		// the skill has the file under another case: on a case-sensitive
		// file system the agent finds nothing, and the author did not see
		// it on theirs.
		for _, m := range mdNames(text, start, links) {
			sp := document.Span{Start: start + m[2], End: start + m[3]}
			name := string(text[m[2]:m[3]])
			_, inCode := spanAt(codes, sp.Start)
			_, inLink := spanAt(links, sp.Start)
			if inCode || inLink || c.existsRel(path.Join(dir, name)) {
				continue
			}
			// "skill.md" names the file the reader is in, whatever its case.
			if twin := c.s.caseTwin(dir, name); twin != "" && twin != "SKILL.md" && !slices.Contains(seen, sp.Start) {
				seen = append(seen, sp.Start)
				c.add(sp, diag.SkillLinkBroken, "%s names no file: the skill has %s, and file names are case-sensitive where the agent runs", name, twin)
			}
		}
	}
}

// bodyComments returns the HTML comments of the body outside fences; an
// unclosed one runs to the end.
func (c *checker) bodyComments() []document.Span {
	doc := c.f.Doc
	var out []document.Span
	for at := doc.Body.Start; at < len(doc.Text); {
		i := bytes.Index(doc.Text[at:], []byte("<!--"))
		if i < 0 {
			break
		}
		open := at + i
		if _, in := doc.InFence(open); in {
			at = open + 4
			continue
		}
		end := len(doc.Text)
		if j := bytes.Index(doc.Text[open+4:], []byte("-->")); j >= 0 {
			end = open + 4 + j + 3
		}
		out = append(out, document.Span{Start: open, End: end})
		at = end
	}
	return out
}

// spanAt returns the span of spans holding off.
func spanAt(spans []document.Span, off int) (document.Span, bool) {
	for _, s := range spans {
		if off >= s.Start && off < s.End {
			return s, true
		}
	}
	return document.Span{}, false
}

// existsRel reports whether a path relative to the workspace root names
// a file or folder, looking on disk for paths above the root.
func (c *checker) existsRel(rel string) bool {
	exists, _ := c.lookRel(rel)
	return exists
}

// lookRel reports whether a path relative to the workspace root names a
// file or folder, and whether that is because a symbolic link on the path
// leads out of the workspace: then something is there, but ctxls does not
// look at what. A path above the root is looked for on disk; that is the
// one look past the workspace, and it reads nothing.
func (c *checker) lookRel(rel string) (exists, escapes bool) {
	if r, ok := c.looked[rel]; ok {
		return r.exists, r.escapes
	}
	exists, escapes = c.look(rel)
	if c.looked == nil {
		c.looked = map[string]lookResult{}
	}
	c.looked[rel] = lookResult{exists, escapes}
	return exists, escapes
}

// look is lookRel without the memo.
func (c *checker) look(rel string) (exists, escapes bool) {
	p := filepath.Join(c.s.Root, filepath.FromSlash(rel))
	if !fsguard.Within(c.s.Root, p) {
		_, err := os.Stat(p)
		return err == nil, false
	}
	if c.s.exists(rel) {
		return true, false
	}
	// The listing of the workspace does not enter linked folders, nor
	// ignored ones: the root check looks through the links.
	_, err := c.s.Guard().Stat(p)
	switch {
	case err == nil:
		return true, false
	case errors.Is(err, fsguard.ErrOutsideWorkspace), fsguard.IsLoop(err):
		return true, true
	}
	return false, false
}
