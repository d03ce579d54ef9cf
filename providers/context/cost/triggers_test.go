package cost

import (
	"slices"
	"testing"

	"github.com/ctxls/ctxls/providers/context/library"
	"github.com/ctxls/ctxls/providers/context/library/libtest"
)

func TestWithTriggers(t *testing.T) {
	lib, _ := libtest.Load(t, map[string]string{
		"context/python/a.md":       "---\ncrossDomainTriggers: [security/b, security/b.md, \" testing/c \", python/a, missing/x]\n---\n# A\n\nSome words about a.\n",
		"context/python/solo.md":    "# Solo\n\nNo triggers here.\n",
		"context/python/broken.md":  "---\ncrossDomainTriggers: [nowhere/y]\n---\n# Broken\n\nText.\n",
		"context/security/b.md":     "# B\n\nA longer text about security that costs a few more tokens.\n",
		"context/testing/c.md":      "# C\n\nTesting.\n",
		"context/testing/index.md":  "# Testing\n",
		"context/security/index.md": "# Security\n",
		"context/python/index.md":   "# Python\n",
	})
	topic := func(id string) *library.Topic {
		tp, ok := lib.Topic(id)
		if !ok {
			t.Fatalf("no topic %s", id)
		}
		return tp
	}
	a, b, c := topic("python/a"), topic("security/b"), topic("testing/c")
	tests := []struct {
		topic     *library.Topic
		wantTotal int
		wantIDs   []string
	}{
		// Duplicates, a ".md" suffix, spaces and the topic itself count once;
		// a trigger that names nothing adds nothing.
		{a, a.Tokens + b.Tokens + c.Tokens, []string{"security/b", "testing/c"}},
		{topic("python/solo"), topic("python/solo").Tokens, nil},
		{topic("python/broken"), topic("python/broken").Tokens, nil},
	}
	for _, tc := range tests {
		total, triggers := WithTriggers(lib, tc.topic)
		var ids []string
		for _, tr := range triggers {
			ids = append(ids, tr.ID)
		}
		if total != tc.wantTotal || !slices.Equal(ids, tc.wantIDs) {
			t.Errorf("%s: WithTriggers = %d, %v; want %d, %v", tc.topic.ID, total, ids, tc.wantTotal, tc.wantIDs)
		}
	}
}
