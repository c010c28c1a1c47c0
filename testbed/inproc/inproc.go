// Package inproc serves an assignd [server.Server] on an in-memory
// listener for tests that call it through gRPC, as a client would, with
// no port to find and nothing left running when the test ends.
package inproc

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/assignd/assignd/server"
)

// Dial serves srv on an in-memory listener until the test ends and
// returns a plaintext connection to it. When the test ends the
// connection closes, srv shuts down gracefully (5 s at the most) and Dial
// waits for its Serve to return, so that no test leaks a server.
func Dial(t testing.TB, srv *server.Server) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	})
	return conn
}
