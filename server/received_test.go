package server_test

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
)

// TestHistoryKeepsLargeInputAsReceived: a request large enough for its
// received bytes to be kept as its input (a member's user data of 2 MB)
// is recorded with the input and digest of marshaling it again, as a
// small one is.
func TestHistoryKeepsLargeInputAsReceived(t *testing.T) {
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, nil, server.WithHistory(h))
	hc := assigndv1.NewGroupHistoryServiceClient(ts.conn)
	for _, c := range []struct {
		group    string
		userData int
	}{{"large", 2 << 20}, {"small", 10}} {
		req := historyRequest(c.group, 3, "cooperative-sticky", 0, 1, 2)
		req.Members[0].UserData = bytes.Repeat([]byte{7}, c.userData)
		if _, err := ts.client.Assign(callCtx(t), req); err != nil {
			t.Fatal(err)
		}
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		d := waitGroup(t, hc, c.group, 1).GetDecisions()[0]
		sum := sha256.Sum256(want)
		if !bytes.Equal(d.GetInputDigest(), sum[:]) {
			t.Errorf("%s: digest %x; want %x, the SHA-256 of the request marshaled deterministically", c.group, d.GetInputDigest(), sum)
		}
		ins := h.Inputs(c.group)
		if len(ins) != 1 || !bytes.Equal(ins[0].Request, want) || !bytes.Equal(ins[0].Digest, sum[:]) {
			t.Fatalf("%s: %d inputs kept; want the request marshaled deterministically, with its digest", c.group, len(ins))
		}
	}
}
