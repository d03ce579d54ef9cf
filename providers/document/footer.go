package document

import (
	"regexp"
	"strings"
)

// footerLines is how many lines from the end are searched for footer
// metadata.
const footerLines = 40

var footerRE = regexp.MustCompile(`(?i)^\s*[*_]{1,2}\s*(version|last updated|maintained for)\s*(?:[*_]{1,2}\s*:|:\s*[*_]{1,2}|:)\s*(.*?)\s*[*_]{0,2}\s*$`)

// parseFooter reads footer metadata lines such as "**Version**: 0.3.0",
// "**Last Updated**: 2025-11-14", "*Last Updated: 2026-02-10*" and
// "**Maintained For**: python-code-review skill" near the end of the text.
func parseFooter(d *Doc) Footer {
	var f Footer
	n := d.Lines.Count()
	first := max(n-footerLines, d.Lines.LineOf(d.Body.Start))
	for i := n - 1; i >= first; i-- {
		start := d.Lines.Start(i)
		if _, ok := d.InFence(start); ok {
			continue
		}
		m := footerRE.FindSubmatch(d.Lines.Line(i))
		if m == nil {
			continue
		}
		val := strings.TrimSpace(strings.Trim(string(m[2]), "*_ "))
		if val == "" {
			continue
		}
		switch strings.ToLower(string(m[1])) {
		case "version":
			if f.Version == "" {
				// "0.3.0-alpha (Compacted)" carries a remark after the version.
				f.Version = strings.Fields(val)[0]
			}
		case "last updated":
			if f.LastUpdated == "" {
				f.LastUpdated = val
			}
		case "maintained for":
			if f.MaintainedFor == "" {
				f.MaintainedFor = val
			}
		}
	}
	return f
}
