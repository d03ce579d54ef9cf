package agentfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ctxls/ctxls/providers/diag"
	"github.com/ctxls/ctxls/providers/document"
)

// jnode is a JSON value with its byte span, enough to point diagnostics at
// keys and values.
type jnode struct {
	kind  jsontext.Kind // '{', '[', '"', '0', 't', 'f' or 'n'
	span  document.Span
	str   string   // a string's value
	keys  []*jnode // an object's keys, in order
	vals  []*jnode // an object's values, in order
	items []*jnode // an array's items
}

// get returns the value and key of an object's member, or nils.
func (n *jnode) get(name string) (*jnode, *jnode) {
	if n == nil || n.kind != '{' {
		return nil, nil
	}
	for i, k := range n.keys {
		if k.str == name {
			return n.vals[i], k
		}
	}
	return nil, nil
}

// maxJSONDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxJSONDepth = 200

// parseJSON parses text into a tree, or returns a syntax error with the
// byte offset it was found at.
func parseJSON(text []byte) (*jnode, int, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(text), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var read func(depth int) (*jnode, error)
	read = func(depth int) (*jnode, error) {
		if depth > maxJSONDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
		}
		start := int(dec.InputOffset())
		for start < len(text) && strings.IndexByte(" \t\r\n,:", text[start]) >= 0 {
			start++
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		n := &jnode{kind: tok.Kind()}
		switch n.kind {
		case '{':
			for dec.PeekKind() != '}' {
				k, err := read(depth + 1)
				if err != nil {
					return nil, err
				}
				v, err := read(depth + 1)
				if err != nil {
					return nil, err
				}
				n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, err
			}
		case '[':
			for dec.PeekKind() != ']' {
				v, err := read(depth + 1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, err
			}
		case '"':
			n.str = tok.String()
		case 0:
			return nil, errors.New("unexpected end of input")
		}
		n.span = document.Span{Start: start, End: int(dec.InputOffset())}
		return n, nil
	}
	root, err := read(0)
	if err == nil {
		if _, err2 := dec.ReadToken(); err2 != io.EOF {
			err = errors.New("unexpected text after the top-level value")
			if err2 != nil {
				err = err2
			}
		}
	}
	if err != nil {
		off := int(dec.InputOffset())
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			off = int(se.ByteOffset)
			err = se.Err
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = errors.New("unexpected end of input")
		}
		return nil, min(off, len(text)), err
	}
	return root, 0, nil
}

var kebabRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	}
	return "null"
}

// pluginJSON checks a plugin manifest, a marketplace or .lsp.json.
func (c *checker) pluginJSON() {
	root, off, err := parseJSON(c.f.Text)
	if err != nil {
		end := off
		if end < len(c.f.Text) {
			end++
		}
		c.add(document.Span{Start: off, End: end}, diag.JSONSyntax, "not valid JSON, so the agent cannot load it: %v", err)
		return
	}
	if root.kind != '{' {
		c.add(root.span, diag.PluginFieldInvalid, "the file must hold a JSON object, not %s", kindName(root.kind))
		return
	}
	c.duplicateKeys(root, "Claude Code")
	switch c.f.Kind {
	case KindPlugin:
		c.pluginManifest(root)
	case KindMarketplace:
		c.marketplace(root)
	case KindLSP:
		c.servers(root, "command")
		for i, v := range root.vals {
			if v.kind != '{' {
				continue
			}
			if m, _ := v.get("extensionToLanguage"); m == nil {
				c.add(root.keys[i].span, diag.PluginFieldMissing, "language server %q needs extensionToLanguage, the file extensions it serves", root.keys[i].str)
			} else if m.kind != '{' {
				c.add(m.span, diag.PluginFieldInvalid, "extensionToLanguage must be an object such as {\".md\": \"markdown\"}")
			}
		}
	}
}

