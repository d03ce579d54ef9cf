package present

import (
	"strings"

	"github.com/ctxls/ctxls/providers/agentfiles"
)

// FieldDoc is the markdown documentation of an agent file's frontmatter
// field: its name and type, what it does, and the values it takes.
func FieldDoc(f agentfiles.Field) string {
	var b strings.Builder
	b.WriteString("**" + f.Name + "** · " + f.Type + "\n\n" + f.Doc)
	if len(f.Values) > 0 {
		b.WriteString("\n\nValues: `" + strings.Join(f.Values, "`, `") + "`")
	}
	return b.String()
}
