package agentfiles

import (
	"bytes"
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

	"github.com/ctxls/ctxls/providers/context/document"
	"github.com/ctxls/ctxls/providers/context/fsguard"
	"github.com/ctxls/ctxls/providers/context/rules"
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
	{"context", tContext, "Claude Code: fork runs the skill in a subagent of its own context. A Forge skill's mapping of primary and topics lists names the topics it loads.", []string{"fork"}},
	{"agent", tString, "Claude Code: the subagent type that runs the skill when context is fork.", nil},
	{"paths", tStringOrList, "Claude Code: globs of the files the skill applies to; the skill is offered when such files are involved.", nil},
	{"hooks", tMap, "Claude Code: hooks that run while the skill is active.", nil},
}

// skillNameRE is the specification's name: lowercase letters, digits and
// single hyphens between them.
var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func (c *checker) skill() {
	lim := c.s.cfg.Limits
	root := c.frontmatter(true, "a skill")
	if root.Exists() {
		c.typed(root, skillFields, rules.SkillFieldInvalid)
		if _, v := root.Field("context"); v.Exists() && !isString(v) && v.Kind() != document.MappingNode && v.Tag() != "!!null" {
			c.add(c.nodeSpan(v), rules.SkillFieldInvalid, "context must be a string (fork runs the skill in a subagent)")
		}
		c.skillName(root)
		// A skill's paths may name files the project does not have yet,
		// so only their syntax is checked.
		_, pv := root.Field("paths")
		c.globs(pv, rules.SkillFieldInvalid, "", "paths")
		desc, dk, dv := str(root, "description")
		switch {
		case !dk.Exists() || dv.Tag() == "!!null" || (isString(dv) && strings.TrimSpace(desc) == ""):
			c.add(c.headSpan(dk), rules.SkillDescriptionMissing, "a skill needs a description of what it does and when to use it: the agent picks skills by it")
		case !isString(dv):
			c.add(c.nodeSpan(dv), rules.SkillDescriptionMissing, "description must be a string")
		case utf8.RuneCountInString(desc) > lim.SkillDescription:
			c.add(c.nodeSpan(dv), rules.SkillDescriptionTooLong, "description is %d characters, over the %d the specification allows", utf8.RuneCountInString(desc), lim.SkillDescription)
		}
		if comp, _, cv := str(root, "compatibility"); cv.Exists() && utf8.RuneCountInString(comp) > lim.SkillCompatibility {
			c.add(c.nodeSpan(cv), rules.SkillCompatibilityLong, "compatibility is %d characters, over the %d the specification allows", utf8.RuneCountInString(comp), lim.SkillCompatibility)
		}
		if _, mv := root.Field("metadata"); mv.Exists() && mv.Kind() == document.MappingNode {
			for k, v := range mv.Entries() {
				switch {
				case isString(v):
				case v.Kind() == document.SequenceNode:
					c.add(c.valueSpan(k, v), rules.SkillMetadataInvalid, "metadata.%s must be a string, not a list; write the items as one string", k.Value())
				case v.Kind() == document.MappingNode:
					c.add(c.valueSpan(k, v), rules.SkillMetadataInvalid, "metadata.%s must be a string, not a map: the specification allows string values only", k.Value())
				default:
					c.add(c.valueSpan(k, v), rules.SkillMetadataInvalid, "metadata.%s must be a string; quote it", k.Value())
				}
			}
		}
		when, _, _ := str(root, "when_to_use")
		if n := utf8.RuneCountInString(desc) + utf8.RuneCountInString(when); dv.Exists() && isString(dv) && n > lim.SkillListing {
			c.add(c.nodeSpan(dv), rules.SkillListingTooLong, "description and when_to_use are %d characters together; the skill listing shows the first %d and cuts the rest, after %q",
				n, lim.SkillListing, cutPoint(desc+when, lim.SkillListing))
		}
	}
	c.skillBody()
	c.skillLinks()
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
func (c *checker) skillName(root document.Node) {
	name, k, v := str(root, "name")
	folder := path.Base(path.Dir(c.f.Rel))
	switch {
	case !k.Exists() || v.Tag() == "!!null" || (isString(v) && name == ""):
		c.add(c.headSpan(k), rules.SkillNameMissing, "a skill needs a name (the specification requires it; it must be the folder's name, %s)", folder)
		return
	case !isString(v):
		c.add(c.nodeSpan(v), rules.SkillNameInvalid, "name must be a string of lowercase letters, digits and hyphens")
		return
	}
	if why := skillNameProblem(name); why != "" {
		c.add(c.f.Doc.ValueSpan(v), rules.SkillNameInvalid, "name %q %s", name, why)
	}
	switch {
	case name == folder:
	case skillNameProblem(folder) == "":
		d := c.add(c.f.Doc.ValueSpan(v), rules.SkillNameMismatch, "name %q differs from the skill's folder, %s; the specification requires them equal", name, folder)
		if d != nil {
			d.Fix = &Fix{Title: fmt.Sprintf("Rename the skill to %s (its folder)", folder), Edits: []Edit{{Span: c.f.Doc.NodeSpan(v), NewText: folder}}}
		}
	default:
		// The folder's name cannot be a skill's name, so renaming the
		// skill cannot fix it: the folder has to move.
		c.add(c.f.Doc.ValueSpan(v), rules.SkillNameMismatch, "name %q differs from the skill's folder, %q, which is no valid skill name; rename the folder", name, folder)
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
		c.add(c.lineSpan(first+lim.SkillBodyLines), rules.SkillBodyTooLong, "the body is %d lines, over the %d the specification recommends; move details into references/ files the body links to", lines, lim.SkillBodyLines)
		return
	}
	counter := c.s.counter()
	if n := counter.Count(string(doc.Text[doc.Body.Start:])); n > lim.SkillBodyTokens {
		c.add(c.lineSpan(first), rules.SkillBodyTooLong, "the body is %d tokens (%s), over the %d the specification recommends; it is loaded whole when the skill activates", n, counter.Name(), lim.SkillBodyTokens)
	}
}

var (
	// mdLink matches an inline link or image target: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)`)
	// skillPath matches a file path into a skill's optional folders.
	skillPath = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:\./)?(?:scripts|references|assets)/[\w./-]*\w\.[A-Za-z0-9]+)`)
	schemeRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	// linkDef matches a link reference definition: [label]: target.
	linkDef = regexp.MustCompile(`^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)`)
	// readCue matches what comes before a code span that points the agent
	// at a file ("Read `references/x.md`", "Detail: `...`", a table's
	// first cell), unlike an example of a layout ("e.g. `references/x.md`").
	readCue = regexp.MustCompile(`(?i)(?:\b(?:read|see|load|consult|open|follow)|\bdetails?:|^\s*\|)\s*$`)
	// cuedPath matches a relative path with a folder and an extension.
	cuedPath = regexp.MustCompile(`^(?:\./)?[\w-][\w.-]*(?:/[\w.-]+)+\.[A-Za-z0-9]+$`)
	// mdName matches a bare markdown file name in prose: see FORMS.md.
	mdName = regexp.MustCompile(`(?:^|[\s(])([\w-]+\.md)\b`)
)

// skillLinks checks that relative links and file paths of the body name
// files inside the skill's folder. A bare path (scripts/x.py in the text)
// that is not in the skill but is in the project is taken as the
// project's: a project skill talks about the project's files.
func (c *checker) skillLinks() {
	doc := c.f.Doc
	dir := path.Dir(c.f.Rel)
	seen := map[int]bool{}
	check := func(target string, span document.Span, bare bool) {
		if seen[span.Start] {
			return
		}
		seen[span.Start] = true
		t := strings.Trim(target, "<>")
		if t == "" || t[0] == '#' || t[0] == '/' || t[0] == '~' || schemeRE.MatchString(t) || strings.ContainsAny(t, "{}<>$*") {
			return
		}
		if i := strings.IndexAny(t, "#?"); i >= 0 {
			t = t[:i]
		}
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		if t == "" {
			return
		}
		rel := path.Join(dir, t)
		exists, escapes := c.lookRel(rel)
		if !exists && bare && c.existsRel(path.Clean(t)) {
			return // a path of the project the skill works on, not of the skill
		}
		inside := rel == dir || strings.HasPrefix(rel, dir+"/")
		switch {
		case !exists:
			c.add(span, rules.SkillLinkBroken, "%s names no file (looked for %s)", target, rel)
		case escapes:
			// Where the link leads is left out, as for an import.
			c.add(span, rules.SkillLinkOutside, "%s leads out of the workspace through a symbolic link: ctxls does not read it, and a skill installed elsewhere will not have it", target)
		case !inside:
			c.add(span, rules.SkillLinkOutside, "%s leaves the skill's folder; a skill installed elsewhere will not have it", target)
		}
	}
	spans := c.bodyCodeSpans()
	// A link the author commented out is not one the reader follows.
	comments := c.bodyComments()
	codes := append(slices.Clone(spans), comments...)
	next := 0 // the first code span not yet looked at
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		if _, in := doc.InFence(start); in {
			continue
		}
		text := doc.Lines.Line(n)
		for _, m := range mdLink.FindAllSubmatchIndex(text, -1) {
			if _, in := spanAt(codes, start+m[0]); in {
				continue
			}
			check(string(text[m[2]:m[3]]), document.Span{Start: start + m[2], End: start + m[3]}, false)
		}
		if m := linkDef.FindSubmatchIndex(text); m != nil {
			check(string(text[m[2]:m[3]]), document.Span{Start: start + m[2], End: start + m[3]}, false)
		}
		for _, m := range skillPath.FindAllSubmatchIndex(text, -1) {
			sp := document.Span{Start: start + m[2], End: start + m[3]}
			// In code, a path is often an example ("`scripts/rotate.py`
			// for PDF rotation"); a command that runs it is a reference.
			if code, ok := spanAt(codes, sp.Start); ok && !runsPath(doc.Text[code.Start:code.End], sp.Start-code.Start) && !pointsAt(doc.Text, start, code, sp) {
				continue
			}
			check(string(text[m[2]:m[3]]), sp, true)
		}
		// A code span that is a path the text tells the agent to read
		// ("Read `examples/report.md`", a table's first cell) is checked
		// whatever folder it names.
		end := start + len(text)
		for ; next < len(spans) && spans[next].Start < end; next++ {
			sp := spans[next]
			if sp.Start < start || !cuedPath.Match(doc.Text[sp.Start:sp.End]) {
				continue
			}
			if _, in := spanAt(comments, sp.Start); !in && pointsAt(doc.Text, start, sp, sp) {
				check(string(doc.Text[sp.Start:sp.End]), sp, true)
			}
		}
		// A bare file name in prose ("read FORMS.md") is checked only when
		// the skill has the file under another case: on a case-sensitive
		// file system the agent finds nothing, and the author did not see
		// it on theirs.
		var links []document.Span
		for _, m := range mdLink.FindAllIndex(text, -1) {
			links = append(links, document.Span{Start: start + m[0], End: start + m[1]})
		}
		for _, m := range mdName.FindAllSubmatchIndex(text, -1) {
			sp := document.Span{Start: start + m[2], End: start + m[3]}
			name := string(text[m[2]:m[3]])
			_, inCode := spanAt(codes, sp.Start)
			_, inLink := spanAt(links, sp.Start)
			if inCode || inLink || c.existsRel(path.Join(dir, name)) {
				continue
			}
			// "skill.md" names the file the reader is in, whatever its case.
			if twin := c.s.caseTwin(dir, name); twin != "" && twin != "SKILL.md" && !seen[sp.Start] {
				seen[sp.Start] = true
				c.add(sp, rules.SkillLinkBroken, "%s names no file: the skill has %s, and file names are case-sensitive where the agent runs", name, twin)
			}
		}
	}
}

// pointsAt reports whether the code span code, starting the path at sp,
// points the agent at that file: the path is all the span holds and a
// reading cue comes before it on its line.
func pointsAt(text []byte, line int, code, sp document.Span) bool {
	if sp.Start != code.Start && !(sp.Start == code.Start+2 && string(text[code.Start:sp.Start]) == "./") {
		return false
	}
	if sp.End != code.End {
		return false
	}
	open := code.Start
	for open > line && text[open-1] == '`' {
		open--
	}
	return readCue.Match(text[line:open])
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

