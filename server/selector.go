package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/selection"
)

// ErrUnknownProtocol is [selection.ErrUnknownProtocol]: wrapped by
// Selector and Explainer errors meaning that no assignor answers to the
// requested protocol name (INVALID_ARGUMENT on protocol_name).
var ErrUnknownProtocol = selection.ErrUnknownProtocol

// ErrCallerNotAllowed is [selection.ErrCallerNotAllowed]: wrapped by
// Selector errors refusing a caller the group's policy binding does not
// allow (PERMISSION_DENIED).
var ErrCallerNotAllowed = selection.ErrCallerNotAllowed

// protocolNamer is the optional interface of ErrUnknownProtocol errors.
type protocolNamer interface{ ProtocolNames() []string }

// The seam between the service and the policy layer lives in package
// [selection], so that server/policy need not import the service; these
// aliases keep its names here.
type (
	// Selector chooses what runs behind a protocol name for one group; see
	// [selection.Selector].
	Selector = selection.Selector
	// Query is what a Selector may choose on.
	Query = selection.Query
	// Caller is the authenticated identity of the client.
	Caller = selection.Caller
	// Selection is a Selector's answer.
	Selection = selection.Selection
)

// DefaultSelector maps the four standard protocol names ("range",
// "roundrobin", "sticky", "cooperative-sticky") to the standard version of
// the assignor of that name, with the engine's default options, and reports
// the policy "default/<revision>", where the revision is a short hash of
// that mapping, so that it changes exactly when the mapping does.
func DefaultSelector() Selector { return defaultSelector }

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

// standardNames are the protocol names DefaultSelector knows, sorted.
var standardNames = assign.StandardNames()

// unknownNameError is DefaultSelector's ErrUnknownProtocol.
type unknownNameError struct {
	name  string
	known []string
}

func (e *unknownNameError) Error() string {
	return fmt.Sprintf("%v %q: the default policy knows %s", ErrUnknownProtocol, e.name, strings.Join(e.known, ", "))
}
func (e *unknownNameError) Unwrap() error           { return ErrUnknownProtocol }
func (e *unknownNameError) ProtocolNames() []string { return slices.Clone(e.known) }
