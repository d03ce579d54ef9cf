package agentfiles

import (
	"errors"
	"fmt"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ctxls/ctxls/providers/document"
)

// tomlProblem is a key a TOML document gives twice, or a table it defines
// twice: TOML forbids both, and the agent fails to load the file.
type tomlProblem struct {
	span document.Span
	msg  string
}

// parseTOML reads a TOML document into the tree parseJSON builds, with the
// byte span of every key and value, so that the checks of JSON server
// configurations read TOML ones too. Tables become objects, arrays of
// tables arrays of objects; numbers, dates and times have kind '0'. It
// returns a syntax error with the byte offset it was found at, and the
// keys and tables given twice.
func parseTOML(text []byte) (root *jnode, problems []tomlProblem, off int, err error) {
	p := &unstable.Parser{}
	p.Reset(text)
	root = &jnode{kind: '{', span: document.Span{Start: 0, End: min(1, len(text))}}
	// defined holds the tables a header named, which a second header of
	// the same name redefines.
	defined := map[*jnode]bool{}
	cur := root
	rangeOf := func(r unstable.Range) document.Span {
		s := int(r.Offset)
		return document.Span{Start: s, End: s + int(r.Length)}
	}
	// walk finds or makes the object the keys lead to from obj; each key
	// but the last may name an array of tables, whose last table it
	// enters. It returns nil when a key names a value that is not a table.
	walk := func(obj *jnode, keys []*unstable.Node) *jnode {
		for _, k := range keys {
			v, _ := obj.get(string(k.Data))
			if v == nil {
				v = &jnode{kind: '{', span: rangeOf(k.Raw)}
				obj.keys = append(obj.keys, &jnode{kind: '"', str: string(k.Data), span: rangeOf(k.Raw)})
				obj.vals = append(obj.vals, v)
			}
			if v.kind == '[' && len(v.items) > 0 && v.items[len(v.items)-1].kind == '{' {
				v = v.items[len(v.items)-1]
			}
			if v.kind != '{' {
				problems = append(problems, tomlProblem{rangeOf(k.Raw), fmt.Sprintf("%q is already a value, not a table", k.Data)})
				return nil
			}
			obj = v
		}
		return obj
	}
	keysOf := func(n *unstable.Node) []*unstable.Node {
		var out []*unstable.Node
		for it := n.Key(); it.Next(); {
			out = append(out, it.Node())
		}
		return out
	}
	var value func(n *unstable.Node, depth int) *jnode
	// keyval adds a key = value pair to obj.
	keyval := func(obj *jnode, n *unstable.Node, depth int) {
		keys := keysOf(n)
		if len(keys) == 0 {
			return
		}
		parent := walk(obj, keys[:len(keys)-1])
		if parent == nil {
			return
		}
		last := keys[len(keys)-1]
		if _, k := parent.get(string(last.Data)); k != nil {
			problems = append(problems, tomlProblem{rangeOf(last.Raw), fmt.Sprintf("%q is given twice; TOML forbids it, so the file does not load", last.Data)})
			return
		}
		parent.keys = append(parent.keys, &jnode{kind: '"', str: string(last.Data), span: rangeOf(last.Raw)})
		parent.vals = append(parent.vals, value(n.Value(), depth+1))
	}
	value = func(n *unstable.Node, depth int) *jnode {
		out := &jnode{span: rangeOf(n.Raw)}
		switch n.Kind {
		case unstable.String:
			out.kind, out.str = '"', string(n.Data)
		case unstable.Bool:
			out.kind = 'f'
			if string(n.Data) == "true" {
				out.kind = 't'
			}
		case unstable.Array:
			out.kind = '['
			for it := n.Children(); it.Next(); {
				if c := it.Node(); c.Kind != unstable.Comment {
					out.items = append(out.items, value(c, depth+1))
				}
			}
		case unstable.InlineTable:
			out.kind = '{'
			if depth > maxJSONDepth {
				return out
			}
			for it := n.Children(); it.Next(); {
				if c := it.Node(); c.Kind == unstable.KeyValue {
					keyval(out, c, depth)
				}
			}
		default:
			out.kind = '0'
		}
		if out.kind == '[' || out.kind == '{' {
			// The parser gives an array or inline table only its opening
			// bracket: extend it over its contents.
			for _, c := range append(out.items, out.vals...) {
				out.span.End = max(out.span.End, c.span.End)
			}
		}
		return out
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.KeyValue:
			keyval(cur, e, 0)
		case unstable.Table:
			keys := keysOf(e)
			t := walk(root, keys)
			if t == nil {
				cur = &jnode{kind: '{'} // read on, into a table no check sees
				continue
			}
			if defined[t] {
				last := keys[len(keys)-1]
				problems = append(problems, tomlProblem{rangeOf(last.Raw), fmt.Sprintf("table [%s] is defined twice; TOML forbids it, so the file does not load", joinKeys(keys))})
				cur = &jnode{kind: '{'} // its keys are not the first table's
				continue
			}
			defined[t] = true
			cur = t
		case unstable.ArrayTable:
			keys := keysOf(e)
			parent := walk(root, keys[:len(keys)-1])
			last := keys[len(keys)-1]
			cur = &jnode{kind: '{', span: rangeOf(last.Raw)}
			if parent == nil {
				continue
			}
			arr, _ := parent.get(string(last.Data))
			if arr == nil {
				arr = &jnode{kind: '[', span: rangeOf(last.Raw)}
				parent.keys = append(parent.keys, &jnode{kind: '"', str: string(last.Data), span: rangeOf(last.Raw)})
				parent.vals = append(parent.vals, arr)
			}
			if arr.kind != '[' {
				problems = append(problems, tomlProblem{rangeOf(last.Raw), fmt.Sprintf("%q is already a value, not an array of tables", last.Data)})
				continue
			}
			arr.items = append(arr.items, cur)
		}
	}
	if err := p.Error(); err != nil {
		return nil, nil, errorOffset(p, err, len(text)), err
	}
	return root, problems, 0, nil
}

// errorOffset returns where in the parser's input a syntax error lies.
func errorOffset(p *unstable.Parser, err error, n int) (off int) {
	var pe *unstable.ParserError
	if !errors.As(err, &pe) || len(pe.Highlight) == 0 {
		return n
	}
	// Range panics when the highlight is not a slice of the input.
	defer func() {
		if recover() != nil {
			off = n
		}
	}()
	return min(int(p.Range(pe.Highlight).Offset), n)
}

func joinKeys(keys []*unstable.Node) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += "."
		}
		s += string(k.Data)
	}
	return s
}
