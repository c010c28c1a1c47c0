package client_test

import (
	"strings"
	"testing"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/shimtest"
)

// The server's group history shows the leader's client software from the
// user agent.
func TestUserAgent(t *testing.T) {
	svc := &fakeService{}
	c, err := client.New(shimtest.ServeFake(t, svc))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Assign(testContext(t), &assigndv1.AssignRequest{ProtocolName: "range"}); err != nil {
		t.Fatal(err)
	}
	ua, _ := svc.userAgent.Load().(string)
	if !strings.HasPrefix(ua, "assignd-go/") || !strings.Contains(ua, "grpc-go/") {
		t.Errorf("user agent %q; want assignd-go/<version> then grpc-go's", ua)
	}
}
