package present

import (
	"testing"

	"github.com/ctxls/ctxls/providers/agentfiles"
	"github.com/ctxls/ctxls/providers/library"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12345, "12,345"},
		{123456, "123,456"},
		{1234567, "1,234,567"},
		{-1234, "-1,234"},
		{-12, "-12"},
	}
	for _, tc := range tests {
		if got := Tokens(tc.n); got != tc.want+" tok" {
			t.Errorf("Tokens(%d) = %q, want %q", tc.n, got, tc.want+" tok")
		}
	}
}

func TestTitleAndKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		topic     library.Topic
		wantTitle string
		wantKey   string
	}{
		{"titled", library.Topic{ID: "python/fastapi", Domain: "python", Name: "fastapi", Meta: library.Metadata{Title: "FastAPI"}}, "FastAPI", "python:fastapi"},
		{"untitled", library.Topic{ID: "python/fastapi", Domain: "python", Name: "fastapi"}, "python:fastapi", "python:fastapi"},
		{"nested", library.Topic{ID: "python/web/flask", Domain: "python", Name: "web/flask"}, "python:web/flask", "python:web/flask"},
		{"root file", library.Topic{ID: "cross_domain", Name: "cross_domain"}, "cross_domain", "cross_domain"},
		{"root file with an id", library.Topic{ID: "shared/rules", Name: "rules"}, "rules", "shared/rules"},
	}
	for _, tc := range tests {
		if got := Title(&tc.topic); got != tc.wantTitle {
			t.Errorf("%s: Title = %q, want %q", tc.name, got, tc.wantTitle)
		}
		if got := Key(&tc.topic); got != tc.wantKey {
			t.Errorf("%s: Key = %q, want %q", tc.name, got, tc.wantKey)
		}
	}
}

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"snake_case *bold* `code`", `snake\_case \*bold\* \` + "`code\\`"},
		{"[link](x) <b>", `\[link\](x) &lt;b&gt;`},
		{`back\slash`, `back\\slash`},
	}
	for _, tc := range tests {
		if got := escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFieldDoc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    agentfiles.Field
		want string
	}{
		{agentfiles.Field{Name: "alwaysApply", Type: "true or false", Doc: "Loads it.", Values: []string{"true", "false"}},
			"**alwaysApply** · true or false\n\nLoads it.\n\nValues: `true`, `false`"},
		{agentfiles.Field{Name: "name", Type: "a string", Doc: "The name."}, "**name** · a string\n\nThe name."},
	}
	for _, tc := range tests {
		if got := FieldDoc(tc.f); got != tc.want {
			t.Errorf("FieldDoc(%s) = %q, want %q", tc.f.Name, got, tc.want)
		}
	}
}
