// Package libgen writes synthetic context libraries for benchmarks: many
// domains of topics with frontmatter, sections and cross references of
// every form, plus domain indexes, the root files and commands, so that
// indexing, re-indexing and search can be measured at realistic sizes.
//
// The output is deterministic for a given Options value.
package libgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Options shape a generated library.
type Options struct {
	// Topics is the number of topic files (default 10,000).
	Topics int
	// Domains is the number of domains they are spread over (default 50).
	Domains int
	// TopicBytes is the approximate size of a topic's sections (default
	// 3,000; with frontmatter and title a topic file is about 4 KB, so
	// that 10,000 topics are about 40 MB).
	TopicBytes int
	// Commands is the number of command files (default 20).
	Commands int
	// Seed makes different libraries of the same shape.
	Seed uint64
}

func (o *Options) defaults() {
	if o.Topics <= 0 {
		o.Topics = 10000
	}
	if o.Domains <= 0 {
		o.Domains = 50
	}
	if o.Domains > o.Topics {
		o.Domains = o.Topics
	}
	if o.TopicBytes <= 0 {
		o.TopicBytes = 3000
	}
	if o.Commands < 0 {
		o.Commands = 0
	} else if o.Commands == 0 {
		o.Commands = 20
	}
}

// Stats describes what Generate wrote.
type Stats struct {
	// Files is the number of markdown files, Bytes their total size.
	Files int
	Bytes int64
	// Topics counts topic files (indexes and root files excluded).
	Topics int
	// Domains lists the domain names.
	Domains []string
}

// TopicPath returns the path, relative to the workspace, of topic i of a
// library generated with opts; benchmarks use it to pick a file to change.
func TopicPath(opts Options, i int) string {
	opts.defaults()
	d, n := placement(opts, i)
	return filepath.Join("context", domainName(d), topicName(n))
}

// Generate writes a library under dir (the workspace): dir/context/… and
// dir/commands/…. dir is created when missing.
func Generate(dir string, opts Options) (Stats, error) {
	opts.defaults()
	g := &gen{opts: opts, dir: dir, rng: rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))}
	for d := range opts.Domains {
		g.stats.Domains = append(g.stats.Domains, domainName(d))
	}
	perDomain := make([]int, opts.Domains)
	for i := range opts.Topics {
		d, _ := placement(opts, i)
		perDomain[d]++
	}
	for i := range opts.Topics {
		d, n := placement(opts, i)
		if err := g.write(filepath.Join("context", domainName(d), topicName(n)), g.topic(d, n, perDomain)); err != nil {
			return g.stats, err
		}
		g.stats.Topics++
	}
	for d := range opts.Domains {
		if err := g.write(filepath.Join("context", domainName(d), "index.md"), g.index(d, perDomain[d])); err != nil {
			return g.stats, err
		}
	}
	if err := g.write(filepath.Join("context", "index.md"), g.rootIndex()); err != nil {
		return g.stats, err
	}
	if err := g.write(filepath.Join("context", "loading_protocol.md"), loadingProtocol); err != nil {
		return g.stats, err
	}
	if err := g.write(filepath.Join("context", "cross_domain.md"), g.crossDomain(perDomain)); err != nil {
		return g.stats, err
	}
	for c := range opts.Commands {
		if err := g.write(filepath.Join("commands", fmt.Sprintf("command_%02d.md", c)), g.command(c, perDomain)); err != nil {
			return g.stats, err
		}
	}
	return g.stats, nil
}

// placement spreads topics round-robin over domains: topic i is number n
// of domain d.
func placement(opts Options, i int) (d, n int) {
	return i % opts.Domains, i / opts.Domains
}

func domainName(d int) string {
	return fmt.Sprintf("%s%02d", domainWords[d%len(domainWords)], d/len(domainWords))
}

func topicStem(n int) string {
	return fmt.Sprintf("%s_%s_%04d", topicWords[n%len(topicWords)], topicWords[(n/len(topicWords)+3)%len(topicWords)], n)
}

func topicName(n int) string { return topicStem(n) + ".md" }

type gen struct {
	opts  Options
	dir   string
	rng   *rand.Rand
	stats Stats
}

func (g *gen) write(rel, content string) error {
	p := filepath.Join(g.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("generate %s: %w", rel, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("generate %s: %w", rel, err)
	}
	g.stats.Files++
	g.stats.Bytes += int64(len(content))
	return nil
}

// other picks another topic: its domain and stem.
func (g *gen) other(perDomain []int) (string, string) {
	d := g.rng.IntN(g.opts.Domains)
	n := g.rng.IntN(max(perDomain[d], 1))
	return domainName(d), topicStem(n)
}

func (g *gen) words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prose[g.rng.IntN(len(prose))])
	}
	return b.String()
}

var sectionNames = []string{"Overview", "Common Issues", "Detection Patterns", "Security Issues", "Performance", "Testing", "Examples", "Official Resources"}

