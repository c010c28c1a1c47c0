// Package promnames finds the metric names a PromQL expression reads, so
// that tests can check a dashboard's or an alert rule's expressions
// against what a live /metrics serves. It is a tokenizer that knows
// PromQL's lexical structure, not a parser: it does not validate an
// expression (promtool does that for the rules), it only tells metric
// names apart from everything else an expression is made of:
//
//   - function and aggregation names: an identifier followed by "(";
//   - keywords and operators (by, without, on, ignoring, group_left,
//     group_right, and, or, unless, bool, offset, Inf, NaN, ...);
//   - label names: inside a selector's braces and in the parenthesised
//     lists after by, without, on, ignoring, group_left and group_right;
//   - strings ("...", '...', `...`), numbers and durations (5m, 1h30m,
//     1e-3, 0x1f), ranges and subqueries in brackets;
//   - Grafana's template variables ($__rate_interval, ${job}, and
//     [[var]] in a range),
//     which are not PromQL but appear in dashboards.
//
// A selector that names its metric through a matcher, {__name__="x"},
// counts x. Comments (# to the end of the line) are skipped.
package promnames

import (
	"fmt"
	"slices"
	"strings"
)

// keywords are the identifiers PromQL reserves; compared in lower case.
var keywords = map[string]bool{
	"and": true, "or": true, "unless": true, "atan2": true,
	"by": true, "without": true, "on": true, "ignoring": true,
	"group_left": true, "group_right": true, "bool": true, "offset": true,
	"inf": true, "nan": true,
}

// labelLists are the keywords followed by a parenthesised list of label
// names.
var labelLists = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true,
	"group_left": true, "group_right": true,
}

