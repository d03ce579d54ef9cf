package library

import "github.com/ctxls/ctxls/providers/document"

// sectionNodes returns the name and estimatedTokens value nodes of one
// frontmatter sections entry.
func sectionNodes(item document.Node) (name, tokens document.Node) {
	for k, v := range item.Entries() {
		switch k.Value() {
		case "name":
			name = v
		case "estimatedTokens":
			tokens = v
		}
	}
	return name, tokens
}
