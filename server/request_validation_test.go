package server_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// cooperativeBehindEveryName runs cooperative-sticky whatever the name, as a
// careless policy could.
type cooperativeBehindEveryName struct{}

func (cooperativeBehindEveryName) Select(context.Context, selection.Query) (selection.Selection, error) {
	return selection.Selection{Assignor: assign.CooperativeSticky(), Policy: "test/1"}, nil
}

// Range clients only run EAGER: a COOPERATIVE request under that name is
// refused whatever assignor the policy runs behind it.
func TestEagerOnlyNamesRefuseCooperativeWhateverThePolicy(t *testing.T) {
	ts := startServer(t, cooperativeBehindEveryName{})
	for _, name := range []string{"range", "roundrobin", "sticky"} {
		_, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{
			GroupId: "g", ProtocolName: name, RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		})
		code, fv, info := statusDetails(t, err)
		if code != codes.InvalidArgument || fv.GetField() != "rebalance_protocol" ||
			info.GetReason() != assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL.String() {
			t.Errorf("%s under COOPERATIVE: got %v", name, err)
		}
	}
}

// Names that cannot go back to a client (not UTF-8, longer than the
// protocol allows) are refused up front, never an INTERNAL error.
func TestUnencodableNamesAreInvalidArgument(t *testing.T) {
	ts := startServer(t, nil)
	metadata := func(topic string) []byte {
		return wire.AppendSubscription(nil, &wire.Subscription{Version: 1, Topics: []string{topic}})
	}
	cases := []struct {
		name  string
		req   *assigndv1.AssignRequest
		field string
	}{
		{"topic in metadata not UTF-8", &assigndv1.AssignRequest{ProtocolName: "range",
			Members: []*assigndv1.Member{{MemberId: "m", Metadata: metadata("\xff")}}}, "members[0].metadata"},
		{"topic name too long", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics:  []*assigndv1.Topic{{Name: strings.Repeat("t", 40000), PartitionCount: 1}},
			Members: []*assigndv1.Member{{MemberId: "m", Topics: []string{"t"}}}}, "topics[0].name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ts.client.Assign(callCtx(t), tc.req)
			code, fv, _ := statusDetails(t, err)
			if code != codes.InvalidArgument || fv.GetField() != tc.field {
				t.Fatalf("got %v (field %q), want INVALID_ARGUMENT on %s", err, fv.GetField(), tc.field)
			}
		})
	}
	if _, err := ts.client.ListAssignors(callCtx(t), &assigndv1.ListAssignorsRequest{}); err != nil {
		t.Fatalf("the server stopped serving: %v", err)
	}
}
