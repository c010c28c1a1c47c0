package faults

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// storm makes n leaders of distinct groups (prefix-0, prefix-1, ...) call
// Assign, spread evenly over `over`, each through one of clients in
// turn, and waits for every call to end (each is bounded by its client's
// timeout). It returns the calls no replica answered in a form that fits
// the group: a real leader would have fallen back for each.
func storm(ctx context.Context, clients []*client.Client, prefix string, n int, over time.Duration) []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	every := over / time.Duration(max(n, 1))
	tick := time.NewTicker(max(every, time.Microsecond))
	defer tick.Stop()
	for i := range n {
		if i > 0 {
			select {
			case <-ctx.Done():
				return append(errs, ctx.Err())
			case <-tick.C:
			}
		}
		req := stormRequest(fmt.Sprintf("%s-%d", prefix, i), 3+i%5, int32(12+6*(i%4)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := clients[i%len(clients)].Assign(ctx, req)
			if err == nil && len(resp.GetAssignments()) != len(req.GetMembers()) {
				err = fmt.Errorf("group %s: %d assignments for %d members", req.GetGroupId(), len(resp.GetAssignments()), len(req.GetMembers()))
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}

// stormRequest is a new cooperative-sticky group: members subscribing to
// one topic of the given partitions, none owning anything yet, each
// member's metadata a v3 subscription as the leader forwards it.
func stormRequest(group string, members int, partitions int32) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{
		GroupId: group, GenerationId: 1, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		Topics:            []*assigndv1.Topic{{Name: "events", PartitionCount: partitions}},
	}
	for m := range members {
		meta := wire.AppendSubscription(nil, &wire.Subscription{
			Version: 3, Topics: []string{"events"}, Generation: -1,
			UserData: wire.AppendCooperativeUserData(nil, -1),
		})
		req.Members = append(req.Members, &assigndv1.Member{MemberId: fmt.Sprintf("%s-c%d", group, m), Metadata: meta})
	}
	return req
}
