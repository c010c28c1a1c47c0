package saramaassign

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/server"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

// realAssignd runs assignd with the default policy on a fresh 127.0.0.1
// port and returns a client for it; both end with the test.
func realAssignd(t *testing.T) *client.Client {
	t.Helper()
	srv, err := server.New(server.DefaultSelector(), quietLog)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	c, err := client.New(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
