package policy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidPolicy is wrapped by every error Parse, Load and Check return
// for a policy that cannot be used: unreadable YAML, unknown fields, unknown
// assignors, rules that cannot serve their protocols, bad parameters.
var ErrInvalidPolicy = errors.New("invalid policy")

// Error is one problem found in a policy file. Parse and Load report every
// problem they find at once (joined with errors.Join), so that `assignctl
// policy check` shows a whole file's mistakes in one run; use errors.As to
// walk them.
type Error struct {
	// File names the policy file ("<embedded>" for the built-in default).
	File string
	// Line is the 1-based line of the offending YAML node, 0 when unknown.
	Line int
	// Rule is the rule's name, or "rules[i]" when it has none; empty for
	// problems outside any rule.
	Rule string
	// Field is the YAML path of the offending field inside the rule (or the
	// file), e.g. "rollout.percent" or "shadow.assignor".
	Field string
	// Msg says what is wrong and, where it helps, what would be right.
	Msg string
}

// Error formats the problem as "file:line: rule "r": field: msg".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Rule != "" {
		fmt.Fprintf(&b, "rule %q: ", e.Rule)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes every Error match ErrInvalidPolicy.
func (e *Error) Unwrap() error { return ErrInvalidPolicy }

// problems collects the Errors of one file.
type problems struct {
	file string
	list []error
}

func (p *problems) add(line int, rule, field, format string, args ...any) {
	p.list = append(p.list, &Error{File: p.file, Line: line, Rule: rule, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error { return errors.Join(p.list...) }
