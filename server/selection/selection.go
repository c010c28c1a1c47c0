// Package selection is the seam between the assignd service and what
// chooses the assignor for a group: a [Selector] answers every Assign call,
// an [Explainer] answers ExplainPolicy. It holds only these types, so that
// an implementation (server/policy) and its tools (assignctl's policy
// check) do not depend on the gRPC service; package server re-exports them
// under the same names.
package selection

import (
	"context"
	"errors"
	"fmt"
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

// ErrCallerNotAllowed is wrapped by Selector errors refusing a caller the
// policy does not allow to request the group (server/policy's bindings).
// The server maps it to PERMISSION_DENIED (reason
// ERROR_REASON_CALLER_NOT_ALLOWED); the error's message, which names the
// group and the caller, is sent as is.
var ErrCallerNotAllowed = errors.New("caller not allowed for this group")

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
	// GroupType is the group's type. Select is asked for consumer groups
	// only (TaskSelector.SelectTasks for streams groups); an Explainer
	// explains either, and ignores ProtocolName for a streams group.
	GroupType GroupType
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
	// Binding names the policy binding that allowed the caller to request
	// the group; empty when no binding covers the group.
	Binding string
	// KafkaLoad asks for partition weights from the server's Kafka load
	// source when the request carries none (params.load_source "kafka").
	KafkaLoad bool
	// LoadCluster is the policy's load cluster that KafkaLoad reads from
	// (params.load_cluster); nil: the server's own (--load-brokers).
	LoadCluster *LoadCluster
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
	// RolloutStep is the step (1-based) of the rule's staged rollout that
	// admitted the group, read at the instant the rule was chosen; 0 when
	// the rule has no rollout steps. The call's Decision records it, so
	// that a gate counts exactly the decisions of its step.
	RolloutStep int
	// RolloutStarted is when the rule's rollout started, as the replicas
	// agreed it; zero before this replica read it (it then serves the
	// first step).
	RolloutStarted time.Time
}

// Explainer answers the ExplainPolicy RPC: what the policy does for a
// group and why. It is the read-only twin of Selector, kept apart so that
// a Selector need not explain itself. server/policy's Source implements
// it.
// Implementations must be safe for concurrent use, and must answer as the
// Selector would for the same Query at the same revision.
type Explainer interface {
	// ExplainPolicy explains the choice for q. q.Protocol is always
	// ProtocolUnspecified; q.ProtocolName may be empty. An error wrapping
	// ErrUnknownProtocol means that no rule answers for the name; any
	// other error is INTERNAL.
	ExplainPolicy(ctx context.Context, q Query) (Explanation, error)
}

// Explanation is an Explainer's answer; ExplainPolicyResponse carries it.
type Explanation struct {
	// Policy is "rule/revision", as AssignResponse.policy reports it.
	Policy string
	// Rule is the name of the rule that applies.
	Rule string
	// Revision identifies the policy's content.
	Revision string
	// Description is the rule's description.
	Description string
	// Bucket is the group's rollout bucket under the rule's salt.
	Bucket int
	// Reason says why the rule applies.
	Reason string
	// Assignor is what runs, as "name@version".
	Assignor string
	// Protocol is the rebalance protocol a request that leaves it
	// unspecified runs (Selection.Protocol, or the assignor's default).
	Protocol assign.RebalanceProtocol
	// Params are the rule's parameters.
	Params PolicyParams
	// Shadow is the rule's shadow assignor, nil when it has none.
	Shadow *ShadowPolicy
	// Skipped lists the rules before Rule, each with why it did not apply.
	Skipped []SkippedRule
}

