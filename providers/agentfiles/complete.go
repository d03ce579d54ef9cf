package agentfiles

import (
	"bytes"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/providers/document"
)

// ruleFields are the fields of a Claude Code rule under .claude/rules.
var ruleFields = []field{
	{"paths", tStringOrList, "Globs of the files the rule applies to: the rule loads when such files are read. Without paths it loads at session start, like CLAUDE.md.", nil},
}

// Field documents a frontmatter field of a kind of agent file, as
// completion and hover show it.
type Field struct {
	// Name is the key.
	Name string
	// Type is the YAML shape the value takes, in words.
	Type string
	// Doc says what the field does.
	Doc string
	// Values are the values the field takes, when they are few.
	Values []string
}

// fieldsOf returns the frontmatter fields of kind k in the order the agent
// documents them, or nil for a kind without frontmatter.
func fieldsOf(k Kind) []Field {
	var schema []field
	switch k {
	case KindSettings:
		return settingFields()
	case KindSkill:
		schema = skillFields
	case KindCommand:
		schema = commandFields
	case KindSubagent:
		schema = subagentFields
	case KindRule:
		schema = ruleFields
	case KindCursorRule:
		schema = cursorFields
	case KindCopilotInstructions:
		schema = copilotInstructionFields
	case KindCopilotPrompt:
		schema = copilotPromptFields
	case KindCopilotAgent, KindCopilotChatMode:
		schema = copilotAgentFields
	case KindWindsurfRule:
		schema = windsurfFields
	case KindClineRule:
		schema = clineFields
	case KindKiroSteering:
		schema = kiroFields
	case KindOutputStyle:
		schema = outputStyleFields
	}
	out := make([]Field, len(schema))
	for i, f := range schema {
		out[i] = Field{Name: f.name, Type: f.typ.String(), Doc: f.doc, Values: f.values}
	}
	return out
}

// FieldNamed returns the field of kind k called name.
func FieldNamed(k Kind, name string) (Field, bool) {
	fs := fieldsOf(k)
	i := slices.IndexFunc(fs, func(f Field) bool { return f.Name == name })
	if i < 0 {
		return Field{}, false
	}
	return fs[i], true
}

// Spot is what the cursor is on in a frontmatter block.
type Spot struct {
	// Key is the field being typed or pointed at.
	Key string
	// Value reports whether the cursor is in the field's value (else on
	// its key).
	Value bool
	// Replace is the span a completion replaces: the word typed so far.
	Replace document.Span
	// KeySpan covers the key.
	KeySpan document.Span
	// Colon reports whether the key already has its colon.
	Colon bool
}

// SpotAt tells what byte offset off of text is on in the frontmatter: a
// key being typed at the start of a line, a top-level key, or the value of
// a top-level key, on its line or in the block list below it. It reads
// lines, not YAML, so that it works on the half-typed text an editor
// holds. ok is false outside the frontmatter.
func SpotAt(text []byte, off int) (spot Spot, ok bool) {
	if off < 0 || off > len(text) || !bytes.HasPrefix(text, []byte("---")) {
		return Spot{}, false
	}
	first := bytes.IndexByte(text, '\n')
	if first < 0 || off <= first || strings.TrimSpace(string(text[:first])) != "---" {
		return Spot{}, false
	}
	// The block ends at the next "---" line; a block not closed yet runs
	// to the end of the text.
	lineStart := first + 1
	var key string
	var keySpan document.Span
	for lineStart <= len(text) {
		end := bytes.IndexByte(text[lineStart:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += lineStart
		}
		line := text[lineStart:end]
		if t := strings.TrimRight(string(line), " \t\r"); t == "---" || t == "..." {
			return Spot{}, false
		}
		if off >= lineStart && off <= end {
			return spotOnLine(text, lineStart, off, key, keySpan)
		}
		if len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '-' {
			if i := bytes.IndexByte(line, ':'); i > 0 {
				key = strings.TrimSpace(string(line[:i]))
				keySpan = document.Span{Start: lineStart, End: lineStart + len(strings.TrimRight(string(line[:i]), " "))}
			} else {
				key = ""
			}
		}
		if end == len(text) {
			break
		}
		lineStart = end + 1
	}
	return Spot{}, false
}

// spotOnLine reads the line at lineStart up to off; key is the last
// top-level key above it, for the items of a block list.
func spotOnLine(text []byte, lineStart, off int, key string, keySpan document.Span) (Spot, bool) {
	before := string(text[lineStart:off])
	lineEnd := bytes.IndexByte(text[lineStart:], '\n')
	if lineEnd < 0 {
		lineEnd = len(text)
	} else {
		lineEnd += lineStart
	}
	line := strings.TrimRight(string(text[lineStart:lineEnd]), "\r")
	word := func() document.Span {
		i := strings.LastIndexAny(before, " \t[,:'\"") + 1
		return document.Span{Start: lineStart + i, End: off}
	}
	trimmed := strings.TrimLeft(before, " \t")
	if strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
		// An item of the block list under the last key.
		if key == "" {
			return Spot{}, false
		}
		return Spot{Key: key, Value: true, Replace: word(), KeySpan: keySpan}, true
	}
	if len(trimmed) != len(before) {
		return Spot{}, false // nested mappings are no top-level fields
	}
	colon := strings.IndexByte(line, ':')
	if colon < 0 || off-lineStart <= colon {
		// On the key: what is typed so far, and the whole key for hover.
		k := line
		if colon >= 0 {
			k = line[:colon]
		}
		k = strings.TrimRight(k, " ")
		if strings.HasPrefix(k, "#") {
			return Spot{}, false
		}
		return Spot{Key: k, Replace: document.Span{Start: lineStart, End: off},
			KeySpan: document.Span{Start: lineStart, End: lineStart + len(k)}, Colon: colon >= 0}, true
	}
	k := strings.TrimSpace(line[:colon])
	return Spot{Key: k, Value: true, Replace: word(), KeySpan: document.Span{Start: lineStart, End: lineStart + len(strings.TrimRight(line[:colon], " "))}}, true
}

