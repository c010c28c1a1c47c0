package saramaassign

import (
	"context"
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client/internal/leadercall"
)

// outcome is a plan in the engine's terms, from assignd or the fallback.
type outcome struct {
	// members holds every member's partitions, sorted by member id.
	members  []assign.MemberAssignment
	warnings []string
}

// remote asks assignd, bounded by the strategy's and the client's timeout.
func (s *Strategy) remote(in *input) (outcome, error) {
	// sarama gives a strategy no context: this bound (always positive, see
	// WithTimeout) is what keeps a slow or hung assignd from stalling the
	// group, even when the client's own timeout is turned off.
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
	defer cancel()
	resp, err := s.client.Assign(ctx, explicitRequest(s.cfg.group, s.name, in.group))
	if err != nil {
		return outcome{}, fmt.Errorf("saramaassign: calling assignd: %w", err)
	}
	members, err := fromResponse(resp, in.group)
	if err != nil {
		return outcome{}, fmt.Errorf("saramaassign: %w", err)
	}
	return outcome{members: members, warnings: resp.GetWarnings()}, nil
}

// local computes the plan in-process exactly as assignd does with its
// default policy: the standard assignor of the protocol name with the
// engine's default options, on the same group the request describes;
// past the fallback bound (WithFallbackTimeout), the valid plan the engine
// has by then.
func (s *Strategy) local(in *input) (outcome, error) {
	r, err := leadercall.RunFallback(s.assignor, in.group, s.cfg.Fallback)
	if err != nil {
		return outcome{}, fmt.Errorf("saramaassign: assigning in-process: %w", err)
	}
	return outcome{members: r.Members, warnings: r.Warnings}, nil
}
