// Package rollouttest records a small, realistic fleet of consumer groups
// in an assignd server's history, for the tests of the rollout service
// (policy preview, simulation, migration report) and of assignctl.
//
// The fleet, each group two rebalances (the second with the owners the
// first assigned, as the members would report them):
//
//   - payments-ledger: cooperative-sticky, 6 partitions of "ledger"; two
//     members, then a third joins (the latest input is that join);
//   - billing-eu: range, two members over "invoices" and "ledger-eu", 3
//     partitions each (range gives the first member 4 of 6);
//   - search-eu: range, rack-aware: m1 on rack-b, m2 on rack-a, "docs"'s
//     partition 0 on rack-a and 1 on rack-b, so rack-aware range crosses
//     the plain ranges;
//   - etl-nightly: a custom protocol name, "etl-custom", served by the
//     current policy's rule etl with cooperative-sticky@1.
package rollouttest

import (
	"context"
	"fmt"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// CurrentPolicy is the policy the fleet was served under.
const CurrentPolicy = `version: 1
rules:
  - name: etl
    match:
      protocols: [etl-custom]
    assignor: cooperative-sticky@1
  - name: default
    assignor: standard
`

// CandidatePolicy caps moves for payments and puts billing on
// roundrobin; the rest is as in CurrentPolicy.
const CandidatePolicy = `version: 1
rules:
  - name: etl
    match:
      protocols: [etl-custom]
    assignor: cooperative-sticky@1
  - name: payments-capped
    match:
      group_prefixes: [payments-]
      protocols: [cooperative-sticky]
    assignor: cooperative-sticky@1
    params:
      max_moves_per_rebalance: 1
  - name: billing-roundrobin
    match:
      group_prefixes: [billing-]
      protocols: [range]
    assignor: roundrobin@1
  - name: default
    assignor: standard
`

// Groups are the fleet's group ids, sorted.
var Groups = []string{"billing-eu", "etl-nightly", "payments-ledger", "search-eu"}

type member struct {
	id, rack string
	topics   []string
}

type group struct {
	id, protocol string
	proto        assigndv1.RebalanceProtocol
	topics       []*assigndv1.Topic
	// first and second are the members of the two rebalances.
	first, second []member
}

func racks(rs ...string) []*assigndv1.PartitionRacks {
	out := make([]*assigndv1.PartitionRacks, len(rs))
	for i, r := range rs {
		out[i] = &assigndv1.PartitionRacks{Partition: int32(i), Racks: []string{r}}
	}
	return out
}

func fleet() []group {
	ledger := []string{"ledger"}
	billing := []string{"invoices", "ledger-eu"}
	docs := []string{"docs"}
	etl := []string{"events"}
	return []group{
		{id: "payments-ledger", protocol: "cooperative-sticky", proto: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
			topics: []*assigndv1.Topic{{Name: "ledger", PartitionCount: 6}},
			first:  []member{{"m1", "", ledger}, {"m2", "", ledger}},
			second: []member{{"m1", "", ledger}, {"m2", "", ledger}, {"m3", "", ledger}}},
		{id: "billing-eu", protocol: "range", proto: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
			topics: []*assigndv1.Topic{{Name: "invoices", PartitionCount: 3}, {Name: "ledger-eu", PartitionCount: 3}},
			first:  []member{{"m1", "", billing}, {"m2", "", billing}},
			second: []member{{"m1", "", billing}, {"m2", "", billing}}},
		{id: "search-eu", protocol: "range", proto: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
			topics: []*assigndv1.Topic{{Name: "docs", PartitionCount: 2, PartitionRacks: racks("rack-a", "rack-b")}},
			first:  []member{{"m1", "rack-b", docs}, {"m2", "rack-a", docs}},
			second: []member{{"m1", "rack-b", docs}, {"m2", "rack-a", docs}}},
		{id: "etl-nightly", protocol: "etl-custom", proto: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
			topics: []*assigndv1.Topic{{Name: "events", PartitionCount: 4}},
			first:  []member{{"m1", "", etl}, {"m2", "", etl}},
			second: []member{{"m1", "", etl}, {"m2", "", etl}}},
	}
}

func request(g group, gen int32, ms []member, owned map[string][]*assigndv1.TopicPartitions) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{GroupId: g.id, GenerationId: gen, ProtocolName: g.protocol, RebalanceProtocol: g.proto, LeaderId: ms[0].id, Topics: g.topics}
	for _, m := range ms {
		am := &assigndv1.Member{MemberId: m.id, Topics: m.topics, OwnedPartitions: owned[m.id]}
		if m.rack != "" {
			am.RackId = &m.rack
		}
		req.Members = append(req.Members, am)
	}
	return req
}

// Record sends the fleet's rebalances to c, each group's second with the
// owners of its first; cooperative follow-ups are not sent, so that each
// group's latest input is its second rebalance.
func Record(ctx context.Context, c assigndv1.AssignmentServiceClient) error {
	for _, g := range fleet() {
		resp, err := c.Assign(ctx, request(g, 1, g.first, nil))
		if err != nil {
			return fmt.Errorf("%s, generation 1: %w", g.id, err)
		}
		owned := make(map[string][]*assigndv1.TopicPartitions)
		for _, ma := range resp.GetAssignments() {
			owned[ma.GetMemberId()] = ma.GetPartitions()
		}
		if _, err := c.Assign(ctx, request(g, 2, g.second, owned)); err != nil {
			return fmt.Errorf("%s, generation 2: %w", g.id, err)
		}
	}
	return nil
}
