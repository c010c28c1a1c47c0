package request

import (
	"errors"
	"reflect"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

func TestProtocolRoundTrip(t *testing.T) {
	for _, p := range []assign.RebalanceProtocol{assign.ProtocolUnspecified, assign.Eager, assign.Cooperative} {
		got, err := Protocol(apiconv.ProtocolToAPI(p))
		if err != nil || got != p {
			t.Errorf("Protocol(ProtocolToAPI(%v)) = %v, %v", p, got, err)
		}
	}
	var fe *rpcerr.FieldError
	if _, err := Protocol(99); !errors.As(err, &fe) || fe.Field != "rebalance_protocol" {
		t.Errorf("Protocol(99) = %v, want a FieldError on rebalance_protocol", err)
	}
}

func TestTopicsRoundTrip(t *testing.T) {
	in := assign.Topic{Name: "orders", Partitions: 4, Racks: [][]string{{"az1"}, nil, nil, {"az2", "az3"}}}
	got, err := topics([]*assigndv1.Topic{apiconv.TopicToAPI(in)})
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], in) {
		t.Errorf("topics(TopicToAPI(%v)) = %v, %v", in, got, err)
	}
}
