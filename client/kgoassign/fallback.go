package kgoassign

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/client/internal/leadercall"
)

// local computes the assignment in-process exactly as assignd does with
// its default policy: the standard assignor of the group's protocol name
// with the engine's default options, the group's rebalance protocol, and
// assign/leader to decode the metadata and encode each member's assignment
// at its own subscription version. Same input, same bytes, unless the
// engine runs past the fallback bound (WithFallbackTimeout): then the
// valid plan it has by then.
func (b *Balancer) local(in *input) (syncAssignments, bool, error) {
	d, err := leader.Decode(in.members, in.topics, in.generation, b.protocol)
	if err != nil {
		return nil, false, fmt.Errorf("kgoassign: decoding the group: %w", err)
	}
	r, err := leadercall.RunFallback(b.assignor, d.Group, b.cfg.Fallback)
	if err != nil {
		return nil, false, fmt.Errorf("kgoassign: assigning in-process: %w", err)
	}
	enc := leader.Encode(r, d.Versions)
	out := make(syncAssignments, len(r.Members))
	for i := range r.Members {
		out[i] = kmsg.SyncGroupRequestGroupAssignment{MemberID: r.Members[i].ID, MemberAssignment: enc[i]}
	}
	return out, r.FollowupRequired, nil
}
