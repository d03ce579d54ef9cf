//go:build stdiopending

package lsp_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestStdioPositionEncodingUTF8(t *testing.T) {
	root := stdioWorkspace(t)
	c := stdioStart(t, root)
	ctx := stdioCtx(t)
	caps := stdioDefaultCapabilities()
	caps["general"] = map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}
	init, err := c.Initialize(ctx, root, caps, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &res); err != nil {
		t.Fatal(err)
	}
	if res.Capabilities.PositionEncoding != "utf-8" {
		t.Fatalf("positionEncoding = %q, want utf-8 when the client offers it", res.Capabilities.PositionEncoding)
	}

	// A line with emoji and CJK text before an unresolved reference: the
	// diagnostic's columns must count UTF-8 bytes now.
	path := filepath.Join(root, "commands", "unicode8.md")
	text := "# Unicode\n\n🚀 测试 héllo 👩‍💻 load `python:fastapi_missing` and `python:fastapi_patterns` now.\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := stdioFileURI(path)
	if err := c.DidOpen(uri, text); err != nil {
		t.Fatal(err)
	}
	line, _, col8 := stdioFind(t, text, "python:fastapi_missing", 0)
	diags, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool { return len(ds) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	stdioCheckSpan(t, diags, line, col8, col8+len("python:fastapi_missing"))

	// Hover at the first byte of the resolved reference's topic name.
	hl, _, h8 := stdioFind(t, text, "fastapi_patterns`", 0)
	hover, _ := stdioHoverText(ctx, t, c, uri, hl, h8+1)
	if !strings.Contains(hover, "FastAPI Patterns") {
		t.Errorf("hover at UTF-8 column %d = %q, want the FastAPI Patterns topic", h8+1, hover)
	}
}

func TestStdioCompletionAfterDomain(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, text := stdioOpen(t, c, root, "commands/implement.md")

	line, col, _ := stdioFind(t, text, "python:common_issues", 0)
	items := stdioCompletion(ctx, t, c, uri, line, col+len("python:"))
	if len(items) == 0 {
		t.Fatalf("no completion after python:")
	}
	byText := map[string]stdioCompletionItem{}
	for _, it := range items {
		byText[it.Label] = it
		byText[it.text()] = it
	}
	for _, topic := range []string{"fastapi_patterns", "common_issues", "django_patterns", "pydantic_models"} {
		it, ok := byText[topic]
		if !ok {
			for _, cand := range items {
				if strings.Contains(cand.Label, topic) {
					it, ok = cand, true
					break
				}
			}
		}
		if !ok {
			t.Errorf("completion after python: lacks %s; labels: %v", topic, stdioLabels(items))
			continue
		}
		if !stdioTokDetail.MatchString(it.Detail) {
			t.Errorf("item %s detail %q does not show the token cost as `· N tok`", topic, it.Detail)
		}
	}
	if it, ok := byText["fastapi_patterns"]; ok && !strings.Contains(it.Detail, "FastAPI Patterns") {
		t.Errorf("fastapi_patterns detail %q lacks its title", it.Detail)
	}
	// Topics of other domains are not offered after python:.
	for _, it := range items {
		if strings.Contains(it.Label, "commit_conventions") || strings.Contains(it.Label, "secure_coding") {
			t.Errorf("completion after python: offers %q of another domain", it.Label)
		}
	}

	// After `#`, the sections of the topic.
	sl, sc, _ := stdioFind(t, text, "python:fastapi_patterns#Dependency Injection", 0)
	sections := stdioCompletion(ctx, t, c, uri, sl, sc+len("python:fastapi_patterns#"))
	labels := stdioLabels(sections)
	if !slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(l, "Security Issues") }) {
		t.Errorf("section completion lacks Security Issues: %v", labels)
	}
}

