package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assignd/assignd/assign"
)

// ErrUnknownProtocol is wrapped by Selector errors meaning that no assignor
// answers to the requested protocol name. The server maps it to
// INVALID_ARGUMENT on the field protocol_name (reason
// ERROR_REASON_UNKNOWN_PROTOCOL_NAME); any other Selector error is INTERNAL.
var ErrUnknownProtocol = errors.New("unknown protocol name")

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
	// ProtocolName is the group's protocol name; never empty (the server
	// rejects empty names before asking).
	ProtocolName string
	// Protocol is the requested rebalance protocol, possibly
	// ProtocolUnspecified.
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
	// modify g or r, and it must be safe for concurrent use.
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
	for _, name := range []string{assign.NameCooperativeSticky, assign.NameRange, assign.NameRoundRobin, assign.NameSticky} {
		a, ok := assign.Lookup(name, 0)
		if !ok {
			panic(fmt.Sprintf("server: standard assignor %q is not registered", name))
		}
		s.byName[name] = a
		fmt.Fprintf(&desc, "%s=%s\n", name, assign.Ref(a))
	}
	sum := sha256.Sum256([]byte(desc.String()))
	s.policy = "default/" + hex.EncodeToString(sum[:4])
	return s
}

func (s *standardSelector) Select(_ context.Context, q Query) (Selection, error) {
	a, ok := s.byName[q.ProtocolName]
	if !ok {
		return Selection{}, fmt.Errorf("%w %q: the default policy knows %s, %s, %s and %s", ErrUnknownProtocol, q.ProtocolName,
			assign.NameCooperativeSticky, assign.NameRange, assign.NameRoundRobin, assign.NameSticky)
	}
	return Selection{Assignor: a, Policy: s.policy}, nil
}
