package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/assignd/assignd/assign"
)

// ErrUnknownProtocol is wrapped by Selector and Explainer errors meaning
// that no assignor answers to the requested protocol name. The server maps
// it to INVALID_ARGUMENT on the field protocol_name (reason
// ERROR_REASON_UNKNOWN_PROTOCOL_NAME); any other Selector error is INTERNAL.
//
// An error that wraps it may also have a method
//
//	ProtocolNames() []string
//
// listing the names that are known; the server then returns them,
// comma-separated, in the ErrorInfo metadata "protocol_names", so that a
// client (`assignctl policy explain`) can learn them without parsing text.
var ErrUnknownProtocol = errors.New("unknown protocol name")

// protocolNamer is the optional interface of ErrUnknownProtocol errors.
type protocolNamer interface{ ProtocolNames() []string }

// Selector chooses what runs behind a protocol name for one group. It is the
// seam between the service and the policy layer (server/policy): the
// service asks it on every Assign call and never picks an assignor itself.
// Implementations must be safe for concurrent use and fast (they run on the
// request path), and must be deterministic for a given policy revision, so
// that replicas give the same answer.
type Selector interface {
	Select(ctx context.Context, q Query) (Selection, error)
}

// Query is what a Selector may choose on.
type Query struct {
	// GroupID is the consumer group id from the request (may be empty).
	GroupID string
	// ProtocolName is the group's protocol name. Select never sees an
	// empty one (Assign rejects it first); ExplainPolicy passes it on, so
	// that the Explainer's error can list the names it knows.
	ProtocolName string
	// Protocol is the requested rebalance protocol, possibly
	// ProtocolUnspecified (always so for ExplainPolicy).
	Protocol assign.RebalanceProtocol
	// Caller identifies the client, when it authenticated.
	Caller Caller
}

// Caller is the authenticated identity of the client, empty for plaintext
// or server-only TLS connections.
type Caller struct {
	// Subject is the verified client certificate's subject distinguished
	// name (mTLS), e.g. "CN=leader-a,O=payments".
	Subject string
	// CommonName is that subject's common name, e.g. "leader-a".
	CommonName string
}

// Selection is a Selector's answer.
type Selection struct {
	// Assignor runs the assignment. Required.
	Assignor assign.Assignor
	// Protocol is the rebalance protocol to run when the request leaves it
	// unspecified; ProtocolUnspecified leaves the choice to the engine (the
	// assignor's default). A policy sets it because the protocol name fixes
	// what the group's clients run whatever assignor is put behind it: an
	// eager "range" group must get an EAGER plan even from an assignor whose
	// default is COOPERATIVE. A protocol the request names always wins.
	Protocol assign.RebalanceProtocol
	// Options tune the run (rack awareness, move caps, freeze).
	Options []assign.Option
	// Policy names the rule and revision that chose the assignor, as
	// "rule/revision"; it is returned in AssignResponse.policy and labels
	// the domain metrics.
	Policy string
	// Observe, when set, is called after a successful assignment with the
	// group the engine saw, its result and how long the engine took, before
	// the response is sent. It lets a policy compare a shadow assignor with
	// what ran. It runs on the request path: it must not block for long nor
	// modify g or r, and it must be safe for concurrent use. The server
	// neither modifies nor reuses g and r after Observe returns, so Observe
	// may hand them to another goroutine that reads them later.
	Observe func(ctx context.Context, g *assign.Group, r *assign.Result, took time.Duration)
}

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