func TestStdioHover(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, text := stdioOpen(t, c, root, "commands/implement.md")

	cases := []struct {
		name, needle string
		offset       int
		want         []string
	}{
		{"key form", "python:fastapi_patterns#Dependency Injection", len("python:fa"), []string{"FastAPI Patterns", "framework", "tok", "fastapi_patterns.md"}},
		{"call form", `getConditionalContext("python", "sqlalchemy_patterns")`, len(`getConditionalContext("python", "sq`), []string{"sqlalchemy", "tok"}},
		{"id form in context list", "python/fastapi_patterns", 10, []string{"FastAPI Patterns"}},
		{"path form", "context/security/secure_coding.md", 20, []string{"tok"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, col, _ := stdioFind(t, text, tc.needle, 0)
			got, rng := stdioHoverText(ctx, t, c, uri, line, col+tc.offset)
			for _, w := range tc.want {
				if !strings.Contains(strings.ToLower(got), strings.ToLower(w)) {
					t.Errorf("hover on %s lacks %q:\n%s", tc.needle, w, got)
				}
			}
			if rng != nil && (rng.Start.Line != line || rng.Start.Character > col+tc.offset || rng.End.Character <= col+tc.offset) {
				t.Errorf("hover range %+v does not cover the hovered column %d of line %d", *rng, col+tc.offset, line)
			}
		})
	}
	// Declared and measured tokens both appear: the topic declares 990.
	line, col, _ := stdioFind(t, text, "python:fastapi_patterns#Dependency Injection", 0)
	got, _ := stdioHoverText(ctx, t, c, uri, line, col+3)
	if !strings.Contains(got, "990") {
		t.Errorf("hover lacks the declared 990 tokens:\n%s", got)
	}
	// Plain prose is no reference.
	pl, pc, _ := stdioFind(t, text, "You are implementing", 0)
	if got, _ := stdioHoverText(ctx, t, c, uri, pl, pc+2); got != "" {
		t.Errorf("hover on plain prose = %q, want none", got)
	}
}

func TestStdioDefinition(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	topic := filepath.Join(root, "context", "python", "fastapi_patterns.md")
	topicText := stdioRead(t, topic)
	headingLine, _, _ := stdioFind(t, topicText, "## Dependency Injection", 0)

	cases := []struct {
		name, needle string
		offset       int
		wantLine     int // -1: any line
	}{
		{"topic via call form", `getConditionalContext("python", "fastapi_patterns")`, len(`getConditionalContext("python", "fa`), -1},
		{"section", "python:fastapi_patterns#Dependency Injection", len("python:fastapi_patterns#Dep"), headingLine},
		{"id form", "python/fastapi_patterns", 8, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, col, _ := stdioFind(t, text, tc.needle, 0)
			raw, err := c.CallRaw(ctx, "textDocument/definition", stdioPos(uri, line, col+tc.offset))
			if err != nil {
				t.Fatal(err)
			}
			locs := stdioLocations(t, raw)
			if len(locs) != 1 {
				t.Fatalf("definition = %s, want one location", raw)
			}
			if stdioURIPath(locs[0].URI) != topic {
				t.Errorf("definition in %s, want %s", locs[0].URI, topic)
			}
			if tc.wantLine >= 0 && locs[0].Range.Start.Line != tc.wantLine {
				t.Errorf("definition at line %d, want the heading at line %d", locs[0].Range.Start.Line, tc.wantLine)
			}
		})
	}
}

