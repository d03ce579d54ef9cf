package libtest

import (
	"fmt"
	"strings"
)

// DenseCommand returns a command of n references, a few bytes each and of
// every kind that prices differently: topics, sections, repeats, unknown
// topics and sections, unknown domains and links. Topic python:a is
// DenseTopic; in a library of it alone, three references in eight name it.
func DenseCommand(n int) string {
	var b strings.Builder
	b.WriteString("---\ndescription: dense\n---\n# Dense\n\n")
	for i := range n {
		switch i % 8 {
		case 0:
			b.WriteString("python:a ")
		case 1:
			b.WriteString("python:a#S ")
		case 2:
			fmt.Fprintf(&b, "python:n%d ", i)
		case 3:
			fmt.Fprintf(&b, "python:a#G%d ", i)
		case 4:
			fmt.Fprintf(&b, "p%d:x ", i)
		case 5:
			b.WriteString("python:async_patterns ")
		case 6:
			fmt.Fprintf(&b, "[x](../context/python/m%d.md) ", i)
		case 7:
			b.WriteString("git:index\n")
		}
	}
	return b.String()
}

// DenseTopic is a topic with a short name, for dense references to it.
const DenseTopic = "# A\n\nA topic.\n\n## S\n\nA section.\n"
