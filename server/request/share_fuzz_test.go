package request_test

import (
	"testing"

	"github.com/assignd/assignd/assign/share"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// FuzzDecodeShare feeds arbitrary AssignShare requests through the
// decoder and the engine: each is rejected with a field or limit error,
// or planned so that share.Check holds. Never a panic.
func FuzzDecodeShare(f *testing.F) {
	sp := func(topic string, ps ...int32) []*assigndv1.SharePartitions {
		return []*assigndv1.SharePartitions{{Topic: topic, Partitions: ps}}
	}
	seeds := []*assigndv1.AssignShareRequest{
		{},
		{GroupType: assigndv1.GroupType_GROUP_TYPE_STREAMS},
		{Assignor: "sticky@1",
			Topics: []*assigndv1.ShareTopic{{Name: "t", PartitionCount: 3}, {Name: "u", PartitionCount: 8, UnassignablePartitions: []int32{7}}},
			Members: []*assigndv1.ShareMember{
				{MemberId: "a", Topics: []string{"t", "u"}, CurrentPartitions: sp("u", 0, 1, 2, 7)},
				{MemberId: "b", Topics: []string{"t"}, CurrentPartitions: sp("t", 0, 1, 2)},
				{MemberId: "c", Topics: []string{"t", "gone"}, CurrentPartitions: sp("t", 0, 9)},
				{MemberId: "d", Topics: []string{"t"}},
			}},
		{Topics: []*assigndv1.ShareTopic{{Name: "t", PartitionCount: 1}},
			Members: []*assigndv1.ShareMember{{MemberId: "a", Topics: []string{"t"}}, {MemberId: "a"}}},
	}
	fuzzRequests(f, seeds, func(t *testing.T, req *assigndv1.AssignShareRequest) {
		if request.SharePartitionCount(req) > 1<<12 || len(req.GetMembers()) > 64 {
			// Large groups are the limit tests'; here they would only
			// slow the search.
			return
		}
		_ = request.EstimateShareBytes(req, 0)
		in, err := request.DecodeShare(req)
		if !decoded(t, err) {
			return
		}
		res, err := share.Run(in.Assignor, in.Group)
		checkPlanned(t, err, in.EngineError, func() error { return share.Check(in.Group, res) })
	})
}
