package document

import "testing"

func TestApplyChanges(t *testing.T) {
	t.Parallel()
	rng := func(l1, c1, l2, c2 int) *Range {
		return &Range{Start: Position{l1, c1}, End: Position{l2, c2}}
	}
	tests := []struct {
		name    string
		text    string
		changes []Change
		enc     Encoding
		want    string
		wantErr string
	}{
		{"no changes", "abc", nil, UTF16, "abc", ""},
		{"whole document", "abc", []Change{{Text: "xyz"}}, UTF16, "xyz", ""},
		{"insert", "abc\ndef", []Change{{Range: rng(1, 1, 1, 1), Text: "X"}}, UTF16, "abc\ndXef", ""},
		{"replace across lines", "abc\ndef", []Change{{Range: rng(0, 2, 1, 1), Text: "-"}}, UTF16, "ab-ef", ""},
		{"delete", "abc", []Change{{Range: rng(0, 0, 0, 2)}}, UTF16, "c", ""},
		{"in order", "abc", []Change{{Range: rng(0, 0, 0, 0), Text: "12\n"}, {Range: rng(1, 0, 1, 1), Text: "A"}}, UTF16, "12\nAbc", ""},
		{"whole then range", "abc", []Change{{Text: "xyz"}, {Range: rng(0, 1, 0, 2), Text: "Y"}}, UTF16, "xYz", ""},
		{"after emoji utf16", "😀a", []Change{{Range: rng(0, 2, 0, 3), Text: "b"}}, UTF16, "😀b", ""},
		{"after emoji utf8", "😀a", []Change{{Range: rng(0, 4, 0, 5), Text: "b"}}, UTF8, "😀b", ""},
		{"after emoji utf32", "😀a", []Change{{Range: rng(0, 1, 0, 2), Text: "b"}}, UTF32, "😀b", ""},
		{"character past line end clamps", "ab\ncd", []Change{{Range: rng(0, 9, 0, 9), Text: "!"}}, UTF16, "ab!\ncd", ""},
		{"line after the last", "ab\n", []Change{{Range: rng(2, 0, 2, 0), Text: "c"}}, UTF16, "ab\nc", ""},
		{"end one line past the last", "ab", []Change{{Range: rng(0, 1, 1, 0), Text: ""}}, UTF16, "a", ""},
		{"line past the end", "ab", []Change{{Range: rng(1, 1, 1, 1), Text: "x"}}, UTF16, "", "position 1:1 is outside the document"},
		{"two lines past the end", "ab", []Change{{Range: rng(0, 0, 2, 0), Text: "x"}}, UTF16, "", "position 2:0 is outside the document"},
		{"negative", "ab", []Change{{Range: rng(0, -1, 0, 0), Text: "x"}}, UTF16, "", "position 0:-1 is outside the document"},
		{"reversed", "abc", []Change{{Range: rng(0, 2, 0, 1), Text: "x"}}, UTF16, "", "change range ends before it starts"},
		{"error after a good change", "abc", []Change{{Text: "x"}, {Range: rng(3, 0, 3, 0)}}, UTF16, "", "position 3:0 is outside the document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ApplyChanges(tc.text, tc.changes, tc.enc)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ApplyChanges = %q, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ApplyChanges = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
