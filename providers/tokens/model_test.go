package tokens

import "testing"

func TestForModel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model, want string
		ok          bool
	}{
		{"claude-opus-4-6", Claude3, true},
		{"claude-3-5-sonnet-20241022", Claude3, true},
		{"claude-3-opus-20240229", Claude3, true},
		{"claude-sonnet-4-5-20250929", Claude3, true},
		{"claude-haiku-4-5@20251001", Claude3, true},
		{"claude-opus-4-7", Claude47, true},
		{"claude-opus-4-9", Claude47, true},
		{"claude-opus-5", Claude5, true},
		{"claude-sonnet-5", Claude5, true},
		{"anthropic/claude-sonnet-5-20260101", Claude5, true},
		{"claude", Claude, true},
		{"gpt-4o-mini", O200kBase, true},
		{"gpt-5", O200kBase, true},
		{"o3", O200kBase, true},
		{"gpt-4-turbo", Cl100kBase, true},
		{"claude-instant-1.2", "", false},
		{"gemini-2.5-pro", "", false},
		{"", "", false},
	} {
		got, ok := ForModel(c.model)
		if got != c.want || ok != c.ok {
			t.Errorf("ForModel(%q) = %q, %v; want %q, %v", c.model, got, ok, c.want, c.ok)
		}
	}
}

// Every Claude name counts, in the family it names, and says which.
func TestNewClaude(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{Claude: Claude5, Claude3: Claude3, Claude47: Claude47, Claude5: Claude5} {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != want {
			t.Errorf("New(%q).Name() = %q, want %q", name, c.Name(), want)
		}
		mc, ok := c.(MessageCounter)
		if !ok {
			t.Fatalf("%s counts no message", name)
		}
		if n := mc.Count("Hello, world"); n <= 0 || mc.CountMessage("Hello, world") != n+mc.MessageOverhead() {
			t.Errorf("%s: Count %d, CountMessage %d, overhead %d", name, n, mc.CountMessage("Hello, world"), mc.MessageOverhead())
		}
	}
}
