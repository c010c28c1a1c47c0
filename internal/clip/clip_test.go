package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"orders", 128, "orders"},
		{strings.Repeat("a", 10), 4, "aaaa..."},
		{"ééé", 3, "é..."}, // é is 2 bytes: the cut moves back to a character's start
		{"", 0, ""},
	}
	for _, tc := range tests {
		got := String(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("String(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