// duplicateKeys reports an object key given again, at any depth: every
// agent reads its JSON files with a parser that keeps the last value of a
// name, so the earlier one is dropped without a word. who names the agent
// that reads the file.
func (c *checker) duplicateKeys(n *jnode, who string) {
	if n.kind == '{' {
		first := map[string]*jnode{}
		for _, k := range n.keys {
			if commentKey(k.str) {
				continue
			}
			f, ok := first[k.str]
			if !ok {
				first[k.str] = k
				continue
			}
			var d *diag.Diagnostic
			if l1, l2 := c.f.Lines.LineOf(f.span.Start)+1, c.f.Lines.LineOf(k.span.Start)+1; l1 != l2 {
				d = c.add(k.span, diag.JSONDuplicateKey, "%q is given twice in this object, on lines %d and %d: %s keeps only the last, so the value on line %d is dropped", k.str, l1, l2, who, l1)
			} else {
				d = c.add(k.span, diag.JSONDuplicateKey, "%q is given twice in this object, both on line %d: %s keeps only the last, so the first value is dropped", k.str, l1, who)
			}
			if d != nil {
				d.Related = []diag.Related{{Path: c.f.Path, Span: f.span, Message: fmt.Sprintf("the first %q, whose value %s drops", k.str, who)}}
			}
		}
	}
	for _, v := range n.vals {
		c.duplicateKeys(v, who)
	}
	for _, v := range n.items {
		c.duplicateKeys(v, who)
	}
}

// commentKey says whether a key is one written as a comment ("//",
// "// note", "$comment"): no agent reads it, so repeating it, as such
// comments often are, drops nothing.
func commentKey(k string) bool {
	return strings.HasPrefix(k, "//") || k == "$comment"
}

// pluginRoot is the folder, relative to the workspace, a plugin or
// marketplace file's paths are relative to: the one holding .claude-plugin.
func (c *checker) pluginRoot() string {
	d := path.Dir(c.f.Rel)
	if path.Base(d) == ".claude-plugin" {
		return path.Dir(d)
	}
	return d
}

// requireString reports a missing or non-string field and returns it.
func (c *checker) requireString(obj *jnode, at document.Span, field, what string) *jnode {
	v, k := obj.get(field)
	switch {
	case k == nil:
		c.add(at, diag.PluginFieldMissing, "%s needs %s", what, field)
		return nil
	case v.kind != '"':
		c.add(v.span, diag.PluginFieldInvalid, "%s must be a string, not %s", field, kindName(v.kind))
		return nil
	}
	return v
}

func (c *checker) kebabName(v *jnode, what string) {
	if v != nil && !kebabRE.MatchString(v.str) {
		c.add(v.span, diag.PluginNameInvalid, "%s name %q must be kebab-case: lowercase letters, digits and single hyphens", what, v.str)
	}
}

var pluginPathFields = []string{"commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"}

func (c *checker) pluginManifest(root *jnode) {
	at := document.Span{Start: root.span.Start, End: root.span.Start + 1}
	c.kebabName(c.requireString(root, at, "name", "a plugin"), "plugin")
	c.pluginLayout(at)
	c.pluginFolderShadowed(root)
	if uc, k := root.get("userConfig"); k != nil {
		c.userConfig(uc, "userConfig")
	}
	if ch, k := root.get("channels"); k != nil && ch.kind == '[' {
		for _, it := range ch.items {
			if uc, uk := it.get("userConfig"); uk != nil {
				c.userConfig(uc, "a channel's userConfig")
			}
		}
	}
	c.userConfigRefs(root)
	for _, f := range []string{"version", "description", "homepage", "repository", "license"} {
		if v, k := root.get(f); k != nil && v.kind != '"' {
			c.add(v.span, diag.PluginFieldInvalid, "%s must be a string, not %s", f, kindName(v.kind))
		}
	}
	if v, k := root.get("author"); k != nil && v.kind != '{' && v.kind != '"' {
		c.add(v.span, diag.PluginFieldInvalid, "author must be an object with a name, not %s", kindName(v.kind))
	}
	if v, k := root.get("keywords"); k != nil && v.kind != '[' {
		c.add(v.span, diag.PluginFieldInvalid, "keywords must be an array of strings, not %s", kindName(v.kind))
	}
	for _, f := range pluginPathFields {
		v, k := root.get(f)
		if k == nil {
			continue
		}
		if f == "hooks" {
			c.pluginHooksDefault(v)
			for _, it := range v.items {
				c.pluginHooksDefault(it)
			}
		}
		switch v.kind {
		case '"':
			c.pluginPath(v, f)
		case '[':
			for _, it := range v.items {
				switch {
				case it.kind == '"':
					c.pluginPath(it, f)
				case it.kind == '{' && f == "hooks":
					c.pluginHooks(it)
				case it.kind == '{' && f == "mcpServers":
					c.mcpServers(it, claudeMCP, nil)
				case it.kind != '{':
					c.add(it.span, diag.PluginFieldInvalid, "%s entries must be paths, not %s", f, kindName(it.kind))
				}
			}
		case '{':
			// An inline configuration (hooks, servers).
			switch f {
			case "mcpServers":
				c.mcpServers(v, claudeMCP, nil)
			case "hooks":
				c.pluginHooks(v)
			}
		default:
			c.add(v.span, diag.PluginFieldInvalid, "%s must be a path or a list of paths, not %s", f, kindName(v.kind))
		}
	}
}

