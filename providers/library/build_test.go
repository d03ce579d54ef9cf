package library

import "testing"

func TestLastTwo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p, dir, file string
		ok           bool
	}{
		{"python/django.md", "python", "django.md", true},
		{"../context/python/django.md", "python", "django.md", true},
		{"/django.md", "", "django.md", true},
		{"django.md", "", "", false},
	}
	for _, tt := range tests {
		dir, file, ok := lastTwo(tt.p)
		if dir != tt.dir || file != tt.file || ok != tt.ok {
			t.Errorf("lastTwo(%q) = %q, %q, %v; want %q, %q, %v", tt.p, dir, file, ok, tt.dir, tt.file, tt.ok)
		}
	}
}
