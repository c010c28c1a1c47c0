package client_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/shimtest"
)

func TestMaxResponseBytes(t *testing.T) {
	// An 8 MiB answer: twice gRPC's own default limit.
	big := shimtest.ServeFake(t, &fakeService{name: strings.Repeat("x", 8<<20)})
	for _, tc := range []struct {
		name     string
		opts     []client.Option
		wantCode codes.Code
	}{
		{"the default takes it", nil, codes.OK},
		{"a larger limit takes it", []client.Option{client.WithMaxResponseBytes(9 << 20)}, codes.OK},
		{"gRPC's default refuses it", []client.Option{client.WithMaxResponseBytes(4 << 20)}, codes.ResourceExhausted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := shimtest.NewClient(t, big, tc.opts...)
			resp, err := c.Assign(testContext(t), &assigndv1.AssignRequest{ProtocolName: "range"})
			if got := status.Code(err); got != tc.wantCode {
				t.Fatalf("code %v (%v), want %v", got, err, tc.wantCode)
			}
			if tooLarge := errors.Is(err, client.ErrResponseTooLarge); tooLarge != (tc.wantCode == codes.ResourceExhausted) {
				t.Fatalf("error %v: wraps ErrResponseTooLarge: %v", err, tooLarge)
			}
			if err == nil && len(resp.GetAssignor()) != 8<<20 {
				t.Fatalf("the response was cut to %d bytes", len(resp.GetAssignor()))
			}
		})
	}
}

// A request over the server's limit fails with the same gRPC message as a
// response over the client's; the client tells them apart.
func TestRequestOverTheServersLimitIsNotTheResponse(t *testing.T) {
	const limit = 4 << 10
	addr := shimtest.ServeAssignd(t, server.WithMaxRecvBytes(limit))
	c := shimtest.NewClient(t, addr, client.WithMaxResponseBytes(limit))
	_, err := c.Assign(testContext(t), &assigndv1.AssignRequest{ProtocolName: "range", GroupId: strings.Repeat("g", 2*limit)})
	if status.Code(err) != codes.ResourceExhausted || errors.Is(err, client.ErrResponseTooLarge) {
		t.Fatalf("error %v, want the server's RESOURCE_EXHAUSTED, not ErrResponseTooLarge", err)
	}
}

func TestMaxResponseBytesMustBePositive(t *testing.T) {
	if c, err := client.New("127.0.0.1:1", client.WithMaxResponseBytes(0)); err == nil {
		c.Close()
		t.Fatal("a zero response limit was accepted")
	}
	c := shimtest.NewClient(t, "127.0.0.1:1")
	if got := c.MaxResponseBytes(); got != client.DefaultMaxResponseBytes {
		t.Fatalf("MaxResponseBytes() = %d, want the default %d", got, client.DefaultMaxResponseBytes)
	}
}

// DefaultMaxResponseBytes fits the largest response an assignd with its
// default limits can send: at most about 8 bytes per partition, plus what
// echoes the request, itself at most the server's request limit.
func TestDefaultMaxResponseBytesFitsTheServersLimits(t *testing.T) {
	if worst := 8*server.DefaultMaxPartitions + server.DefaultMaxRecvBytes; worst > client.DefaultMaxResponseBytes {
		t.Fatalf("the server's defaults allow responses of about %d bytes, over the client's default limit %d", worst, client.DefaultMaxResponseBytes)
	}
}