// Names returns the metric names expr reads, sorted and without
// duplicates; an error when expr is not lexically valid PromQL (an
// unterminated string, unbalanced brackets, a character PromQL does not
// have).
func Names(expr string) ([]string, error) {
	l := lexer{src: expr}
	seen := map[string]bool{}
	for {
		tok, err := l.next()
		if err != nil {
			return nil, err
		}
		if tok.kind == eof {
			break
		}
		switch {
		case tok.kind == ident && l.inBraces():
			// A label name; __name__="x" names the metric.
			v, err := l.matcherValue()
			if err != nil {
				return nil, err
			}
			if tok.text == "__name__" && v != "" {
				seen[v] = true
			}
		case tok.kind == ident && l.inLabelList():
			// by (a, b) and the like: label names.
		case tok.kind == ident && keywords[strings.ToLower(tok.text)]:
			if labelLists[strings.ToLower(tok.text)] {
				l.expectLabelList = true
			}
		case tok.kind == ident && (l.peekByte() == '(' || labelLists[strings.ToLower(l.peekWord())]):
			// A function or an aggregation (sum by (x) (...)).
		case tok.kind == ident:
			seen[tok.text] = true
		}
	}
	if len(l.stack) != 0 {
		return nil, fmt.Errorf("promnames: %q: unclosed %q", expr, l.stack[len(l.stack)-1].open)
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

type kind int

const (
	eof kind = iota
	ident
	other
)

type token struct {
	kind kind
	text string
}

// frame is one open bracket; labels: a label list's parentheses.
type frame struct {
	open   byte
	labels bool
}

type lexer struct {
	src   string
	pos   int
	stack []frame
	// expectLabelList: the last keyword opens a label list with its next
	// "(".
	expectLabelList bool
}

func (l *lexer) inBraces() bool { return len(l.stack) > 0 && l.stack[len(l.stack)-1].open == '{' }
func (l *lexer) inLabelList() bool {
	return len(l.stack) > 0 && l.stack[len(l.stack)-1].labels
}

// peekWord is the next identifier, if the next token is one.
func (l *lexer) peekWord() string {
	l.skipSpace()
	end := l.pos
	for end < len(l.src) && isIdentByte(l.src[end]) {
		end++
	}
	return l.src[l.pos:end]
}

// peekByte is the next byte that is not white space or a comment.
func (l *lexer) peekByte() byte {
	l.skipSpace()
	if l.pos < len(l.src) {
		return l.src[l.pos]
	}
	return 0
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentByte(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

func (l *lexer) next() (token, error) {
	// A label list's "(" must follow its keyword at once:
	// group_left without one is followed by an expression.
	labels := l.expectLabelList
	l.expectLabelList = false
	l.skipSpace()
	if l.pos >= len(l.src) {
		return token{kind: eof}, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '$':
		return l.variable()
	case c == '[':
		// A range or subquery: durations, numbers, a colon, variables
		// (Grafana's deprecated [[var]] among them).
		for l.pos++; l.pos < len(l.src); l.pos++ {
			if strings.HasPrefix(l.src[l.pos:], "[[") {
				end := strings.Index(l.src[l.pos:], "]]")
				if end < 0 {
					break
				}
				l.pos += end + 1
				continue
			}
			if l.src[l.pos] == ']' {
				l.pos++
				return token{kind: other}, nil
			}
		}
		return token{}, l.errorf("unclosed [")
	case c == '"' || c == '\'' || c == '`':
		if _, err := l.str(); err != nil {
			return token{}, err
		}
		return token{kind: other}, nil
	case '0' <= c && c <= '9' || c == '.' && l.pos+1 < len(l.src) && '0' <= l.src[l.pos+1] && l.src[l.pos+1] <= '9':
		l.number()
		return token{kind: other}, nil
	case isIdentStart(c):
		start := l.pos
		for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
			l.pos++
		}
		return token{kind: ident, text: l.src[start:l.pos]}, nil
	case c == '(' || c == '{':
		l.stack = append(l.stack, frame{open: c, labels: c == '(' && labels})
		l.pos++
		return token{kind: other}, nil
	case c == ')' || c == '}':
		want := byte('(')
		if c == '}' {
			want = '{'
		}
		if len(l.stack) == 0 || l.stack[len(l.stack)-1].open != want {
			return token{}, l.errorf("unbalanced %q", c)
		}
		l.stack = l.stack[:len(l.stack)-1]
		l.pos++
		return token{kind: other}, nil
	case strings.IndexByte("+-*/%^=!<>~,@:", c) >= 0:
		l.pos++
		return token{kind: other}, nil
	}
	return token{}, l.errorf("unexpected %q", c)
}

// variable skips a Grafana template variable: $name, ${name} or
// ${name:format}.
func (l *lexer) variable() (token, error) {
	l.pos++
	if l.pos < len(l.src) && l.src[l.pos] == '{' {
		end := strings.IndexByte(l.src[l.pos:], '}')
		if end < 0 {
			return token{}, l.errorf("unclosed ${")
		}
		l.pos += end + 1
		return token{kind: other}, nil
	}
	start := l.pos
	for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
		l.pos++
	}
	if l.pos == start {
		return token{}, l.errorf("a $ without a variable name")
	}
	return token{kind: other}, nil
}

// str reads a string literal and returns its value (escapes are kept as
// written, which is all a metric name needs).
func (l *lexer) str() (string, error) {
	q := l.src[l.pos]
	l.pos++
	start := l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\\' && q != '`':
			l.pos += 2
			continue
		case c == q:
			l.pos++
			return l.src[start : l.pos-1], nil
		case c == '\n' && q != '`':
			return "", l.errorf("a newline in a string")
		}
		l.pos++
	}
	return "", l.errorf("unterminated string")
}

// number skips a number or duration: digits, letters (units, exponents,
// hex) and dots, and a sign right after an exponent's e.
func (l *lexer) number() {
	start := l.pos
	hex := strings.HasPrefix(strings.ToLower(l.src[l.pos:]), "0x")
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if isIdentByte(c) && c != ':' || c == '.' {
			l.pos++
			continue
		}
		if (c == '+' || c == '-') && l.pos > start && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E') && !hex {
			l.pos++
			continue
		}
		return
	}
}

// matcherValue reads the rest of a matcher after its label name: the
// operator and the string; the value when the operator is "=".
func (l *lexer) matcherValue() (string, error) {
	l.skipSpace()
	op := ""
	for l.pos < len(l.src) && strings.IndexByte("=!~", l.src[l.pos]) >= 0 {
		op += string(l.src[l.pos])
		l.pos++
	}
	l.skipSpace()
	if op == "" || l.pos >= len(l.src) || strings.IndexByte("\"'`", l.src[l.pos]) < 0 {
		return "", l.errorf("a matcher without an operator and a string")
	}
	v, err := l.str()
	if err != nil || op != "=" {
		return "", err
	}
	return v, nil
}

func (l *lexer) errorf(format string, args ...any) error {
	return fmt.Errorf("promnames: %q at byte %d: %s", l.src, l.pos, fmt.Sprintf(format, args...))
}
