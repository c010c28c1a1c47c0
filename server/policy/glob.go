package policy

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// compileGlob turns a group-id glob into an anchored regular expression.
//
// The syntax is path.Match's, except that '*' also crosses '/': Kafka group
// ids are not paths, and "team/*" should match "team/a/b". Patterns:
//
//	pattern matches
//	*       any run of characters, including none
//	?       exactly one character
//	[abc]   one of the characters; [a-z] a range; [!a-z] or [^a-z] negated
//	\c      the character c itself (to match a literal *, ?, [ or \)
//
// Going through regexp rather than a hand-written matcher keeps matching
// linear in the group id's length whatever the pattern, so a rule cannot
// make the request path slow.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	if !utf8.ValidString(pattern) {
		return nil, errors.New("not valid UTF-8")
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch c {
		case '*':
			for i < len(pattern) && pattern[i] == '*' {
				i++
			}
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
			i++
		case '\\':
			if i+1 >= len(pattern) {
				return nil, errors.New(`ends with a lone '\'`)
			}
			r, n := utf8.DecodeRuneInString(pattern[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += 1 + n
		case '[':
			n, err := writeClass(&b, pattern[i:])
			if err != nil {
				return nil, err
			}
			i += n
		default:
			r, n := utf8.DecodeRuneInString(pattern[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

// writeClass translates the bracket expression at the start of s and
// returns how many bytes of s it used. Every member is written as \x{HEX},
// so no character needs regexp-class escaping rules.
func writeClass(b *strings.Builder, s string) (int, error) {
	i := 1
	b.WriteByte('[')
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteByte('^')
		i++
	}
	members := 0
	for {
		if i >= len(s) {
			return 0, fmt.Errorf("unclosed '[' in %q", s)
		}
		if s[i] == ']' && members > 0 {
			b.WriteByte(']')
			return i + 1, nil
		}
		lo, n, err := classChar(s[i:])
		if err != nil {
			return 0, err
		}
		i += n
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n, err = classChar(s[i+1:])
			if err != nil {
				return 0, err
			}
			i += 1 + n
			if hi < lo {
				return 0, fmt.Errorf("range %q-%q is backwards", lo, hi)
			}
		}
		fmt.Fprintf(b, `\x{%x}`, lo)
		if hi != lo {
			fmt.Fprintf(b, `-\x{%x}`, hi)
		}
		members++
	}
}

// classChar reads one possibly escaped character of a bracket expression.
func classChar(s string) (rune, int, error) {
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, errors.New(`ends with a lone '\'`)
		}
		r, n := utf8.DecodeRuneInString(s[1:])
		return r, 1 + n, nil
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n, nil
}
