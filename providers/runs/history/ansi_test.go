package history

import (
	"context"
	"strings"
	"testing"
)

func TestStripANSI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "no escapes, 中文 😀\n", "no escapes, 中文 😀\n"},
		{"colour", "\x1b[1;31merror\x1b[0m: x", "error: x"},
		{"erase line", "50%\r\x1b[K100%", "50%\r100%"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"hyperlink", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x07 after", "link after"},
		{"title", "\x1b]0;agent\x07text", "text"},
		{"charset", "\x1b(Btext", "text"},
		{"two-byte", "a\x1bMb", "ab"},
		{"cut off", "text\x1b[31", "text"},
		{"lone ESC", "a\x1b", "a"},
	} {
		if got := stripANSI(tc.in); got != tc.want {
			t.Errorf("%s: stripANSI(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestAppendStripsANSI: agent output with colours is stored, measured and
// built into the next prompt without its escape sequences.
func TestAppendStripsANSI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := openStore(t)
	coloured := "\x1b[32m✓\x1b[0m tests pass\n\x1b[1mdone\x1b[0m"
	m := mustAppend(t, s, Message{ConversationID: "c", Role: RoleAssistant, Mode: ModeRun, Content: coloured})
	if m.Content != "✓ tests pass\ndone" || m.Tokens != s.counter().Count(m.Content) {
		t.Fatalf("stored %q with %d tokens", m.Content, m.Tokens)
	}
	got, err := s.buildContext(ctx, "c", buildRequest{Strategy: recent{N: 10},
		Pending: []Message{{Role: RoleAssistant, Mode: ModeRun, Content: "\x1b[31mfailed\x1b[0m"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Text, "\x1b") || !strings.Contains(got.Text, "failed") {
		t.Errorf("built context holds escapes:\n%q", got.Text)
	}
}
