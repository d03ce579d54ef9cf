package document

import (
	"iter"

	"gopkg.in/yaml.v3"
)

// NodeKind says what a frontmatter node holds.
type NodeKind int

// The kinds of frontmatter node. A missing node has kind NoNode.
const (
	NoNode NodeKind = iota
	ScalarNode
	SequenceNode
	MappingNode
	AliasNode
)

// Node is one node of a frontmatter's YAML: a scalar, a sequence, a
// mapping or an alias. The zero Node stands for a node that is not there;
// its methods answer as for an empty node. A Node is a view of the parsed
// tree and is cheap to copy.
type Node struct{ y *yaml.Node }

// Exists reports whether the node is there.
func (n Node) Exists() bool { return n.y != nil }

// Kind returns the node's kind, NoNode when it is not there.
func (n Node) Kind() NodeKind {
	if n.y == nil {
		return NoNode
	}
	switch n.y.Kind {
	case yaml.ScalarNode:
		return ScalarNode
	case yaml.SequenceNode:
		return SequenceNode
	case yaml.MappingNode:
		return MappingNode
	case yaml.AliasNode:
		return AliasNode
	}
	return NoNode
}

// Value returns a scalar's text as YAML reads it (quotes and escapes
// resolved), "" for other nodes.
func (n Node) Value() string {
	if n.y == nil {
		return ""
	}
	return n.y.Value
}

// Tag returns the node's short tag ("!!str", "!!int", "!!bool",
// "!!null", "!!seq", "!!map" and so on), "" when the node is not there.
func (n Node) Tag() string {
	if n.y == nil {
		return ""
	}
	return n.y.ShortTag()
}

// Plain reports whether the node is a scalar written without quotes and
// not as a literal or folded block.
func (n Node) Plain() bool { return n.Kind() == ScalarNode && n.y.Style == 0 }

// Len returns the number of a sequence's items or a mapping's entries.
func (n Node) Len() int {
	switch n.Kind() {
	case SequenceNode:
		return len(n.y.Content)
	case MappingNode:
		return len(n.y.Content) / 2
	}
	return 0
}

// Items yields the items of a sequence, nothing for other nodes.
func (n Node) Items() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		if n.Kind() != SequenceNode {
			return
		}
		for _, c := range n.y.Content {
			if !yield(Node{c}) {
				return
			}
		}
	}
}

// Entries yields the keys and values of a mapping in the order written,
// nothing for other nodes.
func (n Node) Entries() iter.Seq2[Node, Node] {
	return func(yield func(k, v Node) bool) {
		if n.Kind() != MappingNode {
			return
		}
		c := n.y.Content
		for i := 0; i+1 < len(c); i += 2 {
			if !yield(Node{c[i]}, Node{c[i+1]}) {
				return
			}
		}
	}
}

// Field returns the key and value nodes of a mapping's entry key, or zero
// Nodes when the node is no mapping or has no such entry.
func (n Node) Field(key string) (k, v Node) {
	if n.Kind() != MappingNode {
		return Node{}, Node{}
	}
	c := n.y.Content
	for i := 0; i+1 < len(c); i += 2 {
		if c[i].Value == key {
			return Node{c[i]}, Node{c[i+1]}
		}
	}
	return Node{}, Node{}
}

// Decode stores the node's value in the value pointed to by v, as
// yaml.v3 decodes it (struct fields named by their yaml tags).
func (n Node) Decode(v any) error {
	if n.y == nil {
		return nil
	}
	return n.y.Decode(v)
}

// FieldParses reports whether "key: value" parses on its own as YAML.
func FieldParses(key, value string) bool {
	var m map[string]yaml.Node
	return yaml.Unmarshal([]byte(key+": "+value+"\n"), &m) == nil
}
