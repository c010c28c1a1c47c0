package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health" // registers client-side health checking, used by the service config

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Client calls an assignd service. It is safe for concurrent use; create
// one per process and share it.
type Client struct {
	conn    *grpc.ClientConn
	api     assigndv1.AssignmentServiceClient
	timeout time.Duration
	target  string
	// maxResponse is the receive limit, see WithMaxResponseBytes.
	maxResponse int
}

// New creates a Client for target, a gRPC target string such as
// "dns:///assignd.internal:7070" (every replica the name resolves to,
// balanced round robin) or "127.0.0.1:7070". It does not wait for a
// connection: it starts connecting in the background, so that the first
// rebalance does not pay for the handshake, and calls made before the
// connection is up wait for it within their deadline.
func New(target string, opts ...Option) (*Client, error) {
	if target == "" {
		return nil, errors.New("client: empty target")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.timeout < 0 {
		return nil, fmt.Errorf("client: negative timeout %s", cfg.timeout)
	}
	if cfg.maxResponse <= 0 {
		return nil, fmt.Errorf("client: the response limit must be positive, not %d", cfg.maxResponse)
	}
	if cfg.reconnect <= 0 {
		return nil, fmt.Errorf("client: the reconnect backoff must be positive, not %s", cfg.reconnect)
	}
	serviceConfig := cfg.serviceConfig
	if serviceConfig == "" {
		serviceConfig = ServiceConfig(cfg.maxAttempts)
	}
	creds := insecure.NewCredentials()
	if cfg.tls != nil {
		creds = credentials.NewTLS(cfg.tls)
	}
	bo := backoff.DefaultConfig
	bo.BaseDelay = min(100*time.Millisecond, cfg.reconnect)
	bo.MaxDelay = cfg.reconnect
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultServiceConfig(serviceConfig),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bo, MinConnectTimeout: time.Second}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.maxResponse)),
		grpc.WithUserAgent(userAgent()),
	}
	conn, err := grpc.NewClient(target, append(dial, cfg.dialOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	conn.Connect()
	return &Client{
		conn: conn, api: assigndv1.NewAssignmentServiceClient(conn),
		timeout: cfg.timeout, target: target, maxResponse: cfg.maxResponse,
	}, nil
}

// Assign computes one rebalance of one group. The call ends at the earlier
// of ctx's deadline and the client's timeout. Errors are gRPC status errors
// (status.Code gives the code; INVALID_ARGUMENT carries
// google.rpc.BadRequest naming the field at fault); a response over the
// client's limit (WithMaxResponseBytes) is a RESOURCE_EXHAUSTED that also
// wraps [ErrResponseTooLarge].
func (c *Client) Assign(ctx context.Context, req *assigndv1.AssignRequest, opts ...grpc.CallOption) (*assigndv1.AssignResponse, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	resp, err := c.api.Assign(ctx, req, opts...)
	if err != nil {
		return nil, c.sizeError(err, req)
	}
	return resp, nil
}

// ListAssignors lists every assignor version the service can run.
func (c *Client) ListAssignors(ctx context.Context, opts ...grpc.CallOption) ([]*assigndv1.AssignorInfo, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	resp, err := c.api.ListAssignors(ctx, &assigndv1.ListAssignorsRequest{}, opts...)
	if err != nil {
		return nil, err
	}
	return resp.GetAssignors(), nil
}

// Timeout is the bound the client puts on each call (0: none).
func (c *Client) Timeout() time.Duration { return c.timeout }

// MaxResponseBytes is the largest response the client accepts.
func (c *Client) MaxResponseBytes() int { return c.maxResponse }

// Target is the target the client was created with.
func (c *Client) Target() string { return c.target }

// Conn is the underlying connection, for other services on the same
// server (e.g. grpc.health.v1) or for watching its connectivity state.
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// Close closes the connection; calls in flight fail with CANCELED.
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.timeout)
}
