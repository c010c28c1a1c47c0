package main

import (
	"context"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/policy"
)

// policyExplainer answers ExplainPolicy from the policy source the server
// selects with, so that an explanation always describes the revision that
// is serving. The server package cannot import server/policy (policy
// imports server), hence this adapter here, where both are wired.
type policyExplainer struct{ src *policy.Source }

var _ server.Explainer = policyExplainer{}

func (e policyExplainer) ExplainPolicy(_ context.Context, q server.Query) (server.Explanation, error) {
	x, err := e.src.Explain(q.GroupID, q.ProtocolName, q.Caller)
	if err != nil {
		return server.Explanation{}, err
	}
	return explanationFrom(x), nil
}

// explanationFrom converts the policy's explanation to the server's.
func explanationFrom(x policy.Explanation) server.Explanation {
	out := server.Explanation{
		Policy:      x.Policy,
		Rule:        x.Rule,
		Revision:    x.Revision,
		Description: x.Description,
		Bucket:      x.Bucket,
		Reason:      x.Reason,
		Assignor:    x.Assignor,
		Protocol:    x.Protocol,
		Params:      paramsFrom(x.Params),
	}
	if x.Shadow != nil {
		out.Shadow = &server.ShadowPolicy{Assignor: x.Shadow.Assignor, Params: paramsFrom(x.Shadow.Params)}
	}
	if len(x.Skipped) > 0 {
		out.Skipped = make([]server.SkippedRule, len(x.Skipped))
		for i, s := range x.Skipped {
			out.Skipped[i] = server.SkippedRule{Rule: s.Rule, Reason: s.Reason}
		}
	}
	return out
}

func paramsFrom(p policy.Params) server.PolicyParams {
	return server.PolicyParams{RackAware: p.RackAware, MaxMovesPerRebalance: p.MaxMovesPerRebalance, Freeze: p.Freeze}
}
