package library

import "gopkg.in/yaml.v3"

// sectionNodes returns the name and estimatedTokens value nodes of one
// frontmatter sections entry.
func sectionNodes(item *yaml.Node) (name, tokens *yaml.Node) {
	if item.Kind != yaml.MappingNode {
		return nil, nil
	}
	for j := 0; j+1 < len(item.Content); j += 2 {
		switch item.Content[j].Value {
		case "name":
			name = item.Content[j+1]
		case "estimatedTokens":
			tokens = item.Content[j+1]
		}
	}
	return name, tokens
}