// Completion is a frontmatter key or value offered at a position.
type Completion struct {
	// Label is the key or value.
	Label string
	// Insert is the text the completion inserts: a key with ": " after it.
	Insert string
	// Detail is a key's type or a value's kind.
	Detail string
	// Doc documents the key or value, in plain sentences.
	Doc string
	// Value reports whether this is a value (else a key).
	Value bool
}

// CompleteFrontmatter returns the keys, or the values of the key, that
// can be typed at byte offset off of text, the frontmatter of an agent
// file of kind k, and the span they replace. A subagent's skills are
// completed with the names of the set's skills, a Copilot prompt's agent
// with those of its custom agents; a Claude Code settings
// file's top-level JSON keys and their values. ok is false outside the
// frontmatter or for a kind without fields.
func (s *Set) CompleteFrontmatter(k Kind, text []byte, off int) (items []Completion, replace document.Span, ok bool) {
	if k == KindSettings {
		return completeSettings(text, off)
	}
	fields := fieldsOf(k)
	if len(fields) == 0 {
		return nil, document.Span{}, false
	}
	spot, ok := SpotAt(text, off)
	if !ok {
		return nil, document.Span{}, false
	}
	if !spot.Value {
		present := presentKeys(text)
		for _, f := range fields {
			if present[f.Name] && f.Name != spot.Key {
				continue
			}
			insert := f.Name + ": "
			if spot.Colon {
				insert = f.Name
			}
			items = append(items, Completion{Label: f.Name, Insert: insert, Detail: f.Type, Doc: f.Doc})
		}
		if spot.Colon {
			// Renaming a key: the whole key goes, its value stays.
			return items, spot.KeySpan, true
		}
		return items, spot.Replace, true
	}
	f, known := FieldNamed(k, spot.Key)
	if !known {
		return nil, spot.Replace, true
	}
	for _, v := range f.Values {
		items = append(items, Completion{Label: v, Insert: v, Detail: f.Name, Doc: f.Doc, Value: true})
	}
	if k == KindSubagent && f.Name == "skills" && s != nil {
		items = append(items, s.skillCompletions()...)
	}
	if k == KindCopilotPrompt && (f.Name == "agent" || f.Name == "mode") && s != nil {
		items = append(items, s.copilotAgentCompletions()...)
	}
	return items, spot.Replace, true
}

// skillCompletions lists the set's skills by name, with their
// descriptions, as values of a subagent's skills.
func (s *Set) skillCompletions() []Completion {
	var out []Completion
	seen := map[string]bool{}
	for _, f := range s.Files {
		if f.Kind != KindSkill {
			continue
		}
		name := f.SkillName()
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, Completion{Label: name, Insert: name, Detail: "skill · " + f.Rel, Doc: f.Meta.Description, Value: true})
	}
	slices.SortFunc(out, func(a, b Completion) int { return strings.Compare(a.Label, b.Label) })
	return out
}

// presentKeys returns the top-level keys the frontmatter already has.
func presentKeys(text []byte) map[string]bool {
	keys := map[string]bool{}
	lines := strings.Split(string(text), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return keys
	}
	for _, l := range lines[1:] {
		l = strings.TrimRight(l, "\r")
		if t := strings.TrimSpace(l); t == "---" || t == "..." {
			break
		}
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			continue
		}
		if i := strings.IndexByte(l, ':'); i > 0 {
			keys[strings.TrimSpace(l[:i])] = true
		}
	}
	return keys
}
