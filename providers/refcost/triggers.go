package refcost

import (
	"strings"

	"github.com/ctxls/ctxls/providers/library"
)

// WithTriggers returns what loading t costs together with the topics its
// cross-domain triggers name, and those of the triggers that resolve, in
// the order they are declared. A trigger named twice, or naming t itself,
// counts once.
func WithTriggers(lib *library.Snapshot, t *library.Topic) (total int, triggers []*library.Topic) {
	total = t.Tokens
	seen := map[string]bool{t.ID: true}
	for _, id := range t.Meta.CrossDomainTriggers {
		id = strings.TrimSuffix(strings.TrimSpace(id), ".md")
		if seen[id] {
			continue
		}
		seen[id] = true
		if other, ok := lib.Topic(id); ok {
			total += other.Tokens
			triggers = append(triggers, other)
		}
	}
	return total, triggers
}
