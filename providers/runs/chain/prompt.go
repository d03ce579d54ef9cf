package chain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/providers/tokens"
)

// loaded is one context item with the content that goes into the prompt.
type loaded struct {
	item    *ContextItem
	content string
	// tokens is the content's known cost, -1 when it must be counted.
	tokens int
}

// promptParts are the pieces of a step's prompt, in order: command body,
// project memory, context, upstream shared data, history, user input.
type promptParts struct {
	command string
	// memory are the workspace's agent memory files, after the command.
	memory  []memoryPart
	context []loaded
	// shared is the upstream shared data as the prompt shows it
	// (renderShared), "" for none.
	shared  string
	history string
	input   string
}

// promptCost is the token cost of a prompt and of its parts.
type promptCost struct {
	command, memory, context, shared, history, input, total int
	// framing is the cost of the headings and separators between the
	// parts: total is the parts' sum and it.
	framing int
	// perItem is the cost of each context item's content, in order;
	// perMemory that of each memory file.
	perItem, perMemory []int
}

// Part kinds of layout.
const (
	partCommand = iota
	partMemory
	partContext
	partShared
	partHistory
	partInput
)

// layout lays the parts of a prompt out in order: frame receives the
// headings and separators between the parts, body each part's text (trimmed)
// with its kind and, for context, the item's index.
func layout(p promptParts, frame func(string), body func(kind, item int, text string)) {
	body(partCommand, 0, strings.TrimSpace(p.command))
	frame("\n")
	if len(p.memory) > 0 {
		frame("\n# Project memory\n")
		for i, m := range p.memory {
			frame("\n## " + strings.TrimPrefix(m.item.Key, memoryLayer+":") + "\n\n")
			body(partMemory, i, strings.TrimSpace(m.content))
			frame("\n")
		}
	}
	if len(p.context) > 0 {
		frame("\n# Context\n")
		for i, l := range p.context {
			frame("\n## " + l.item.Reference + "\n\n")
			body(partContext, i, strings.TrimSpace(l.content))
			frame("\n")
		}
	}
	if p.shared != "" {
		frame("\n# Shared data from earlier steps\n\n```json\n")
		body(partShared, 0, p.shared)
		frame("\n```\n")
	}
	if h := strings.TrimSpace(p.history); h != "" {
		frame("\n# Conversation so far\n\n")
		body(partHistory, 0, h)
		frame("\n")
	}
	if in := strings.TrimSpace(p.input); in != "" {
		frame("\n# Input\n\n")
		body(partInput, 0, in)
		frame("\n")
	}
}

// scaffold returns the headings and separators of a prompt of parts p.
func scaffold(p promptParts) string {
	var b strings.Builder
	layout(p, func(s string) { b.WriteString(s) }, func(int, int, string) {})
	return b.String()
}

// assemble builds the prompt text and measures it and its parts; with a nil
// counter it measures nothing.
func assemble(p promptParts, counter tokens.Counter) (string, promptCost) {
	var (
		b      strings.Builder
		frames strings.Builder // headings and separators, counted together
		c      promptCost
	)
	count := func(text string) int {
		if counter == nil {
			return 0
		}
		return counter.Count(text)
	}
	layout(p, func(s string) {
		b.WriteString(s)
		frames.WriteString(s)
	}, func(kind, item int, text string) {
		b.WriteString(text)
		// known is a part's known cost, or text counted when it is -1.
		known := func(n int) int {
			if n < 0 {
				return count(text)
			}
			return n
		}
		switch kind {
		case partCommand:
			c.command = count(text)
		case partMemory:
			n := known(p.memory[item].tokens)
			c.perMemory = append(c.perMemory, n)
			c.memory += n
		case partContext:
			n := known(p.context[item].tokens)
			c.perItem = append(c.perItem, n)
			c.context += n
		case partShared:
			c.shared = count(text)
		case partHistory:
			c.history = count(text)
		case partInput:
			c.input = count(text)
		}
	})
	// The parts are measured on their own (topics with the cost the
	// library measured when it indexed them): the tokenizer splits at the
	// line breaks between parts anyway, so the sum is the prompt's cost to
	// within a token or two per part, without tokenizing every topic again.
	c.framing = count(frames.String())
	c.total = c.command + c.memory + c.context + c.shared + c.history + c.input + c.framing
	return b.String(), c
}

// renderShared writes shared data as one indented JSON object with sorted
// keys; nothing for none.
func renderShared(m map[string]json.RawMessage) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		b.WriteString("\n  ")
		b.Write(kb)
		b.WriteString(": ")
		var v bytes.Buffer
		if json.Indent(&v, m[k], "  ", "  ") == nil {
			b.Write(v.Bytes())
		} else {
			b.Write(m[k])
		}
	}
	if len(keys) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String()
}

// parseShared finds the fenced blocks tagged "shared" in an agent's output
// and merges the JSON objects they hold, later blocks winning. A block that
// is not a JSON object gives a warning and is left out; the output itself
// keeps it.
func parseShared(output string) (map[string]json.RawMessage, []string) {
	var (
		merged   map[string]json.RawMessage
		warnings []string
	)
	lines := strings.Split(output, "\n")
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openFence(lines[i])
		if !ok {
			continue
		}
		start := i
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			if isCloseFence(lines[i], fence) {
				closed = true
				break
			}
			body = append(body, lines[i])
		}
		if info != "shared" {
			continue
		}
		if !closed {
			warnings = append(warnings, fmt.Sprintf("the shared block at line %d is not closed; it was ignored", start+1))
			continue
		}
		var obj map[string]json.RawMessage
		text := strings.Join(body, "\n")
		if err := json.Unmarshal([]byte(text), &obj); err != nil || obj == nil {
			msg := "it is not a JSON object"
			if err != nil {
				msg = "it is not a JSON object: " + err.Error()
			}
			warnings = append(warnings, fmt.Sprintf("the shared block at line %d was ignored: %s", start+1, msg))
			continue
		}
		if merged == nil {
			merged = map[string]json.RawMessage{}
		}
		for k, v := range obj {
			if strings.TrimSpace(k) == "" {
				warnings = append(warnings, fmt.Sprintf("the shared block at line %d has an empty key; that entry was ignored", start+1))
				continue
			}
			var c bytes.Buffer
			if json.Compact(&c, v) == nil {
				v = c.Bytes()
			}
			merged[k] = v
		}
	}
	return merged, warnings
}

// openFence reports whether line opens a fenced code block, with its fence
// (the run of ` or ~) and the first word of its info string.
func openFence(line string) (fence, info string, ok bool) {
	t := strings.TrimRight(line, " \t\r")
	indent := len(t) - len(strings.TrimLeft(t, " "))
	if indent > 3 {
		return "", "", false
	}
	t = t[indent:]
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return "", "", false
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	rest := strings.TrimSpace(t[n:])
	if t[0] == '`' && strings.Contains(rest, "`") {
		return "", "", false
	}
	if f := strings.Fields(rest); len(f) > 0 {
		info = strings.ToLower(f[0])
	}
	return t[:n], info, true
}

func isCloseFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	if len(t) < len(fence) || t[0] != fence[0] {
		return false
	}
	return strings.Trim(t, string(fence[0])) == ""
}
