package server

import (
	"errors"

	"github.com/assignd/assignd/server/selection"
)

type (
	// Explainer answers the ExplainPolicy RPC; see [selection.Explainer].
	Explainer = selection.Explainer
	// Explanation is an Explainer's answer.
	Explanation = selection.Explanation
	// PolicyParams are a rule's assignor parameters, defaults filled in.
	PolicyParams = selection.PolicyParams
	// ShadowPolicy is a rule's shadow assignor and its parameters.
	ShadowPolicy = selection.ShadowPolicy
	// SkippedRule is a rule that did not apply, and why.
	SkippedRule = selection.SkippedRule
)

// errNoExplainer: the server was built without WithExplainer.
var errNoExplainer = errors.New("this server has no policy explainer (assignd runs one with every policy, --policy or the embedded default)")
