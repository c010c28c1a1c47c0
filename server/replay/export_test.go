package replay

import (
	"context"
	"fmt"

	"github.com/assignd/assignd/assign"
)

// Replan runs a with opts on the group's latest kept input, decoded as
// every replay decodes it, under proto when the input leaves the
// rebalance protocol open: the first round of what the replays compute.
func (r *Service) Replan(ctx context.Context, group string, a assign.Assignor, proto assign.RebalanceProtocol, opts ...assign.Option) (*assign.Result, error) {
	rp, err := r.latest(group)
	if err != nil {
		return nil, fmt.Errorf("group %q: %w", group, err)
	}
	g := withOwners(rp.g, nil, a)
	if g.Protocol == assign.ProtocolUnspecified {
		g.Protocol = proto
	}
	return r.engine(ctx, rp, a, g, opts)
}
