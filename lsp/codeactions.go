package lsp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ctxls/ctxls/providers/document"
	"github.com/ctxls/ctxls/providers/library"
)

// kindAddFrontmatter is the kind of the action that writes a frontmatter
// block into a topic file that has none.
const kindAddFrontmatter protocol.CodeActionKind = "refactor.rewrite.addFrontmatter"

// CodeAction offers the fixes the library's diagnostics carry in the
// requested range (did-you-mean replacements, declared tokens updated to
// the measured ones), and frontmatter for a topic file without it.
// Diagnostics are recomputed rather than read from the request, so a fix
// never applies to stale text.
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	v, err := s.view(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	start, err1 := v.offset(params.Range.Start)
	end, err2 := v.offset(params.Range.End)
	if err1 != nil || err2 != nil {
		return nil, invalidParams("range is outside the document")
	}
	want := func(kind protocol.CodeActionKind) bool {
		if len(params.Context.Only) == 0 {
			return true
		}
		for _, k := range params.Context.Only {
			if kind == k || strings.HasPrefix(string(kind), string(k)+".") {
				return true
			}
		}
		return false
	}
	out := []protocol.CommandOrCodeAction{}
	diags := v.lib.Diagnose(v.path)
	synced := len(v.doc.Text) == len(fileText(v.lib, v.path))
	if want(protocol.CodeActionKindQuickFix) && synced {
		var drift []library.Diagnostic
		for _, d := range diags {
			if d.Code == library.CodeTokenDrift && d.Fix != nil {
				drift = append(drift, d)
			}
			if d.Fix == nil || d.Span.End < start || d.Span.Start > end {
				continue
			}
			pd := toDiagnostic(v.file, d, v.enc)
			if d.Code == library.CodeTokenDrift {
				out = append(out, s.quickFix(v, fmt.Sprintf("Update declared tokens to %d (measured)", d.Fix.Measured), pd, true,
					textEdit{d.Fix.Replace, strconv.Itoa(d.Fix.Measured)}))
				continue
			}
			for i, c := range d.Fix.Candidates {
				out = append(out, s.quickFix(v, fmt.Sprintf("Change to '%s'", c), pd, i == 0, textEdit{d.Fix.Replace, c}))
			}
		}
		if len(drift) > 1 && overlapsAny(drift, start, end) {
			var edits []textEdit
			for _, d := range drift {
				edits = append(edits, textEdit{d.Fix.Replace, strconv.Itoa(d.Fix.Measured)})
			}
			out = append(out, s.quickFix(v, fmt.Sprintf("Update all %d declared token numbers in this file", len(drift)), protocol.Diagnostic{}, false, edits...))
		}
	}
	if t := v.file.Topic; t != nil && !t.HasFrontmatter && v.doc.Frontmatter == nil && want(kindAddFrontmatter) {
		kind := kindAddFrontmatter
		edit := s.editOf(v, []textEdit{{document.Span{}, frontmatterFor(t)}})
		out = append(out, &protocol.CodeAction{Title: "Add frontmatter with the derived metadata", Kind: &kind, Edit: edit})
	}
	return out, nil
}

func overlapsAny(ds []library.Diagnostic, start, end int) bool {
	for _, d := range ds {
		if d.Span.End >= start && d.Span.Start <= end {
			return true
		}
	}
	return false
}

// fileText is the library's text of a file.
func fileText(lib *library.Library, p string) []byte {
	if f, ok := lib.File(p); ok && f.Doc != nil {
		return f.Doc.Text
	}
	return nil
}

// quickFix builds a quick fix editing the view's document.
func (s *Server) quickFix(v *view, title string, diag protocol.Diagnostic, preferred bool, edits ...textEdit) *protocol.CodeAction {
	kind := protocol.CodeActionKindQuickFix
	a := &protocol.CodeAction{Title: title, Kind: &kind, Edit: s.editOf(v, edits)}
	if diag.Message != nil {
		a.Diagnostics = []protocol.Diagnostic{diag}
	}
	if preferred {
		a.IsPreferred = &preferred
	}
	return a
}

// editOf turns edits of the view's document into a workspace edit.
func (s *Server) editOf(v *view, edits []textEdit) *protocol.WorkspaceEdit {
	tes := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		tes[i] = protocol.TextEdit{Range: v.rng(e.span), NewText: e.newText}
	}
	return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uriOf(v.path): tes}}
}

// frontmatterFor writes the frontmatter a topic's derived metadata gives.
func frontmatterFor(t *library.Topic) string {
	var b strings.Builder
	m := t.Meta
	b.WriteString("---\n")
	fmt.Fprintf(&b, "id: %s\n", yamlScalar(t.ID))
	if t.Domain != "" {
		fmt.Fprintf(&b, "domain: %s\n", yamlScalar(t.Domain))
	}
	fmt.Fprintf(&b, "title: %s\n", yamlScalar(title(t)))
	fmt.Fprintf(&b, "type: %s\n", yamlScalar(m.Type))
	fmt.Fprintf(&b, "estimatedTokens: %d\n", max(t.Tokens, 1))
	fmt.Fprintf(&b, "loadingStrategy: %s\n", yamlScalar(m.LoadingStrategy))
	if m.Version != "" {
		fmt.Fprintf(&b, "version: %s\n", yamlScalar(m.Version))
	}
	if m.LastUpdated != "" {
		fmt.Fprintf(&b, "lastUpdated: %s\n", yamlScalar(m.LastUpdated))
	}
	if m.MaintainedFor != "" {
		fmt.Fprintf(&b, "maintainedFor: %s\n", yamlScalar(m.MaintainedFor))
	}
	var secs []library.Section
	for _, s := range t.Sections {
		if s.Level == 2 {
			secs = append(secs, s)
		}
	}
	if len(secs) > 0 {
		b.WriteString("sections:\n")
		for _, s := range secs {
			fmt.Fprintf(&b, "  - name: %s\n    estimatedTokens: %d\n", yamlScalar(s.Name), max(s.Tokens, 1))
		}
	}
	if len(m.Tags) > 0 {
		tags := make([]string, len(m.Tags))
		for i, tag := range m.Tags {
			tags[i] = yamlScalar(tag)
		}
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(tags, ", "))
	}
	b.WriteString("---\n\n")
	return b.String()
}

// yamlScalar writes s as a YAML scalar, quoted when it would not read back
// as the same string.
func yamlScalar(s string) string {
	if s == "" {
		return `""`
	}
	plain := true
	for i, r := range s {
		if !(r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127) {
			plain = false
			break
		}
		if i == 0 && (r == '-' || r == ' ') {
			plain = false
		}
	}
	if plain && strings.TrimSpace(s) == s && !isYAMLKeyword(s) {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return s
		}
	}
	return strconv.Quote(s)
}

func isYAMLKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~":
		return true
	}
	return false
}
