package policy_test

import (
	"context"
	"sync"
	"testing"

	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
)

// A shadow run is reported to the recorder, and becomes a history record
// marked shadow with what the shadow would have decided.
func TestShadowRecorder(t *testing.T) {
	var mu sync.Mutex
	var runs []policy.ShadowRun
	env := newShadowEnv(t, policy.WithShadowRecorder(func(_ context.Context, r policy.ShadowRun) {
		mu.Lock()
		runs = append(runs, r)
		mu.Unlock()
	}))
	_, primary := env.assign(t, scaleOut())
	if err := env.src.Close(); err != nil { // waits for the shadow
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(runs) != 1 {
		t.Fatalf("%d shadow runs recorded, want 1", len(runs))
	}
	r := runs[0]
	if r.Group != "orders" || r.ProtocolName != "cooperative-sticky" || r.Rule != "capped" || r.Revision != env.rev ||
		r.Shadow != "cooperative-sticky@1" || r.Primary != "cooperative-sticky@1" {
		t.Errorf("run %+v: want group orders, cooperative-sticky, rule capped at %s, both assignors cooperative-sticky@1", r, env.rev)
	}
	d := history.ShadowDecision(history.Shadow{Group: r.Group, ProtocolName: r.ProtocolName, Assignor: r.Shadow,
		Rule: r.Rule, Revision: r.Revision, Input: r.Input, Result: r.Result, Took: r.Took})
	if !d.GetShadow() || d.GetMoved() != 8 || primary.Stats.Moved != 1 || d.GetGenerationId() != 5 || d.GetMemberCount() != 3 || len(d.GetMembers()) != 3 {
		t.Errorf("shadow record %v: want shadow, 8 moved (the capped primary moved %d), generation 5, 3 members", d, primary.Stats.Moved)
	}
	if m := d.GetMembers()[0]; m.GetMemberId() != "a" || m.GetOwned() != 12 {
		t.Errorf("member %v: want a, owning 12", m)
	}
}
