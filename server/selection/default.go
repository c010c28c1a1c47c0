package selection

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/task"
)

// Default maps the four standard protocol names ("range",
// "roundrobin", "sticky", "cooperative-sticky") to the standard version of
// the assignor of that name, with the engine's default options, and every
// streams group to the sticky task assignor ([TaskSelector]), and reports
// the policy "default/<revision>", where the revision is a short hash of
// that mapping, so that it changes exactly when the mapping does.
func Default() Selector { return defaultSelector }

var defaultSelector = newStandardSelector()

type standardSelector struct {
	byName map[string]assign.Assignor
	policy string
}

func newStandardSelector() *standardSelector {
	s := &standardSelector{byName: make(map[string]assign.Assignor)}
	var desc strings.Builder
	for _, std := range assign.Standards() {
		s.byName[std.Name] = std.Assignor
		fmt.Fprintf(&desc, "%s=%s\n", std.Name, assign.Ref(std.Assignor))
	}
	fmt.Fprintf(&desc, "streams=%s\n", task.Ref(defaultTaskAssignor))
	sum := sha256.Sum256([]byte(desc.String()))
	s.policy = "default/" + hex.EncodeToString(sum[:4])
	return s
}

func (s *standardSelector) Select(_ context.Context, q Query) (Selection, error) {
	a, ok := s.byName[q.ProtocolName]
	if !ok {
		return Selection{}, &unknownNameError{name: q.ProtocolName, known: standardNames}
	}
	return Selection{Assignor: a, Policy: s.policy}, nil
}

// ProtocolNames lists the names Select answers for.
func (s *standardSelector) ProtocolNames() []string { return slices.Clone(standardNames) }

// standardNames are the protocol names Default knows, sorted.
var standardNames = assign.StandardNames()

// unknownNameError is Default's ErrUnknownProtocol.
type unknownNameError struct {
	name  string
	known []string
}

func (e *unknownNameError) Error() string {
	return fmt.Sprintf("%v %q: the default policy knows %s", ErrUnknownProtocol, e.name, strings.Join(e.known, ", "))
}
func (e *unknownNameError) Unwrap() error           { return ErrUnknownProtocol }
func (e *unknownNameError) ProtocolNames() []string { return slices.Clone(e.known) }