func TestStdioReferences(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	line, col, _ := stdioFind(t, text, "python:fastapi_patterns#Dependency Injection", 0)
	params := stdioPos(uri, line, col+10)
	params["context"] = map[string]any{"includeDeclaration": false}
	raw, err := c.CallRaw(ctx, "textDocument/references", params)
	if err != nil {
		t.Fatal(err)
	}
	locs := stdioLocations(t, raw)
	type at struct {
		file string
		line int
	}
	got := map[at]bool{}
	for _, l := range locs {
		rel, _ := filepath.Rel(root, stdioURIPath(l.URI))
		got[at{filepath.ToSlash(rel), l.Range.Start.Line}] = true
	}
	implement := text
	review := stdioRead(t, filepath.Join(root, "commands", "review.md"))
	lineOf := func(text, needle string, nth int) int {
		l, _, _ := stdioFind(t, text, needle, nth)
		return l
	}
	want := []at{
		{"commands/implement.md", lineOf(implement, "python/fastapi_patterns", 0)},                             // id form in context:
		{"commands/implement.md", lineOf(implement, `getConditionalContext("python", "fastapi_patterns")`, 0)}, // call form
		{"commands/implement.md", lineOf(implement, "python:fastapi_patterns#Dependency Injection", 0)},        // key form with section
		{"commands/implement.md", lineOf(implement, `recordContextLoad(state, "python", "fastapi_patterns"`, 0)},
		{"commands/review.md", lineOf(review, "context/python/fastapi_patterns.md", 0)}, // path form, unopened file
		{"commands/review.md", lineOf(review, "python:fastapi_patterns#Security Issues", 0)},
		{"commands/brainstorm.md", lineOf(stdioRead(t, filepath.Join(root, "commands", "brainstorm.md")), "python:fastapi_patterns#Application Structure", 0)},
		{"context/python/index.md", lineOf(stdioRead(t, filepath.Join(root, "context", "python", "index.md")), "python/fastapi_patterns", 0)}, // indexedFiles id
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("references lack %s:%d", w.file, w.line+1)
		}
	}
	// `python:fastapi` names another (missing) topic and is not a use.
	if bad := (at{"commands/implement.md", lineOf(implement, "python:fastapi`", 0)}); got[bad] {
		t.Errorf("references include %s:%d, a reference to another topic", bad.file, bad.line+1)
	}
}

func TestStdioRename(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	line, col, _ := stdioFind(t, text, "python:fastapi_patterns#Dependency Injection", 0)
	pos := stdioPos(uri, line, col+len("python:fast"))

	var prep json.RawMessage
	if err := c.Call(ctx, "textDocument/prepareRename", pos, &prep); err != nil {
		t.Fatalf("prepareRename: %v", err)
	}
	if strings.TrimSpace(string(prep)) == "null" {
		t.Fatalf("prepareRename refused a topic reference")
	}

	params := stdioPos(uri, line, col+len("python:fast"))
	params["newName"] = "fastapi_routes"
	var edit stdioWorkspaceEdit
	if err := c.Call(ctx, "textDocument/rename", params, &edit); err != nil {
		t.Fatalf("rename: %v", err)
	}
	edits := map[string][]ClientTextEdit{}
	for u, es := range edit.Changes {
		edits[stdioURIPath(u)] = append(edits[stdioURIPath(u)], es...)
	}
	var renamed bool
	oldPath := filepath.Join(root, "context", "python", "fastapi_patterns.md")
	newPath := filepath.Join(root, "context", "python", "fastapi_routes.md")
	for _, dc := range edit.DocumentChanges {
		switch {
		case dc.Kind == "rename":
			if stdioURIPath(dc.OldURI) == oldPath && stdioURIPath(dc.NewURI) == newPath {
				renamed = true
			} else {
				t.Errorf("unexpected file rename %s -> %s", dc.OldURI, dc.NewURI)
			}
		case dc.TextDocument != nil:
			p := stdioURIPath(dc.TextDocument.URI)
			edits[p] = append(edits[p], dc.Edits...)
		}
	}
	if !renamed {
		t.Errorf("rename has no file rename %s -> %s (the client supports resource operations)", oldPath, newPath)
	}
	implPath := filepath.Join(root, "commands", "implement.md")
	after := stdioApplyEdits(t, text, edits[implPath])
	for _, w := range []string{
		"python/fastapi_routes,",
		`getConditionalContext("python", "fastapi_routes")`,
		"`python:fastapi_routes#Dependency Injection`",
		`recordContextLoad(state, "python", "fastapi_routes", content)`,
	} {
		if !strings.Contains(after, w) {
			t.Errorf("implement.md after rename lacks %q", w)
		}
	}
	if strings.Contains(after, "fastapi_patterns") {
		t.Errorf("implement.md after rename still names fastapi_patterns:\n%s", after)
	}
	// Untouched text stays: the unresolved python:fastapi is another topic.
	if !strings.Contains(after, "`python:fastapi`") {
		t.Errorf("rename changed the reference to the other topic python:fastapi")
	}
	reviewPath := filepath.Join(root, "commands", "review.md")
	reviewAfter := stdioApplyEdits(t, stdioRead(t, reviewPath), edits[reviewPath])
	for _, w := range []string{"context/python/fastapi_routes.md", "python:fastapi_routes#Security Issues"} {
		if !strings.Contains(reviewAfter, w) {
			t.Errorf("review.md (not open) after rename lacks %q", w)
		}
	}
}