// PolicyParams are a rule's assignor parameters, defaults filled in.
type PolicyParams struct {
	// RackAware turns KIP-881 rack-aware assignment on or off
	// (params.rack_aware). Default: true.
	RackAware bool
	// MaxMovesPerRebalance caps how many partitions one rebalance takes
	// from their live owners, so a large reshuffle spreads over several
	// rebalances (params.max_moves_per_rebalance). Default: 0, no cap.
	MaxMovesPerRebalance int
	// Freeze keeps every partition with its live owner and only places
	// partitions nobody owns, for incidents (params.freeze). It takes
	// precedence over MaxMovesPerRebalance. Default: false.
	Freeze bool
	// KeepMisalignedRacks lets an owner keep a partition none of whose
	// replicas is on its rack (params.keep_misaligned_racks). Default:
	// false, as in the Java client: rack-aware groups bring such
	// partitions home where the balance allows (KIP-881), at the cost of a
	// cooperative follow-up.
	KeepMisalignedRacks bool
	// LoadTolerance is how far above the lower bound of the largest
	// member load a load-aware plan may stay, as a fraction
	// (params.load_tolerance). Default: 0.10. Only load-aware assignors
	// (load-sticky@1) read this and the next two.
	LoadTolerance float64
	// LoadHysteresis is how far beyond the tolerance, as a fraction of the
	// bound, load must drift before a load-aware assignor moves anything
	// (params.load_hysteresis). Default: 0.05.
	LoadHysteresis float64
	// MaxCountSkew caps how many partitions a member may hold beyond the
	// even share under a load-aware assignor (params.max_count_skew).
	// Default: 0, the even share itself.
	MaxCountSkew int
	// LoadSource is where partition load comes from when a request
	// carries no weights (params.load_source): "" (plan by counts) or
	// "kafka", the server's Kafka load source (--load-brokers), read in the
	// background. Default: "".
	LoadSource string
	// LoadCluster names the policy's load_clusters entry that
	// load_source "kafka" reads from (params.load_cluster). Default: "",
	// the server's own cluster (--load-brokers).
	LoadCluster string
}

// LoadCluster names a Kafka cluster a policy declares for reading
// partition load (load_clusters). How to connect to it is configuration,
// not part of the selection: the server's load clusters look it up by
// name in the policy.
type LoadCluster struct {
	Name string
}

// String formats the parameters as they are written in a policy file; the
// load-aware ones only when they differ from their defaults.
func (p PolicyParams) String() string {
	s := fmt.Sprintf("rack_aware=%t max_moves_per_rebalance=%d freeze=%t", p.RackAware, p.MaxMovesPerRebalance, p.Freeze)
	if p.KeepMisalignedRacks { // only when set, so that the usual line stays as it was
		s += " keep_misaligned_racks=true"
	}
	s += LoadParamsString(p.LoadTolerance, p.LoadHysteresis, p.MaxCountSkew, p.LoadSource)
	if p.LoadCluster != "" {
		s += " load_cluster=" + p.LoadCluster
	}
	return s
}

// LoadParamsString formats the load-aware parameters that differ from
// their defaults, each with a leading space ("" when all are defaults).
func LoadParamsString(tolerance, hysteresis float64, skew int, source string) string {
	s := ""
	if source != "" {
		s += " load_source=" + source
	}
	if tolerance != assign.DefaultLoadTolerance {
		s += fmt.Sprintf(" load_tolerance=%g", tolerance)
	}
	if hysteresis != assign.DefaultLoadHysteresis {
		s += fmt.Sprintf(" load_hysteresis=%g", hysteresis)
	}
	if skew != 0 {
		s += fmt.Sprintf(" max_count_skew=%d", skew)
	}
	return s
}

// Options converts the parameters to engine options: the one place a
// parameter becomes an [assign.Option], for serving and for replays alike.
// All of them are always passed, so that what runs does not depend on the
// engine's defaults. The slice's capacity equals its length, so a caller
// that appends gets a copy and may share it.
func (p PolicyParams) Options() []assign.Option {
	opts := []assign.Option{
		assign.WithRackAware(p.RackAware),
		assign.WithMaxMoves(p.MaxMovesPerRebalance),
		assign.WithFreeze(p.Freeze),
		assign.WithKeepMisalignedRacks(p.KeepMisalignedRacks),
		assign.WithLoadTolerance(p.LoadTolerance),
		assign.WithLoadHysteresis(p.LoadHysteresis),
		assign.WithMaxCountSkew(p.MaxCountSkew),
	}
	return opts[:len(opts):len(opts)]
}

// ShadowPolicy is a rule's shadow assignor ("name@version") and its
// parameters.
type ShadowPolicy struct {
	Assignor string
	Params   PolicyParams
}

// SkippedRule is a rule that did not apply, and why.
type SkippedRule struct {
	Rule   string
	Reason string
}

// GetName is c's name, "" for nil (the server's own cluster).
func (c *LoadCluster) GetName() string {
	if c == nil {
		return ""
	}
	return c.Name
}
