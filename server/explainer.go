package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/assignd/assignd/assign"
)

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

// errNoExplainer: the server was built without WithExplainer.
var errNoExplainer = errors.New("this server has no policy explainer (assignd runs one with every policy, --policy or the embedded default)")

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
	RackAware            bool
	MaxMovesPerRebalance int
	Freeze               bool
}

// String formats the parameters as they are written in a policy file.
func (p PolicyParams) String() string {
	return fmt.Sprintf("rack_aware=%t max_moves_per_rebalance=%d freeze=%t", p.RackAware, p.MaxMovesPerRebalance, p.Freeze)
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
