package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
)

// Serve assignd on a loopback port and ask it for an assignment, as a
// group leader would.
func Example() {
	srv, err := server.New(selection.Default(), slog.New(slog.DiscardHandler))
	if err != nil {
		panic(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Shutdown(context.Background())

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	resp, err := assigndv1.NewAssignmentServiceClient(conn).Assign(context.Background(), &assigndv1.AssignRequest{
		GroupId:      "orders",
		ProtocolName: "range",
		Topics:       []*assigndv1.Topic{{Name: "orders", PartitionCount: 4}},
		Members: []*assigndv1.Member{
			{MemberId: "consumer-1", Topics: []string{"orders"}},
			{MemberId: "consumer-2", Topics: []string{"orders"}},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.GetAssignor(), resp.GetRebalanceProtocol(), strings.HasPrefix(resp.GetPolicy(), "default/"))
	for _, a := range resp.GetAssignments() {
		fmt.Println(a.GetMemberId(), a.GetPartitions()[0].GetTopic(), a.GetPartitions()[0].GetPartitions())
	}
	// Output:
	// range REBALANCE_PROTOCOL_EAGER true
	// consumer-1 orders [0 1]
	// consumer-2 orders [2 3]
}
