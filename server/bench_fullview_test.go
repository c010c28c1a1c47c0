package server_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
)

// millionGroups are the engine issue's A, B and B2 as a Java or Python
// leader sends them: 500 topics × 2,000 partitions, 2,000 members in the
// explicit form; B and B2 own what A gave them, with the last member gone
// (B) or one more member (B2).
func millionGroups(b *testing.B) (a, leave, join *assign.Group) {
	b.Helper()
	a = millionFirst()
	topics := a.Members[0].Topics
	res, err := assign.Run(assign.CooperativeSticky(), a)
	if err != nil {
		b.Fatal(err)
	}
	owned := &assign.Group{Generation: 2, Protocol: assign.Cooperative, Topics: a.Topics}
	for _, m := range res.Members {
		owned.Members = append(owned.Members, assign.Member{ID: m.ID, Topics: topics, Owned: m.Assigned, Generation: 1})
	}
	leave = &assign.Group{Generation: 2, Protocol: assign.Cooperative, Topics: a.Topics, Members: owned.Members[:len(owned.Members)-1]}
	join = &assign.Group{Generation: 2, Protocol: assign.Cooperative, Topics: a.Topics,
		Members: append(owned.Members[:len(owned.Members):len(owned.Members)], assign.Member{ID: "consumer-2000", Topics: topics, Generation: assign.NoGeneration})}
	return a, leave, join
}

// BenchmarkAssignMillionFullView is A, B and B2 of [millionGroups] in the
// explicit form with ASSIGNMENT_VIEW_FULL, end to end through the service
// (bufconn). The spaced cases leave 3.5 s between calls, off the clock,
// as a group that rebalances now and then does: the server has returned
// its memory to the OS by the next call. The -history cases are the
// back-to-back ones on a server that records the group history, as
// cmd/assignd does by default: the record of a call is built after its
// response, and competes with the next call for the cores.
func BenchmarkAssignMillionFullView(b *testing.B) {
	client, _ := benchServer(b)
	h, err := history.New()
	if err != nil {
		b.Fatal(err)
	}
	recording, _ := benchServer(b, server.WithHistory(h))
	a, leave, join := millionGroups(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		g    *assign.Group
	}{{"A", a}, {"B", leave}, {"B2", join}} {
		req, _ := requestFor(b, c.g, "cooperative-sticky")
		req.View = assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL
		b.Logf("%s: request %.1f MB", c.name, float64(proto.Size(req))/1e6)
		for _, run := range []struct {
			suffix string
			gap    time.Duration
			client assigndv1.AssignmentServiceClient
		}{{"", 0, client}, {"-spaced", 3500 * time.Millisecond, client}, {"-history", 0, recording}} {
			b.Run(c.name+run.suffix, func(b *testing.B) {
				for b.Loop() {
					if run.gap > 0 {
						b.StopTimer()
						time.Sleep(run.gap)
						b.StartTimer()
					}
					if _, err := run.client.Assign(ctx, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
