package libgen

import "fmt"

// MonorepoStats describes what Monorepo wrote.
type MonorepoStats struct {
	// Files counts every file written, Packages the packages, Generated
	// the pages under the ignored generated/ folder.
	Files, Packages, Generated int
	// Skill is the skill, relative, whose link is broken: the file an
	// editor opens first in a benchmark.
	Skill string
	// BrokenLink is the target of that link.
	BrokenLink string
}

// Monorepo writes, under dir, a repository of about files files shaped
// like a large TypeScript monorepo: packages of TypeScript sources with
// a package.json and a README each (2,000 of them at 112,000 files),
// markdown pages under a generated/ folder that .gitignore excludes
// (30,000 at 112,000 files), one CLAUDE.md and one skill whose link is
// broken. The proportions stay the same at other sizes. It is
// deterministic.
func Monorepo(dir string, files int) (MonorepoStats, error) {
	if files < 100 {
		files = 100
	}
	st := MonorepoStats{
		Packages:   max(1, files*2000/112000),
		Generated:  files * 30000 / 112000,
		Skill:      ".claude/skills/s1/SKILL.md",
		BrokenLink: "reference/missing.md",
	}
	g := &gen{dir: dir}
	write := func(rel, content string) error {
		st.Files++
		return g.write(rel, content)
	}
	fixed := map[string]string{
		".gitignore": "# build output and generated documentation\ngenerated/\ndist/\n*.log\n",
		"CLAUDE.md":  "# Monorepo\n\nPackages live in packages/. Build with `npm run build`.\n\n@packages/p0000/README.md\n",
		"package.json": `{"name": "monorepo", "private": true, "workspaces": ["packages/*"]}
`,
		st.Skill: "---\nname: s1\ndescription: Releases a package of the monorepo. Use when asked to cut a release.\n---\n\n# Release\n\nFollow the [checklist](" + st.BrokenLink + ") and the [guide](../../../packages/p0000/README.md).\n",
	}
	for rel, content := range fixed {
		if err := write(rel, content); err != nil {
			return st, err
		}
	}
	for i := range st.Generated {
		rel := fmt.Sprintf("generated/api/m%03d/page%05d.md", i/500, i)
		if err := write(rel, fmt.Sprintf("# Page %d\n\nGenerated reference. See [the next page](page%05d.md).\n", i, i+1)); err != nil {
			return st, err
		}
	}
	sources := files - st.Files - 2*st.Packages
	for p := range st.Packages {
		pkg := fmt.Sprintf("packages/p%04d", p)
		if err := write(pkg+"/README.md", fmt.Sprintf("# p%04d\n\nA package of the monorepo. It depends on [p%04d](../p%04d/README.md).\n", p, (p+1)%st.Packages, (p+1)%st.Packages)); err != nil {
			return st, err
		}
		if err := write(pkg+"/package.json", fmt.Sprintf(`{"name": "@mono/p%04d", "version": "1.0.0", "main": "dist/index.js"}
`, p)); err != nil {
			return st, err
		}
		n := sources / st.Packages
		if p < sources%st.Packages {
			n++
		}
		for s := range n {
			sub := "src"
			if s%3 == 2 {
				sub = "src/lib"
			}
			rel := fmt.Sprintf("%s/%s/m%03d.ts", pkg, sub, s)
			if err := write(rel, fmt.Sprintf("export function f%d(x: number): number {\n  return x * %d;\n}\n", s, s+1)); err != nil {
				return st, err
			}
		}
	}
	return st, nil
}
