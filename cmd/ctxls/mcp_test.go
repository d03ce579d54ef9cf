package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestMCPCommandLine(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope")
	cases := []struct {
		args     []string
		usage    bool
		errorHas string
	}{
		{args: []string{"mcp", "extra"}, usage: true, errorHas: "mcp takes no arguments"},
		{args: []string{"mcp", "--port", "3"}, usage: true, errorHas: "unknown flag --port"},
		{args: []string{"mcp", "--dir", missing}, errorHas: "is not a directory"},
		// No client: stdin is empty, so the session ends at once.
		{args: []string{"mcp", "--dir", exampleDir}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			_, _, err := runCLI(t, c.args...)
			var ue usageError
			if errors.As(err, &ue) != c.usage {
				t.Errorf("usage error %v, want %v (%v)", !c.usage, c.usage, err)
			}
			if c.errorHas == "" && err != nil || c.errorHas != "" && (err == nil || !strings.Contains(err.Error(), c.errorHas)) {
				t.Errorf("error %v, want one containing %q", err, c.errorHas)
			}
		})
	}
}
