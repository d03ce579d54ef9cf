package diag

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/agentfacts"
)

// TestFactsAgree keeps the rules table and the agent facts equal where
// they speak of the same things: a cap a rule quotes next to its limits
// key is the facts' cap, and every agent's rules cite a page its facts
// rest on.
func TestFactsAgree(t *testing.T) {
	t.Parallel()
	caps := 0
	seen := map[string]bool{} // the keys checked: two facts may share one
	for _, a := range agentfacts.All() {
		cited := false
		for _, f := range a.Facts {
			for _, r := range All() {
				if strings.Contains(r.Source, f.Source) {
					cited = true
				}
			}
			if f.Cap == nil || f.Cap.Key == "" || seen[f.Cap.Key] {
				continue
			}
			seen[f.Cap.Key] = true
			// The number written after the key, before the next key or
			// sentence: "(6,000)", ", 32 KiB".
			re := regexp.MustCompile("`limits\\." + regexp.QuoteMeta(f.Cap.Key) + "`[^0-9`;]{0,30}?([0-9][0-9,]*)( KiB)?")
			for _, r := range All() {
				m := re.FindStringSubmatch(r.Doc)
				if m == nil {
					continue
				}
				n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
				if err != nil {
					t.Fatal(err)
				}
				if m[2] != "" {
					n <<= 10
				}
				caps++
				if n != f.Cap.Limit {
					t.Errorf("%s says limits.%s is %s%s; the facts of %s say %d %s", r.Code, f.Cap.Key, m[1], m[2], a.Name, f.Cap.Limit, f.Cap.Unit)
				}
			}
		}
		if !cited {
			t.Errorf("no rule cites a page the facts of %s rest on", a.Name)
		}
	}
	if caps < 4 {
		t.Errorf("%d rules quote a cap of the facts; the table quotes at least 4 (memory, AGENTS.md chain, Copilot agent, Windsurf rule)", caps)
	}
}
