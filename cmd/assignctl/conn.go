package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// connFlags are the flags that say how to reach assignd.
type connFlags struct {
	addr       string
	timeout    time.Duration
	tls        bool
	caFile     string
	certFile   string
	keyFile    string
	serverName string
	maxRecv    int
}

// newConnFlags returns the connection flags' defaults.
func newConnFlags() *connFlags {
	c := &connFlags{addr: os.Getenv("ASSIGNCTL_ADDR"), timeout: 30 * time.Second, maxRecv: 256 << 20}
	if c.addr == "" {
		c.addr = "127.0.0.1:7070"
	}
	return c
}

// register declares the flags on fs with c's current values as defaults,
// so that registering them again for a subcommand keeps what the flags
// before the subcommand set.
func (c *connFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", c.addr, "assignd gRPC `address` (env ASSIGNCTL_ADDR)")
	fs.DurationVar(&c.timeout, "timeout", c.timeout, "deadline of the call")
	fs.BoolVar(&c.tls, "tls", c.tls, "use TLS, verifying the server against the system roots or --tls-ca")
	fs.StringVar(&c.caFile, "tls-ca", c.caFile, "PEM CA bundle `file` to verify the server with (implies --tls)")
	fs.StringVar(&c.certFile, "tls-cert", c.certFile, "PEM client certificate `file` for mTLS (implies --tls; with --tls-key)")
	fs.StringVar(&c.keyFile, "tls-key", c.keyFile, "PEM private key `file` of --tls-cert")
	fs.StringVar(&c.serverName, "tls-server-name", c.serverName, "`name` to verify in the server certificate (default: the host of --addr)")
	fs.IntVar(&c.maxRecv, "max-recv-bytes", c.maxRecv, "largest response accepted, in `bytes`")
}

// conn is a connection to assignd with its clients.
type conn struct {
	cc     *grpc.ClientConn
	assign assigndv1.AssignmentServiceClient
	health healthpb.HealthClient
}

func (c *conn) close() { _ = c.cc.Close() }

func (c *connFlags) dial() (*conn, error) {
	creds, err := c.credentials()
	if err != nil {
		return nil, err
	}
	cc, err := grpc.NewClient(c.addr, grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(c.maxRecv)))
	if err != nil {
		return nil, fmt.Errorf("--addr %s: %w", c.addr, err)
	}
	return &conn{cc: cc, assign: assigndv1.NewAssignmentServiceClient(cc), health: healthpb.NewHealthClient(cc)}, nil
}

func (c *connFlags) credentials() (credentials.TransportCredentials, error) {
	if !c.tls && c.caFile == "" && c.certFile == "" {
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{ServerName: c.serverName, MinVersion: tls.VersionTLS12}
	if c.caFile != "" {
		pem, err := os.ReadFile(c.caFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificates", c.caFile)
		}
	}
	if (c.certFile == "") != (c.keyFile == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	if c.certFile != "" {
		cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg), nil
}
