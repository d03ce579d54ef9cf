package contextapi

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/providers/config"
)

// TestBadInput runs every method over libraries whose detection files,
// matrices and indexes are malformed: ragged tables, empty cells, stray
// pipes and backticks, CRLF, random bytes. Nothing may panic, and the
// methods still answer.
func TestBadInput(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	garbage := func(n int) string {
		const alphabet = "|`*#-: \n\r\tab.md/{}[]()0123456789"
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	variants := map[string]string{
		"ragged":  "# D\n\n## Web Frameworks\n\n| Framework | Key Imports | Pattern Files to Load |\n|---|---|---|\n| **A** |\n| | `x` | `a.md` | extra | cells |\n|||\n| **B** | `` | `../../../etc/passwd.md` |\n",
		"crlf":    "# D\r\n\r\n## Libraries\r\n\r\n| Library | Key Imports | Load |\r\n|---|---|---|\r\n| **Lib** | `import lib` | `a.md` |\r\n",
		"header":  "| Load |\n|---|\n| `a.md` |\n",
		"random":  garbage(4000),
		"binary":  "\x00\x01\x02 | `x` | `a.md` |\n",
		"nofiles": "# D\n\n## Frameworks\n\n| Framework | Key Imports |\n|---|---|\n| **X** | `import lib` |\n| Any | `import any` |\n",
	}
	for name, det := range variants {
		// Serial: the subtests draw from the one rng.
		t.Run(name, func(t *testing.T) {
			files := map[string]string{
				".ctxls.yaml":                         "budget:\n  files: 2\n  tokens: 50\n",
				"context/cross_domain.md":             "# X\n\n| Primary Domain | Trigger Condition | Secondary Context to Load | Relevance Score |\n|---|---|---|---|\n" + det + "\n| python/ | | | |\n| | auth | `a.md` | nonsense |\n| Any | auth | `../../x.md` | 7 |\n",
				"context/loading_protocol.md":         "## Step: \n## Step 99: far\n" + det,
				"context/python/index.md":             det,
				"context/python/context_detection.md": det,
				"context/python/a.md":                 "---\ndetectionTriggers: [\"\", \"import\", \"`\"]\ncrossDomainTriggers: [\"../x\", \"\"]\n---\n# A\n" + det,
			}
			p, _, _ := writeLibrary(t, files)
			sig := Signals{Imports: []string{"", "import lib", "|", garbage(50)}, FilePatterns: []string{"a.md", "*", "["}, CodePatterns: []string{"`x`"}, ConfigFiles: []string{"/"}}
			r, err := p.DetectProjectType(bg, "python", sig)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.ConditionalContext(bg, "python", r); err != nil {
				t.Fatal(err)
			}
			if _, err := p.CrossDomainContext(bg, "python", []string{"auth", "", "|", garbage(30)}); err != nil {
				t.Fatal(err)
			}
			if _, err := p.DomainIndex(bg, "python"); err != nil {
				t.Fatal(err)
			}
			if _, err := p.LoadingProtocol(bg); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Search(bg, garbage(40), "", 0); err != nil {
				t.Fatal(err)
			}
			res, err := p.Catalog(bg, "")
			// Files holding NUL bytes are skipped by the library.
			if err != nil || len(res.Items) == 0 && name != "binary" {
				t.Fatalf("catalog %v %d", err, len(res.Items))
			}
			plan := p.Plan(bg, []Request{{ID: "python/a"}, {ID: "python/index"}, {ID: ""}, {ID: "#"}, {ID: "python/a#"}}, config.Budget{Files: 1, Tokens: 1})
			if len(plan.Items)+len(plan.Dropped) == 0 {
				t.Error("plan lost every request")
			}
		})
	}
}

// TestRandomTables feeds randomly assembled tables, built from the words
// real detection files and matrices use, to every parser of the provider.
func TestRandomTables(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(7))
	headers := []string{"Framework", "Key Imports", "File Markers", "Pattern Files to Load", "Load", "Library", "ORM", "Primary Domain",
		"Trigger Condition", "Secondary Context to Load", "Relevance Score", "Token Impact", "If You See...", "Docs", "", "Type", "Topics"}
	cells := []string{"", "**X**", "`import x`", "`a.md`", "`python/a.md`", "`{domain}/a.md`", "`../a.md`", "Any", "python/", "0.9", "high",
		"`x`<br/>`y`", "`*.py`", "`dir/`", "auth code", "`a.md`, `b.md`", "[l](a.md)", "|", "`", "**", "all of the above"}
	table := func() string {
		var b strings.Builder
		n := 1 + rng.Intn(5)
		b.WriteString("\n## " + headers[rng.Intn(len(headers))] + " Detection\n\n|")
		for i := 0; i < n; i++ {
			b.WriteString(" " + headers[rng.Intn(len(headers))] + " |")
		}
		b.WriteString("\n|" + strings.Repeat("---|", n) + "\n")
		for r := rng.Intn(6); r > 0; r-- {
			b.WriteString("|")
			for i := rng.Intn(n + 2); i > 0; i-- {
				b.WriteString(" " + cells[rng.Intn(len(cells))] + " |")
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	doc := func() string {
		s := "# T\n"
		for i := rng.Intn(4); i >= 0; i-- {
			s += table()
		}
		return s
	}
	for i := 0; i < 60; i++ {
		p, _, _ := writeLibrary(t, map[string]string{
			"context/cross_domain.md":             doc(),
			"context/python/index.md":             doc(),
			"context/python/context_detection.md": doc(),
			"context/python/a.md":                 "# A\n",
			"context/security/b.md":               "# B\n",
		})
		r, err := p.DetectProjectType(bg, "python", Signals{Imports: []string{"import x", "y"}, FilePatterns: []string{"a.py", "dir/"}, CodePatterns: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Matches {
			if m.Score < detectThreshold || m.Score > 1 {
				t.Fatalf("score %v", m.Score)
			}
		}
		if _, err := p.ConditionalContext(bg, "python", r); err != nil {
			t.Fatal(err)
		}
		c, err := p.CrossDomainContext(bg, "python", []string{"auth_code", "x"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Items {
			if f.Relevance < 0 || f.Relevance > 1 {
				t.Fatalf("relevance %v", f.Relevance)
			}
		}
		if _, err := p.DomainIndex(bg, "python"); err != nil {
			t.Fatal(err)
		}
	}
}
