package rollouttest

import (
	"context"
	"fmt"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// The large fleet: ten groups of every standard protocol and a custom one,
// 2 to 10 members, 6 to 43 partitions, racks a to c with replication
// factors 1 to 3, and in several groups a member joining or leaving in the
// latest rebalance. LargeCurrentPolicy served it; LargeCandidatePolicy caps
// moves for payments-*, moves billing-* to roundrobin@1 and orders-* to
// kip848-uniform@1, and turns rack awareness off for search-*.
// docs/rollout.md shows its preview and migration report.

// LargeCurrentPolicy served the large fleet.
const LargeCurrentPolicy = `version: 1
rules:
  - name: etl
    match: {protocols: [etl-custom]}
    assignor: cooperative-sticky@1
  - name: default
    assignor: standard
`

// LargeCandidatePolicy is the large fleet's candidate.
const LargeCandidatePolicy = `version: 1
rules:
  - name: etl
    match: {protocols: [etl-custom]}
    assignor: cooperative-sticky@1
  - name: payments-capped
    match: {group_prefixes: [payments-], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 2}
  - name: billing-roundrobin
    match: {group_prefixes: [billing-], protocols: [range]}
    assignor: roundrobin@1
  - name: orders-uniform
    match: {group_prefixes: [orders-], protocols: [cooperative-sticky]}
    assignor: kip848-uniform@1
  - name: search-no-racks
    match: {group_prefixes: [search-]}
    assignor: standard
    params: {rack_aware: false}
  - name: default
    assignor: standard
`

type dt struct {
	name string
	n    int32
	rf   int
}
type dg struct {
	id, proto string
	rp        assigndv1.RebalanceProtocol
	topics    []dt
	m1, m2    []string // member ids; rack = "rack-" + last char mod 3
	racks     bool
}

func largeRequest(g dg, gen int32, ms []string, owned map[string][]*assigndv1.TopicPartitions) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{GroupId: g.id, GenerationId: gen, ProtocolName: g.proto, RebalanceProtocol: g.rp, LeaderId: ms[0]}
	var names []string
	for _, t := range g.topics {
		names = append(names, t.name)
		at := &assigndv1.Topic{Name: t.name, PartitionCount: t.n}
		if g.racks {
			for p := range t.n {
				var rs []string
				for k := range t.rf {
					rs = append(rs, fmt.Sprintf("rack-%c", 'a'+(int(p)+k)%3))
				}
				at.PartitionRacks = append(at.PartitionRacks, &assigndv1.PartitionRacks{Partition: p, Racks: rs})
			}
		}
		req.Topics = append(req.Topics, at)
	}
	for i, m := range ms {
		am := &assigndv1.Member{MemberId: m, Topics: names, OwnedPartitions: owned[m]}
		if g.proto == "sticky" {
			var prev []wire.TopicPartitions
			for _, tp := range owned[m] {
				prev = append(prev, wire.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()})
			}
			am.UserData = wire.AppendStickyUserData(nil, prev, gen-1, true)
		}
		if g.racks {
			r := fmt.Sprintf("rack-%c", 'a'+i%3)
			am.RackId = &r
		}
		req.Members = append(req.Members, am)
	}
	return req
}

func memberIDs(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s-%02d", prefix, i))
	}
	return out
}

func largeFleet() []dg {
	coop, eager := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE, assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	return []dg{
		{"payments-ledger", "cooperative-sticky", coop, []dt{{"ledger", 24, 2}, {"ledger-dlq", 6, 2}}, memberIDs("pl", 6), memberIDs("pl", 5), true},
		{"payments-refunds", "cooperative-sticky", coop, []dt{{"refunds", 12, 2}}, memberIDs("pr", 4), memberIDs("pr", 4), true},
		{"billing-invoices", "range", eager, []dt{{"invoices", 10, 1}, {"invoice-events", 10, 1}}, memberIDs("bi", 3), memberIDs("bi", 3), false},
		{"billing-ledger-eu", "range", eager, []dt{{"ledger-eu", 8, 2}, {"ledger-eu-audit", 8, 2}}, memberIDs("bl", 4), memberIDs("bl", 4), true},
		{"search-indexer", "roundrobin", eager, []dt{{"docs", 7, 1}, {"docs-deletes", 7, 1}, {"docs-boost", 7, 1}}, memberIDs("si", 5), memberIDs("si", 5), true},
		{"search-suggest", "range", eager, []dt{{"queries", 6, 1}}, memberIDs("ss", 2), memberIDs("ss", 2), true},
		{"analytics-etl", "sticky", eager, []dt{{"clicks", 16, 2}, {"views", 16, 2}}, memberIDs("ae", 6), memberIDs("ae", 7), false},
		{"orders-consumer", "cooperative-sticky", coop, []dt{{"orders", 30, 3}, {"orders-retry", 10, 3}, {"orders-dlq", 3, 3}}, memberIDs("oc", 9), memberIDs("oc", 10), true},
		{"fraud-scoring", "cooperative-sticky", coop, []dt{{"payments-events", 32, 2}}, memberIDs("fs", 7), memberIDs("fs", 8), true},
		{"etl-nightly", "etl-custom", coop, []dt{{"events", 12, 1}}, memberIDs("en", 3), memberIDs("en", 3), false},
	}
}

// RecordLarge sends the large fleet's rebalances to c, generations 7 and
// 8, the second with the owners the first assigned (and, for the sticky
// group, the StickyAssignorUserData its members would send).
func RecordLarge(ctx context.Context, c assigndv1.AssignmentServiceClient) error {
	for _, g := range largeFleet() {
		resp, err := c.Assign(ctx, largeRequest(g, 7, g.m1, nil))
		if err != nil {
			return fmt.Errorf("%s, generation 7: %w", g.id, err)
		}
		owned := map[string][]*assigndv1.TopicPartitions{}
		for _, a := range resp.GetAssignments() {
			owned[a.GetMemberId()] = a.GetPartitions()
		}
		if _, err := c.Assign(ctx, largeRequest(g, 8, g.m2, owned)); err != nil {
			return fmt.Errorf("%s, generation 8: %w", g.id, err)
		}
	}
	return nil
}

// LargeGroups is the number of groups in the large fleet.
const LargeGroups = 10