// pluginPath checks that a path of a plugin manifest exists.
func (c *checker) pluginPath(v *jnode, field string) {
	p := v.str
	if c.pluginPathOutside(v, field) {
		return
	}
	if p == "" || strings.Contains(p, "${") || strings.Contains(p, "://") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return
	}
	if !c.existsRel(path.Join(c.pluginRoot(), p)) {
		c.add(v.span, diag.PluginPathMissing, "%s path %q names nothing (relative to the plugin root, %s)", field, p, c.pluginRoot())
	}
}

func (c *checker) marketplace(root *jnode) {
	at := document.Span{Start: root.span.Start, End: root.span.Start + 1}
	c.kebabName(c.requireString(root, at, "name", "a marketplace"), "marketplace")
	if v, k := root.get("owner"); k == nil {
		c.add(at, diag.PluginFieldMissing, "a marketplace needs an owner (an object with a name)")
	} else if v.kind != '{' {
		c.add(v.span, diag.PluginFieldInvalid, "owner must be an object with a name, not %s", kindName(v.kind))
	} else {
		c.requireString(v, k.span, "name", "owner")
	}
	base := ""
	if md, _ := root.get("metadata"); md != nil {
		if pr, _ := md.get("pluginRoot"); pr != nil && pr.kind == '"' {
			base = pr.str
		}
	}
	plugins, k := root.get("plugins")
	switch {
	case k == nil:
		c.add(at, diag.PluginFieldMissing, "a marketplace needs plugins, an array of plugin entries")
		return
	case plugins.kind != '[':
		c.add(plugins.span, diag.PluginFieldInvalid, "plugins must be an array, not %s", kindName(plugins.kind))
		return
	}
	names := map[string]bool{}
	for _, p := range plugins.items {
		if p.kind != '{' {
			c.add(p.span, diag.PluginFieldInvalid, "a plugin entry must be an object, not %s", kindName(p.kind))
			continue
		}
		head := document.Span{Start: p.span.Start, End: p.span.Start + 1}
		if name := c.requireString(p, head, "name", "a plugin entry"); name != nil {
			c.kebabName(name, "plugin")
			if names[name.str] {
				c.add(name.span, diag.PluginNameDuplicate, "plugin %q is listed twice in this marketplace", name.str)
			}
			names[name.str] = true
		}
		src, sk := p.get("source")
		switch {
		case sk == nil:
			c.add(head, diag.PluginFieldMissing, "a plugin entry needs a source: a relative path or a source object")
		case src.kind == '"':
			s := src.str
			if strings.Contains(s, "://") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.Contains(s, "${") {
				break
			}
			if !strings.HasPrefix(s, ".") && base != "" {
				s = path.Join(base, s)
			}
			if !c.existsRel(path.Join(c.pluginRoot(), s)) {
				c.add(src.span, diag.PluginPathMissing, "plugin source %q names no folder (relative to the marketplace root, %s)", src.str, c.pluginRoot())
			}
		case src.kind != '{':
			c.add(src.span, diag.PluginFieldInvalid, "source must be a relative path or a source object, not %s", kindName(src.kind))
		}
	}
}

// servers checks a map of server names to configurations, each with a
// command (stdio) or, for MCP, a url.
func (c *checker) servers(obj *jnode, command string) {
	if obj.kind != '{' {
		c.add(obj.span, diag.PluginFieldInvalid, "servers must be an object mapping names to configurations, not %s", kindName(obj.kind))
		return
	}
	for i, v := range obj.vals {
		name := obj.keys[i]
		if v.kind != '{' {
			c.add(v.span, diag.PluginFieldInvalid, "server %q must be an object, not %s", name.str, kindName(v.kind))
			continue
		}
		cmd, ck := v.get(command)
		_, uk := v.get("url")
		switch {
		case ck == nil && uk == nil:
			c.add(name.span, diag.PluginFieldMissing, "server %q needs a %s (or, for a remote MCP server, a url)", name.str, command)
		case ck != nil && cmd.kind != '"':
			c.add(cmd.span, diag.PluginFieldInvalid, "%s must be a string, not %s", command, kindName(cmd.kind))
		}
		if args, ak := v.get("args"); ak != nil && args.kind != '[' {
			c.add(args.span, diag.PluginFieldInvalid, "args must be an array of strings, not %s", kindName(args.kind))
		}
	}
}
