package request

import (
	"errors"
	"testing"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// TestEngineErrorPaths: engine errors name members by id and fields in
// the engine's terms; the service must name request paths.
func TestEngineErrorPaths(t *testing.T) {
	req := &assigndv1.AssignRequest{Members: []*assigndv1.Member{
		{MemberId: "z"}, {MemberId: "a", Metadata: []byte{0}}, {MemberId: "z"}, {MemberId: "c"},
	}}
	in := &Input{req: req, raw: []bool{false, true, false, false}}
	tests := []struct {
		in   *assign.InputError
		want string
	}{
		{&assign.InputError{Field: "topics[2].partition_count"}, "topics[2].partition_count"},
		{&assign.InputError{Field: "members[1].member_id"}, "members[1].member_id"},
		{&assign.InputError{Member: "z", Field: "members.member_id"}, "members[2].member_id"},
		{&assign.InputError{Member: "c", Field: "members[0].topics[3]"}, "members[3].topics[3]"},
		{&assign.InputError{Member: "a", Field: "members[0].topics[3]"}, "members[1].metadata"},
		{&assign.InputError{Member: "a", Field: "owned_partitions"}, "members[1].metadata"},
		{&assign.InputError{Member: "c", Field: "owned_partitions[0]"}, "members[3].owned_partitions[0]"},
		{&assign.InputError{Member: "gone", Field: "owned_partitions"}, "owned_partitions"},
	}
	for _, tt := range tests {
		tt.in.Err, tt.in.Reason = assign.ErrInvalidGroup, "bad"
		var fe *rpcerr.FieldError
		if err := in.EngineError(tt.in); !errors.As(err, &fe) || fe.Field != tt.want || fe.Member != tt.in.Member {
			t.Errorf("EngineError(%+v) = %v, want field %s", tt.in, err, tt.want)
		}
	}
	plain := errors.New("not an input error")
	if err := in.EngineError(plain); err != plain {
		t.Errorf("EngineError passed %v through as %v", plain, err)
	}
}