// bodyCodeSpans returns the code spans of the body outside fences. A code
// span may run over a line break but not past a paragraph's end, so the
// backticks are paired paragraph by paragraph.
func (c *checker) bodyCodeSpans() []document.Span {
	doc := c.f.Doc
	var out []document.Span
	para := -1
	flush := func(end int) {
		if para >= 0 {
			out = append(out, document.CodeSpans(doc.Text, document.Span{Start: para, End: end})...)
		}
		para = -1
	}
	for n := doc.Lines.LineOf(doc.Body.Start); n < doc.Lines.Count(); n++ {
		start := doc.Lines.Start(n)
		text := doc.Lines.Line(n)
		if _, in := doc.InFence(start); in || len(bytes.TrimSpace(text)) == 0 {
			flush(start)
			continue
		}
		if para < 0 {
			para = start
		}
	}
	flush(len(doc.Text))
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

// runCommand matches the start of a code span that runs a file: an
// interpreter, then the file.
var runCommand = regexp.MustCompile(`^(?:(?:uv run|python3?|node|bash|sh|ruby|deno run|bun|npx tsx|tsx)\s+)$`)

// runsPath reports whether the code holds a command that runs the path at
// offset at: the interpreter is all that comes before it.
func runsPath(code []byte, at int) bool {
	return runCommand.Match(code[:at])
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
