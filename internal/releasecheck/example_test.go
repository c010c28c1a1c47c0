package releasecheck_test

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/internal/releasecheck"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// A member joins: generation 7 takes orders[3] from its owner and
// withholds it, generation 8 hands it out 6 seconds later. The chain
// completed within its bound, but the partition waited longer than 5s.
func ExampleEvaluate() {
	start := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	round := func(gen int32, after time.Duration, withheld ...int32) *assigndv1.Decision {
		d := &assigndv1.Decision{Time: timestamppb.New(start.Add(after)), GenerationId: gen, MemberCount: 3,
			ProtocolName: "cooperative-sticky", RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE}
		if len(withheld) > 0 {
			d.FollowupRequired, d.Withheld = true, int32(len(withheld))
			d.WithheldPartitions = []*assigndv1.TopicPartitions{{Topic: "orders", Partitions: withheld}}
		}
		return d
	}
	r := releasecheck.Evaluate(releasecheck.DefaultConfig(), releasecheck.Observation{
		Decisions: []*assigndv1.Decision{round(7, time.Second, 3), round(8, 7*time.Second)},
		Start:     start, Now: start.Add(10 * time.Second), Ended: true,
	})
	fmt.Println("passed:", r.Passed(), "chains:", r.FollowupChains, "longest unowned:", r.UnownedPartition, r.LongestUnowned)
	for _, f := range r.Failures {
		fmt.Printf("%s: %s\n", f.Check, f.Reason)
	}
	// Output:
	// passed: false chains: 1 longest unowned: orders[3] 6s
	// unowned: orders[3] was unowned for 6s, from generation 7 that revoked it to generation 8 that handed it out (bound 5s)
}
