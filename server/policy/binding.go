package policy

import (
	"fmt"
	"strings"

	"github.com/assignd/assignd/internal/clip"
	"github.com/assignd/assignd/server/selection"
)

// binding is one compiled entry of the policy's bindings: the groups it
// covers and the callers allowed to request them. It reuses a rule's
// matching, so that a group clause and a caller entry mean the same in a
// binding as in a rule's match.
type binding struct {
	name  string
	match *rule // groups, prefixes, globs and callers only
}

// compileBindings validates and compiles the file's bindings, in order.
func (c *compiler) compileBindings(specs []bindingSpec) []*binding {
	out := make([]*binding, 0, len(specs))
	seen := make(map[string]int)
	for i := range specs {
		s := &specs[i]
		at := c.lines.binding(i)
		base := fmt.Sprintf("bindings[%d]", i)
		add := func(field, format string, args ...any) {
			path := strings.TrimPrefix(field, "match.")
			full := base
			if path != "" {
				full += "." + path
			}
			c.probs.add(at.line(path), "", full, format, args...)
		}
		switch {
		case s.Name == "":
			add("name", "a binding needs a name (refusals and decision records name it)")
		case !ruleName.MatchString(s.Name):
			add("name", "must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit")
		default:
			if prev, dup := seen[s.Name]; dup {
				add("name", "duplicate binding name (also bindings[%d])", prev)
			}
			seen[s.Name] = i
		}
		m := matchSpec{Groups: s.Groups, GroupPrefixes: s.GroupPrefixes, GroupGlobs: s.GroupGlobs, Callers: s.Callers}
		if m.Groups == nil && m.GroupPrefixes == nil && m.GroupGlobs == nil {
			add("", "a binding needs groups, group_prefixes or group_globs (group_globs: [\"*\"] binds every group)")
		}
		if m.Callers == nil {
			add("callers", "a binding needs callers: the mTLS identities (common_name or subject) allowed to request its groups")
		}
		r := &rule{name: s.Name}
		c.compileMatch(r, &m, add)
		out = append(out, &binding{name: s.Name, match: r})
	}
	return out
}

// authorize decides whether caller may request groupID: the first binding
// whose group clause matches the group decides, and the caller must match
// one of its callers. It returns that binding's name ("" for a group no
// binding covers, which any caller may request), or a *CallerError.
func (p *Policy) authorize(groupID string, caller selection.Caller) (string, error) {
	for _, b := range p.bindings {
		if !b.match.groupMatches(groupID) {
			continue
		}
		if caller == (selection.Caller{}) || !b.match.callerMatches(caller) {
			return b.name, &CallerError{Group: groupID, Binding: b.name, Caller: caller}
		}
		return b.name, nil
	}
	return "", nil
}

// Bindings lists the names of the policy's bindings, in order.
func (p *Policy) Bindings() []string {
	out := make([]string, len(p.bindings))
	for i, b := range p.bindings {
		out[i] = b.name
	}
	return out
}

// CallerError refuses a call from a caller that the group's binding does
// not allow. It wraps [selection.ErrCallerNotAllowed], which the server
// maps to PERMISSION_DENIED.
type CallerError struct {
	// Group is the requested group id.
	Group string
	// Binding is the name of the binding that covers the group.
	Binding string
	// Caller is who called; empty when the call was not authenticated.
	Caller selection.Caller
}

func (e *CallerError) Error() string {
	who := "an unauthenticated caller (no verified client certificate)"
	if e.Caller != (selection.Caller{}) {
		who = fmt.Sprintf("caller %q", clip.String(e.Caller.Subject, clip.Short))
	}
	return fmt.Sprintf("%s may not request group %q: policy binding %q allows other callers",
		who, clip.String(e.Group, clip.Short), e.Binding)
}

func (e *CallerError) Unwrap() error { return selection.ErrCallerNotAllowed }