func (g *gen) topic(d, n int, perDomain []int) string {
	domain, stem := domainName(d), topicStem(n)
	nsec := 4 + g.rng.IntN(4)
	perSection := max(g.opts.TopicBytes/(nsec+1), 200)
	var fm strings.Builder
	fmt.Fprintf(&fm, "---\nid: %s/%s\ndomain: %s\ntitle: %q\n", domain, stem, domain, strings.ReplaceAll(stem, "_", " "))
	fmt.Fprintf(&fm, "type: %s\nestimatedTokens: %d\nloadingStrategy: onDemand\nversion: 1.%d.0\nlastUpdated: 2026-0%d-1%d\n",
		[]string{"framework", "pattern", "reference"}[n%3], g.opts.TopicBytes/5, n%7, 1+n%9, n%10)
	fm.WriteString("sections:\n")
	for s := range nsec {
		fmt.Fprintf(&fm, "  - name: %s\n    estimatedTokens: %d\n    keywords: [%s, %s]\n", sectionNames[s], perSection/5, topicWords[(n+s)%len(topicWords)], domain)
	}
	fmt.Fprintf(&fm, "tags: [%s, %s, %s]\n", domain, topicWords[n%len(topicWords)], topicWords[(n+5)%len(topicWords)])
	od, ot := g.other(perDomain)
	fmt.Fprintf(&fm, "crossDomainTriggers: [%s/%s]\n", od, ot)
	fmt.Fprintf(&fm, "detectionTriggers: [\"import %s\", \"%s.%s(\"]\n---\n\n", stem, domain, topicWords[n%len(topicWords)])

	var b strings.Builder
	b.WriteString(fm.String())
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", strings.ReplaceAll(stem, "_", " "), g.words(30))
	for s := range nsec {
		fmt.Fprintf(&b, "## %s\n\n", sectionNames[s])
		start := b.Len()
		for b.Len()-start < perSection {
			switch g.rng.IntN(6) {
			case 0:
				od, ot := g.other(perDomain)
				fmt.Fprintf(&b, "See %s:%s for %s.\n\n", od, ot, g.words(6))
			case 1:
				od, ot := g.other(perDomain)
				fmt.Fprintf(&b, "Also read `%s:%s#%s` when %s.\n\n", od, ot, sectionNames[g.rng.IntN(4)], g.words(5))
			case 2:
				od, ot := g.other(perDomain)
				fmt.Fprintf(&b, "| %s | [%s](../%s/%s.md) | %s |\n\n", g.words(3), ot, od, ot, g.words(4))
			case 3:
				od, ot := g.other(perDomain)
				fmt.Fprintf(&b, "```python\nctx = getConditionalContext(%q, %q)\n```\n\n", od, ot)
			default:
				fmt.Fprintf(&b, "%s.\n\n", g.words(25))
			}
		}
	}
	fmt.Fprintf(&b, "---\n\n**Version**: 1.%d.0\n**Last Updated**: 2026-01-15\n**Maintained For**: %s review skill\n", n%7, domain)
	return b.String()
}

func (g *gen) index(d, count int) string {
	domain := domainName(d)
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s/index\ndomain: %s\ntitle: %s index\ntype: index\nestimatedTokens: %d\nloadingStrategy: always\nindexedFiles:\n", domain, domain, domain, 20*count+50)
	for n := range count {
		fmt.Fprintf(&b, "  - {id: %s/%s, path: %s, type: reference, loadingStrategy: onDemand}\n", domain, topicStem(n), topicName(n))
	}
	fmt.Fprintf(&b, "---\n\n# %s\n\n## Files\n\n| File | Use for |\n|---|---|\n", domain)
	for n := range count {
		fmt.Fprintf(&b, "| `%s` | %s |\n", topicName(n), g.words(4))
	}
	return b.String()
}

func (g *gen) rootIndex() string {
	var b strings.Builder
	b.WriteString("# Context index\n\n| Domain | Index |\n|---|---|\n")
	for _, d := range g.stats.Domains {
		fmt.Fprintf(&b, "| %s | [%s](%s/index.md) |\n", d, d, d)
	}
	return b.String()
}

func (g *gen) crossDomain(perDomain []int) string {
	var b strings.Builder
	b.WriteString("# Cross-domain triggers\n\n| Primary Domain | Trigger Condition | Secondary Context to Load | Relevance Score |\n|---|---|---|---|\n")
	for d := range min(g.opts.Domains, 40) {
		od, ot := g.other(perDomain)
		fmt.Fprintf(&b, "| %s/ | %s code detected | `%s/%s.md` | 0.%d |\n", domainName(d), g.words(2), od, ot, 5+d%5)
	}
	return b.String()
}

func (g *gen) command(c int, perDomain []int) string {
	var b strings.Builder
	od, ot := g.other(perDomain)
	fmt.Fprintf(&b, "---\nname: command_%02d\ndescription: %s\ncontext: [%s, %s/%s]\n---\n\n# /command_%02d\n\n", c, g.words(6), od, od, ot, c)
	for range 10 {
		od, ot := g.other(perDomain)
		fmt.Fprintf(&b, "1. Load %s:%s, then `getReference(%q, %q)` and [x](../context/%s/%s.md).\n", od, ot, od, ot, od, ot)
	}
	return b.String()
}

const loadingProtocol = `# Context loading protocol

## Step 1: Read the domain index

Read ` + "`context/{domain}/index.md`" + ` first.

## Step 2: Load always files

## Step 3: Detect the project type

## Step 4: Load conditional context

## Step 5: Check cross-domain context

See ` + "`cross_domain.md`" + `.
`

var domainWords = []string{"python", "dotnet", "angular", "security", "azure", "git", "schema", "rust", "go", "java", "kotlin", "swift", "react", "vue", "node", "sql", "docker", "k8s", "terraform", "aws", "gcp", "ml", "data", "mobile", "web"}

var topicWords = []string{"async", "cache", "config", "deploy", "errors", "forms", "graph", "http", "index", "json", "keys", "logging", "memory", "network", "orm", "parsing", "queue", "render", "routing", "schema", "state", "testing", "tokens", "upload", "views", "workers"}

var prose = strings.Fields(`the a of to and in for is on that with as by this be are from or an it at
check review load detect prefer avoid use validate escape parse cache retry log measure profile
request response handler service model view controller query index token session cookie header
input output error warning failure timeout deadline context budget memory thread lock channel
pattern framework library module package function method class field value type schema table
security performance reliability readability coverage latency throughput allocation`)
