package saramaassign_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"time"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/saramaassign"
)

// A sarama consumer group whose plans come from assignd: the only change
// from a native consumer is the strategy in GroupStrategies. Every member
// of the group should use it (or sarama's own strategy of the same name);
// whichever member leads asks assignd.
func Example() {
	c, err := client.New("dns:///assignd.internal:7070", client.WithTimeout(2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	cfg := sarama.NewConfig()
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
		saramaassign.Sticky(c, saramaassign.WithGroupID("orders-processor")),
	}
	group, err := sarama.NewConsumerGroup([]string{"kafka-1.internal:9092"}, "orders-processor", cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer group.Close()
	var handler sarama.ConsumerGroupHandler // your handler
	for ctx := context.Background(); ctx.Err() == nil; {
		if err := group.Consume(ctx, []string{"orders"}, handler); err != nil {
			log.Print(err)
		}
	}
}

// New selects the strategy by protocol name, e.g. from configuration.
// The adapter runs eager groups only.
func ExampleNew() {
	for _, name := range []string{"range", "roundrobin", "sticky", "cooperative-sticky"} {
		s, err := saramaassign.New(nil, name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s.Name(), s.SupportedProtocols())
	}
	// Output:
	// range [eager]
	// roundrobin [eager]
	// sticky [eager]
	// saramaassign: unsupported protocol name "cooperative-sticky": the adapter runs eager groups only: use "range", "roundrobin" or "sticky"
}

// The sticky strategy writes the same user data as sarama's own, so that
// members of either kind carry their previous assignment to the next
// leader of either kind.
func ExampleStrategy_AssignmentData() {
	assigned := map[string][]int32{"orders": {0, 3, 4}}
	mine, _ := saramaassign.Sticky(nil).AssignmentData("member-1", assigned, 12)
	theirs, _ := sarama.NewBalanceStrategySticky().AssignmentData("member-1", assigned, 12)
	fmt.Println(bytes.Equal(mine, theirs))
	// Output:
	// true
}

// With no client, the strategy plans in-process with assignd's engine and
// default policy: the plan assignd itself would return.
func ExampleStrategy_Plan() {
	s := saramaassign.Range(nil)
	plan, err := s.Plan(map[string]sarama.ConsumerGroupMemberMetadata{
		"member-a": {Topics: []string{"orders"}},
		"member-b": {Topics: []string{"orders"}},
	}, map[string][]int32{"orders": {0, 1, 2, 3, 4}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plan["member-a"], plan["member-b"], s.Stats())
	// Output:
	// map[orders:[0 1 2]] map[orders:[3 4]] {0 1 0}
}
