package server_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// TestAssignErrors covers every way a request can be rejected. Each case
// checks the code, the BadRequest field naming the member and field at
// fault, the ErrorInfo reason and domain, and then that the next, valid
// request is served normally.
func TestAssignErrors(t *testing.T) {
	ts := startServer(t, nil, server.WithMaxPartitions(1000))
	sub := func(s wire.Subscription) []byte { return wire.AppendSubscription(nil, &s) }
	good := sub(wire.Subscription{Version: 3, Topics: []string{"a"}, Generation: -1})
	topicA := []*assigndv1.Topic{{Name: "a", PartitionCount: 4}}
	gen := int32(3)
	rack := "r1"
	member := func(id string) *assigndv1.Member { return &assigndv1.Member{MemberId: id, Topics: []string{"a"}} }
	coop := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE

	const (
		invalidGroup   = assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP
		malformed      = assigndv1.ErrorReason_ERROR_REASON_MALFORMED_METADATA
		conflicting    = assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS
		unknownName    = assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME
		unsupported    = assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL
		limitExceeded  = assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED
		invalidArg     = codes.InvalidArgument
		resourceExhstd = codes.ResourceExhausted
	)
	tests := []struct {
		name   string
		req    *assigndv1.AssignRequest
		code   codes.Code
		field  string // "" when no BadRequest is expected
		member string
		reason assigndv1.ErrorReason
	}{
		{"empty protocol name", &assigndv1.AssignRequest{Topics: topicA},
			invalidArg, "protocol_name", "", unknownName},
		{"unknown protocol name", &assigndv1.AssignRequest{ProtocolName: "uniform", Topics: topicA},
			invalidArg, "protocol_name", "", unknownName},
		{"range is eager-only", &assigndv1.AssignRequest{ProtocolName: "range", RebalanceProtocol: coop, Members: []*assigndv1.Member{member("m1")}, Topics: topicA},
			invalidArg, "rebalance_protocol", "", unsupported},
		{"roundrobin is eager-only", &assigndv1.AssignRequest{ProtocolName: "roundrobin", RebalanceProtocol: coop, Topics: topicA},
			invalidArg, "rebalance_protocol", "", unsupported},
		{"sticky is eager-only", &assigndv1.AssignRequest{ProtocolName: "sticky", RebalanceProtocol: coop, Topics: topicA},
			invalidArg, "rebalance_protocol", "", unsupported},
		{"unknown rebalance protocol", &assigndv1.AssignRequest{ProtocolName: "range", RebalanceProtocol: 9, Topics: topicA},
			invalidArg, "rebalance_protocol", "", unsupported},
		{"unknown view", &assigndv1.AssignRequest{ProtocolName: "range", View: 5, Topics: topicA},
			invalidArg, "view", "", invalidGroup},
		{"empty member id", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{member("m1"), member("")}},
			invalidArg, "members[1].member_id", "", invalidGroup},
		{"duplicate member id", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{member("m2"), member("m1"), member("m2")}},
			invalidArg, "members[2].member_id", "m2", invalidGroup},
		{"metadata and topics", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good}, {MemberId: "m2", Metadata: good, Topics: []string{"a"}}}},
			invalidArg, "members[1].topics", "m2", conflicting},
		{"metadata and owned partitions", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good, OwnedPartitions: []*assigndv1.TopicPartitions{{Topic: "a", Partitions: []int32{0}}}}}},
			invalidArg, "members[0].owned_partitions", "m1", conflicting},
		{"metadata and user data", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good, UserData: []byte{1}}}},
			invalidArg, "members[0].user_data", "m1", conflicting},
		{"metadata and generation", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good, Generation: &gen}}},
			invalidArg, "members[0].generation", "m1", conflicting},
		{"metadata and rack", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good, RackId: &rack}}},
			invalidArg, "members[0].rack_id", "m1", conflicting},
		{"truncated metadata", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good}, {MemberId: "m2", Metadata: good[:len(good)-3]}}},
			invalidArg, "members[1].metadata", "m2", malformed},
		// Only the raw-metadata members are decoded together; the error
		// still names the member's index in the request.
		{"truncated metadata after an explicit member", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{member("x"), {MemberId: "m2", Metadata: good[:len(good)-3]}}},
			invalidArg, "members[1].metadata", "m2", malformed},
		{"truncated metadata among mixed members", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good}, member("x"), member("y"), {MemberId: "m4", Metadata: []byte{0, 1}}}},
			invalidArg, "members[3].metadata", "m4", malformed},
		{"one byte of metadata", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: []byte{0}}}},
			invalidArg, "members[0].metadata", "m1", malformed},
		{"negative subscription version", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: append([]byte{0xff, 0xff}, good[2:]...)}}},
			invalidArg, "members[0].metadata", "m1", malformed},
		{"topic count larger than the bytes", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{{MemberId: "m1", Metadata: []byte{0, 0, 0x7f, 0xff, 0xff, 0xff}}}},
			invalidArg, "members[0].metadata", "m1", malformed},
		{"negative partition count", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 2}, {Name: "b", PartitionCount: -1}}},
			invalidArg, "topics[1].partition_count", "", invalidGroup},
		{"topic listed twice in metadata", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 2}, {Name: "a", PartitionCount: 2}}},
			invalidArg, "topics[1].name", "", invalidGroup},
		{"empty topic name in metadata", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics: []*assigndv1.Topic{{Name: "", PartitionCount: 2}}},
			invalidArg, "topics[0].name", "", invalidGroup},
		{"partition racks beyond the count", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 2, PartitionRacks: []*assigndv1.PartitionRacks{{Partition: 2, Racks: []string{"r1"}}}}}},
			invalidArg, "topics[0].partition_racks[0].partition", "", invalidGroup},
		{"partition racks listed twice", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 2, PartitionRacks: []*assigndv1.PartitionRacks{
				{Partition: 1, Racks: []string{"r1"}}, {Partition: 1, Racks: []string{"r2"}}}}}},
			invalidArg, "topics[0].partition_racks[1].partition", "", invalidGroup},
		// The engine sorts members; the error must still name the request index.
		{"empty subscribed topic, explicit", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{member("z"), {MemberId: "b", Topics: []string{"a", ""}}}},
			invalidArg, "members[1].topics[1]", "b", invalidGroup},
		{"empty subscribed topic, in metadata", &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
			Members: []*assigndv1.Member{member("z"), {MemberId: "b", Metadata: sub(wire.Subscription{Topics: []string{""}})}}},
			invalidArg, "members[1].metadata", "b", invalidGroup},
		{"more partitions than the server allows", &assigndv1.AssignRequest{ProtocolName: "range",
			Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 600}, {Name: "b", PartitionCount: 600}}},
			resourceExhstd, "", "", limitExceeded},
	}
	valid := &assigndv1.AssignRequest{ProtocolName: "range", Topics: topicA,
		Members: []*assigndv1.Member{{MemberId: "m1", Metadata: good}, member("m2")}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ts.client.Assign(callCtx(t), tt.req)
			code, fv, info := statusDetails(t, err)
			if code != tt.code {
				t.Fatalf("code = %s (%v), want %s", code, err, tt.code)
			}
			if tt.field != "" {
				if fv == nil {
					t.Fatalf("no BadRequest field violation in %v", err)
				}
				if fv.GetField() != tt.field || fv.GetDescription() == "" || fv.GetReason() != tt.reason.String() {
					t.Errorf("violation = %q %q (%s), want field %q reason %s", fv.GetField(), fv.GetDescription(), fv.GetReason(), tt.field, tt.reason)
				}
				if !strings.Contains(err.Error(), tt.field) {
					t.Errorf("message %q does not name the field %q", err.Error(), tt.field)
				}
			}
			if info == nil || info.GetDomain() != assigndv1.ErrorDomain || info.GetReason() != tt.reason.String() {
				t.Errorf("ErrorInfo = %v, want domain %s reason %s", info, assigndv1.ErrorDomain, tt.reason)
			}
			if tt.member != "" && info.GetMetadata()["member_id"] != tt.member {
				t.Errorf("ErrorInfo member_id = %q, want %q", info.GetMetadata()["member_id"], tt.member)
			}
			if _, err := ts.client.Assign(callCtx(t), valid); err != nil {
				t.Fatalf("the next valid request failed: %v", err)
			}
		})
	}
}

// TestAssignRequestTooLarge: the transport limit also answers
// RESOURCE_EXHAUSTED, and the server keeps serving.
func TestAssignRequestTooLarge(t *testing.T) {
	ts := startServer(t, nil, server.WithMaxRecvBytes(4096))
	big := &assigndv1.AssignRequest{ProtocolName: "range", Members: []*assigndv1.Member{{MemberId: "m1", UserData: make([]byte, 8192)}}}
	_, err := ts.client.Assign(callCtx(t), big)
	if code, _, _ := statusDetails(t, err); code != codes.ResourceExhausted {
		t.Fatalf("code = %s (%v), want RESOURCE_EXHAUSTED", code, err)
	}
	if _, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range"}); err != nil {
		t.Fatalf("the next request failed: %v", err)
	}
}
