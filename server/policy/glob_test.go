package policy

import (
	"path"
	"strings"
	"testing"
)

func TestCompileGlob(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"orders", []string{"orders"}, []string{"orders2", "Orders", ""}},
		{"pay-*", []string{"pay-", "pay-1", "pay-a/b"}, []string{"pay", "xpay-1"}},
		{"*-eu", []string{"-eu", "a/b-eu"}, []string{"a-eu-1"}},
		{"a**b", []string{"ab", "axxb"}, []string{"a"}},
		{"eu-?-x", []string{"eu-1-x", "eu-ü-x"}, []string{"eu--x", "eu-12-x"}},
		{"s-[0-3]", []string{"s-0", "s-3"}, []string{"s-4", "s-", "s-00"}},
		{"s-[!0-3]", []string{"s-4", "s-a"}, []string{"s-0", "s-"}},
		{"s-[^a]", []string{"s-b"}, []string{"s-a"}},
		{"[]a]", []string{"]", "a"}, []string{"b"}},
		{"[a-]", []string{"a", "-"}, []string{"b"}},
		{`\*`, []string{"*"}, []string{"x", ""}},
		{`a\?b`, []string{"a?b"}, []string{"axb"}},
		{`[\]]`, []string{"]"}, []string{`\`}},
		{"x.y+(z)|$^", []string{"x.y+(z)|$^"}, []string{"xxy+(z)|$^"}},
		{"line*", []string{"line\nbreak"}, []string{"lin"}},
		{"*", []string{"", "anything/at/all"}, nil},
	}
	for _, tt := range tests {
		re, err := compileGlob(tt.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tt.pattern, err)
			continue
		}
		for _, s := range tt.match {
			if !re.MatchString(s) {
				t.Errorf("%q should match %q", tt.pattern, s)
			}
		}
		for _, s := range tt.noMatch {
			if re.MatchString(s) {
				t.Errorf("%q should not match %q", tt.pattern, s)
			}
		}
	}
}

func TestCompileGlobErrors(t *testing.T) {
	for _, p := range []string{"[", "[a", "[!]", `x\`, `[\`, "[b-a]", "a[", "\xff"} {
		if _, err := compileGlob(p); err == nil {
			t.Errorf("compileGlob(%q) accepted", p)
		}
	}
}

// FuzzGlob checks that any pattern either fails to compile or agrees with
// path.Match on inputs without '/', where the two syntaxes coincide, and
// that a pattern without special characters matches exactly itself.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"pay-*", "s-[0-3]", `\*x`, "[!a-c]?", "[]]", "a*b*c", "ü?"} {
		f.Add(s, "pay-1")
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		re, err := compileGlob(pattern)
		if err != nil {
			return
		}
		if !strings.ContainsAny(pattern, `*?[\`) && !re.MatchString(pattern) {
			t.Fatalf("literal %q does not match itself", pattern)
		}
		if strings.Contains(pattern+name, "/") || strings.Contains(pattern, "[!") || strings.Contains(pattern, "[]") {
			return // path.Match stops '*' at '/', has no "[!" negation and no "[]...]"
		}
		if strings.Count(pattern, "*") > 3 {
			return // path.Match backtracks exponentially on many stars
		}
		want, perr := path.Match(pattern, name)
		if perr == nil && want != re.MatchString(name) {
			t.Fatalf("pattern %q, name %q: path.Match %t, glob %t", pattern, name, want, !want)
		}
	})
}
