package kgoassign_test

import (
	"bytes"
	"fmt"
	"log"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
)

// A franz-go consumer whose group assignments come from assignd: the only
// change from a native consumer is the balancer passed to kgo.Balancers.
// Every member of the group should use it (or a native balancer of the
// same protocol name); whichever member leads asks assignd.
func Example() {
	c, err := client.New("dns:///assignd.internal:7070", client.WithTimeout(2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	cl, err := kgo.NewClient(
		kgo.SeedBrokers("kafka-1.internal:9092"),
		kgo.ConsumerGroup("orders-processor"),
		kgo.ConsumeTopics("orders"),
		kgo.Balancers(kgoassign.CooperativeSticky(c)),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Close()
	// ... poll as usual.
}

// The shim joins the group with exactly the bytes franz-go's native
// balancer of the same name would send, so the coordinator and the other
// members cannot tell them apart.
func ExampleBalancer_JoinGroupMetadata() {
	shim := kgoassign.CooperativeSticky(nil)
	native := kgo.CooperativeStickyBalancer()

	topics := []string{"audit", "orders"}
	owned := map[string][]int32{"orders": {0, 1, 2}}
	fmt.Println(shim.ProtocolName(), shim.IsCooperative())
	fmt.Println(bytes.Equal(
		shim.JoinGroupMetadata(topics, owned, 7),
		native.JoinGroupMetadata(topics, owned, 7),
	))
	// Output:
	// cooperative-sticky true
	// true
}

// New selects the balancer by protocol name, e.g. from configuration.
func ExampleNew() {
	for _, name := range []string{"range", "roundrobin", "sticky", "cooperative-sticky", "uniform"} {
		b, err := kgoassign.New(nil, name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(b.ProtocolName(), "cooperative:", b.IsCooperative())
	}
	// Output:
	// range cooperative: false
	// roundrobin cooperative: false
	// sticky cooperative: false
	// cooperative-sticky cooperative: true
	// kgoassign: unknown protocol name "uniform": use "cooperative-sticky", "sticky", "range" or "roundrobin"
}
