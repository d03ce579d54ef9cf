package document

import (
	"strings"
	"testing"
)

func TestNode(t *testing.T) {
	t.Parallel()
	d := Parse("x.md", []byte("---\nname: 'a'\nn: 3\nnil:\nlist: [x, y]\nmap: {k: v, j: w}\n---\n"))
	root := d.Frontmatter.Root()
	if root.Kind() != MappingNode || root.Len() != 5 {
		t.Fatalf("root kind %v, %d entries", root.Kind(), root.Len())
	}
	var keys []string
	for k := range root.Entries() {
		keys = append(keys, k.Value())
	}
	if got := strings.Join(keys, ","); got != "name,n,nil,list,map" {
		t.Errorf("keys in order = %s", got)
	}
	field := func(key string) Node { _, v := root.Field(key); return v }
	for _, c := range []struct {
		key   string
		kind  NodeKind
		tag   string
		value string
		plain bool
		len   int
	}{
		{"name", ScalarNode, "!!str", "a", false, 0},
		{"n", ScalarNode, "!!int", "3", true, 0},
		{"nil", ScalarNode, "!!null", "", true, 0},
		{"list", SequenceNode, "!!seq", "", false, 2},
		{"map", MappingNode, "!!map", "", false, 2},
		{"absent", NoNode, "", "", false, 0},
	} {
		v := field(c.key)
		if v.Exists() != (c.kind != NoNode) || v.Kind() != c.kind || v.Tag() != c.tag || v.Value() != c.value || v.Plain() != c.plain || v.Len() != c.len {
			t.Errorf("%s: kind %v tag %q value %q plain %v len %d, want %v %q %q %v %d",
				c.key, v.Kind(), v.Tag(), v.Value(), v.Plain(), v.Len(), c.kind, c.tag, c.value, c.plain, c.len)
		}
	}
	// Items and entries belong to sequences and mappings only.
	for it := range field("map").Items() {
		t.Errorf("a mapping yielded item %q", it.Value())
	}
	for k := range field("list").Entries() {
		t.Errorf("a sequence yielded entry %q", k.Value())
	}
	if _, v := field("list").Field("x"); v.Exists() {
		t.Error("a sequence has a field")
	}
	if _, v := field("map").Field("j"); v.Value() != "w" {
		t.Errorf("map.j = %q", v.Value())
	}
	var m map[string]string
	if err := field("map").Decode(&m); err != nil || m["k"] != "v" {
		t.Errorf("decode = %v, %v", m, err)
	}
	if !FieldParses("a", "[1, 2]") || FieldParses("a", "[1, 2") {
		t.Error("FieldParses misjudges a flow sequence")
	}
}
