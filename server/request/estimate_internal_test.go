package request

import (
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

func TestSubscribedTopics(t *testing.T) {
	real := wire.AppendSubscription(nil, &wire.Subscription{Version: 3, Topics: []string{"a", "b", "c"}, Generation: 1})
	tests := []struct {
		name string
		md   []byte
		want int64
	}{
		{"subscription v3", real, 3},
		{"subscription v0", wire.AppendSubscription(nil, &wire.Subscription{Version: 0, Topics: []string{"orders"}}), 1},
		{"too short", []byte{0, 1, 0}, 0},
		{"negative count", []byte{0, 1, 0xff, 0xff, 0xff, 0xff, 0, 0}, 0},
		{"count beyond the bytes", []byte{0, 1, 0x7f, 0xff, 0xff, 0xff, 0, 1, 'a', 0, 1}, 2},
	}
	for _, tc := range tests {
		if got := subscribedTopics(tc.md); got != tc.want {
			t.Errorf("%s: %d topics, want %d", tc.name, got, tc.want)
		}
	}
}
