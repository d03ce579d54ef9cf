package tokenstest

import (
	"strings"
	"testing"
)

func TestUnnamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		json string
		want string
	}{
		{`{"tokens":5,"tokenizer":"claude-5"}`, ""},
		{`{"tokens":5}`, "[0].tokens"},
		{`{"tokens":0}`, ""},
		{`{"tokenizer":"o200k_base","items":[{"tokens":3}]}`, ""},
		{`{"tokenizer":"gpt-9","items":[{"tokens":3}]}`, "[0].items[0].tokens"},
		{`{"estimatedTokens":300}`, ""},
		{`{"agents":[{"totalAlwaysLoaded":7,"tokenizer":"claude"}],"totalAlwaysLoaded":0}`, ""},
		{"{\"code\":\"x\",\"message\":\"52 tokens spent twice\"}\n{\"code\":\"y\",\"message\":\"fine\"}", "[0].message"},
		{`{"code":"x","message":"52 tokens","tokenizer":"claude-5"}`, ""},
	} {
		got, err := Unnamed([]byte(c.json))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("Unnamed(%s) = %q, want %q", c.json, got, c.want)
		}
	}
	if _, err := Unnamed([]byte("{")); err == nil {
		t.Error("Unnamed accepted a broken document")
	}
}

func TestTextNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Memory: 55 tok · with 2 imports 72 tok (claude-5)", true},
		{"Memory: 55 tok · with 2 imports 72 tok", false},
		{"hop 1 of 5 · 12 tok\n\nTokens counted in claude-5.", true},
		{"no figures here", true},
		{"a · 3 tok (o200k_base) · 2 references", true},
	} {
		if got := TextNames(c.text); got != c.want {
			t.Errorf("TextNames(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