func TestStdioUnicodeColumnsUTF16(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	path := filepath.Join(root, "commands", "unicode.md")
	// Emoji outside the BMP count two UTF-16 units, CJK one, combining
	// sequences several: columns differ from runes and from bytes.
	text := "# Unicode\n\n" +
		"🚀🚀 测试文本 e\u0301 👩‍💻 then `python:fastapi_patterns` and `python:fastapi_missing`\n" +
		"漢字 getConditionalContext(\"python\", \"pydantic_models\")\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := stdioFileURI(path)
	if err := c.DidOpen(uri, text); err != nil {
		t.Fatal(err)
	}
	ml, m16, m8 := stdioFind(t, text, "python:fastapi_missing", 0)
	if m16 == m8 {
		t.Fatalf("test line has no multi-byte text before the reference")
	}
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool { return len(ds) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	stdioCheckSpan(t, ds, ml, m16, m16+stdioUTF16Len("python:fastapi_missing"))
	if len(ds) != 1 {
		t.Errorf("want one diagnostic (the missing topic), got %s", stdioDiagSummary(ds))
	}

	// Hover and definition at the exact UTF-16 column of the topic name,
	// and at one unit before the reference (nothing there).
	hl, h16, _ := stdioFind(t, text, "python:fastapi_patterns", 0)
	if got, rng := stdioHoverText(ctx, t, c, uri, hl, h16); !strings.Contains(got, "FastAPI Patterns") {
		t.Errorf("hover at UTF-16 column %d = %q, want FastAPI Patterns", h16, got)
	} else if rng != nil && (rng.Start.Character != h16 || rng.End.Character != h16+len("python:fastapi_patterns")) {
		t.Errorf("hover range %+v, want columns %d..%d", *rng, h16, h16+len("python:fastapi_patterns"))
	}
	if got, _ := stdioHoverText(ctx, t, c, uri, hl, h16-2); got != "" {
		t.Errorf("hover two units before the reference (on the backtick's left) = %q, want none", got)
	}
	cl, c16, _ := stdioFind(t, text, `"pydantic_models"`, 0)
	raw, err := c.CallRaw(ctx, "textDocument/definition", stdioPos(uri, cl, c16+3))
	if err != nil {
		t.Fatal(err)
	}
	if locs := stdioLocations(t, raw); len(locs) != 1 || !strings.HasSuffix(stdioURIPath(locs[0].URI), "/python/pydantic_models.md") {
		t.Errorf("definition after CJK text = %s, want pydantic_models.md", raw)
	}
	// Completion after `python:` on the emoji line.
	line := "🚀🚀 测试文本 e\u0301 👩‍💻 then `python:"
	edited := text + line + "\n"
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": edited}},
	}); err != nil {
		t.Fatal(err)
	}
	items := stdioCompletion(ctx, t, c, uri, 4, stdioUTF16Len(line))
	if !slices.ContainsFunc(items, func(it stdioCompletionItem) bool { return strings.Contains(it.text(), "fastapi_patterns") }) {
		t.Errorf("completion after python: on an emoji line lacks fastapi_patterns: %v", stdioLabels(items))
	}
	for _, it := range items {
		if it.TextEdit != nil && it.TextEdit.Range != nil && it.TextEdit.Range.End.Character != stdioUTF16Len(line) {
			t.Errorf("completion edit %+v does not end at the cursor (UTF-16 column %d)", *it.TextEdit.Range, stdioUTF16Len(line))
			break
		}
	}
}

