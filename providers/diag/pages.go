package diag

import (
	"fmt"
	"strings"
)

// Repository is where ctxls lives; the rule pages are served from its
// default branch.
const Repository = "https://github.com/ctxls/ctxls"

// PagesDir is the folder of the rule pages, relative to the repository
// root.
const PagesDir = "docs/rules"

// PageFile is the path of a rule's page relative to the repository root.
func PageFile(code string) string { return PagesDir + "/" + code + ".md" }

// PageURL is the address of a rule's page, for SARIF's helpUri and the
// LSP diagnostic's codeDescription; "" for a code the table lacks.
func PageURL(code string) string {
	if _, ok := byCode[code]; !ok {
		return ""
	}
	return Repository + "/blob/main/" + PageFile(code)
}

// Pages returns every rule page and the index of them, keyed by file name
// inside PagesDir. The generator writes them; a test keeps the folder
// equal to them.
func Pages() map[string]string {
	pages := make(map[string]string, len(table)+1)
	for _, r := range table {
		pages[r.Code+".md"] = page(r)
	}
	pages["README.md"] = pagesIndex()
	return pages
}

const generatedNote = "<!-- generated from providers/diag/rules.go by go run ./providers/diag/gen; do not edit -->\n\n"

// page renders one rule's page.
func page(r Rule) string {
	var b strings.Builder
	b.WriteString(generatedNote)
	fmt.Fprintf(&b, "# %s\n\n", r.Code)
	fmt.Fprintf(&b, "%s\n\n", sentence(r.Doc))
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| code | `%s` |\n", r.Code)
	fmt.Fprintf(&b, "| default severity | %s |\n", r.Severity)
	fmt.Fprintf(&b, "| fix | %s |\n", fixText(r.Fix))
	fmt.Fprintf(&b, "| based on | %s |\n\n", r.Source)
	b.WriteString("## Where it shows\n\n")
	fmt.Fprintf(&b, "`ctxls check` reports it with the code `%s` (in SARIF, the rule of\n", r.Code)
	b.WriteString("that id, whose help is this page); the language server publishes it on\n")
	b.WriteString("the file at fault, with a link to this page on its code.\n\n")
	b.WriteString("## Turning it off\n\n")
	b.WriteString("List the code under `disable` in the workspace's `.ctxls.yaml`:\n\n")
	fmt.Fprintf(&b, "```yaml\ndisable: [%s]\n```\n\n", r.Code)
	fmt.Fprintf(&b, "Every rule: [the list](README.md).\n")
	return b.String()
}

// fixText says what the fix of a rule does, in the words of the check
// command's flags.
func fixText(f FixSafety) string {
	switch f {
	case Safe:
		return "safe: `ctxls check --fix` applies it, and the editor offers it as a quick fix"
	case Unsafe:
		return "unsafe (a guess to review): `ctxls check --fix-unsafe` applies it, and the editor offers it as a quick fix"
	}
	return "none"
}

// pagesIndex renders the list of every rule, linking each page.
func pagesIndex() string {
	var b strings.Builder
	b.WriteString(generatedNote)
	b.WriteString("# Rules of ctxls\n\n")
	b.WriteString("Every diagnostic ctxls reports, with its default severity and whether\n")
	b.WriteString("`ctxls check --fix` (safe) or `--fix-unsafe` applies its fix.\n\n")
	b.WriteString("| code | severity | fix | source | when |\n|---|---|---|---|---|\n")
	for _, r := range table {
		fmt.Fprintf(&b, "| [`%s`](%s.md) | %s | %s | %s | %s |\n", r.Code, r.Code, r.Severity, r.Fix, r.Source, r.Doc)
	}
	return b.String()
}

// sentence makes a doc line a sentence: a capital first letter and a
// closing full stop.
func sentence(doc string) string {
	doc = upperFirst(doc)
	if !strings.HasSuffix(doc, ".") && !strings.HasSuffix(doc, "…") {
		doc += "."
	}
	return doc
}

// upperFirst capitalises the first letter of a doc line, which the table
// writes in lower case to read inside a sentence.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
