package server

import (
	"context"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// groupCall is what every Decision records of its call, whatever the
// group type plans.
type groupCall struct {
	at time.Time
	// req is the request, marshaled for its digest unless input already
	// holds it so.
	req       proto.Message
	input     []byte
	groupID   string
	groupType assigndv1.GroupType
	assignor  string
	engine    time.Duration
	caller    selection.Caller
	userAgent string
}

// groupDecision is the part of every Decision that is the call's: when,
// which group or label, who asked, what chose and ran the assignor, and
// the digest of the input.
func (r *callReport) groupDecision(c groupCall, callTime time.Duration) *assigndv1.Decision {
	rule, revision := splitPolicy(r.policy)
	d := &assigndv1.Decision{
		Time:           timestamppb.New(c.at),
		GroupId:        c.groupID,
		GroupType:      c.groupType,
		Assignor:       c.assignor,
		PolicyRule:     rule,
		PolicyRevision: revision,
		EngineTime:     durationpb.New(c.engine),
		CallTime:       durationpb.New(callTime),
		UserAgent:      c.userAgent,
		CallerBinding:  r.binding,
	}
	if c.input == nil && c.req != nil {
		c.input, _ = proto.MarshalOptions{Deterministic: true}.Marshal(c.req)
	}
	d.InputDigest = digest(c.input)
	if r.rolloutStep > 0 {
		d.RolloutStep = int32(r.rolloutStep)
		if !r.rolloutStarted.IsZero() {
			d.RolloutStarted = timestamppb.New(r.rolloutStarted)
		}
	}
	if c.caller != (selection.Caller{}) {
		d.Caller = &assigndv1.CallerIdentity{Subject: c.caller.Subject, CommonName: c.caller.CommonName}
	}
	return d
}

// userAgent is the call's user agent, clipped, or "". It reads the one
// key: metadata.FromIncomingContext would copy every header of the call.
func userAgent(ctx context.Context) string {
	if ua := metadata.ValueFromIncomingContext(ctx, "user-agent"); len(ua) > 0 {
		return rpcerr.Clip(ua[0])
	}
	return ""
}