func TestStdioIncrementalChangeClearsDiagnostics(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	uri, text := stdioOpen(t, c, root, "commands/implement.md")
	line, col, _ := stdioFind(t, text, "python:fastapi`", 0)
	if _, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", line, "fastapi")
	}); err != nil {
		t.Fatal(err)
	}
	// Insert "_patterns" after "python:fastapi" with a ranged change, in
	// two edits (as typing produces), the first of them still broken.
	at := col + len("python:fastapi")
	changes := []map[string]any{
		{"range": ClientRange{Start: ClientPosition{line, at}, End: ClientPosition{line, at}}, "text": "_pat"},
		{"range": ClientRange{Start: ClientPosition{line, at + 4}, End: ClientPosition{line, at + 4}}, "text": "terns"},
	}
	for i, ch := range changes {
		if err := c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 2 + i},
			"contentChanges": []any{ch},
		}); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool { return len(ds) == 0 })
	if err != nil {
		t.Fatalf("diagnostics not cleared after the fix: %v", err)
	}
	_ = ds
	// The server's text is the edited one: hover on the fixed reference.
	got, _ := stdioHoverText(ctx, t, c, uri, line, at+2)
	if !strings.Contains(got, "FastAPI Patterns") {
		t.Errorf("hover on the fixed reference = %q", got)
	}
	// Break it again by replacing the fixed part.
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 4},
		"contentChanges": []any{map[string]any{
			"range": ClientRange{Start: ClientPosition{line, at}, End: ClientPosition{line, at + len("_patterns")}},
			"text":  "_routers",
		}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", line, "fastapi_routers")
	}); err != nil {
		t.Fatalf("diagnostic not re-published after breaking the reference: %v", err)
	}
	// Closing the document makes the disk the truth again; the file on
	// disk still has python:fastapi.
	if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(ctx, uri, func(ds []ClientDiagnostic) bool {
		return stdioDiagAt(ds, "unresolved-reference", line, "fastapi") && !stdioDiagAt(ds, "unresolved-reference", line, "fastapi_routers")
	}); err != nil {
		t.Errorf("diagnostics after close do not follow the disk: %v", err)
	}
}

func TestStdioUnopenedFiles(t *testing.T) {
	c, root, _ := stdioStartInit(t)
	ctx := stdioCtx(t)
	path := filepath.Join(root, "commands", "review.md")
	text := stdioRead(t, path)
	uri := stdioFileURI(path)
	line, col, _ := stdioFind(t, text, "git:pull_requests", 0)
	got, _ := stdioHoverText(ctx, t, c, uri, line, col+6)
	if !strings.Contains(strings.ToLower(got), "pull") {
		t.Errorf("hover in an unopened file = %q, want the pull_requests topic", got)
	}
	raw, err := c.CallRaw(ctx, "textDocument/definition", stdioPos(uri, line, col+6))
	if err != nil {
		t.Fatal(err)
	}
	if locs := stdioLocations(t, raw); len(locs) != 1 || !strings.HasSuffix(stdioURIPath(locs[0].URI), "/git/pull_requests.md") {
		t.Errorf("definition in an unopened file = %s", raw)
	}
	items := stdioCompletion(ctx, t, c, uri, line, col+len("git:"))
	if !slices.ContainsFunc(items, func(it stdioCompletionItem) bool { return strings.Contains(it.text(), "commit_conventions") }) {
		t.Errorf("completion in an unopened file lacks git topics: %v", stdioLabels(items))
	}
	// A file that does not exist: an empty answer or an error, no crash.
	missing := stdioFileURI(filepath.Join(root, "commands", "nope.md"))
	if _, err := c.CallRaw(ctx, "textDocument/hover", stdioPos(missing, 0, 0)); err != nil {
		var rpcErr *ClientRPCError
		if !errors.As(err, &rpcErr) {
			t.Fatalf("hover on a missing file: %v", err)
		}
	}
	stdioAlive(t, c)
}
