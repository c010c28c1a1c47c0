package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
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

// envPrefix prefixes each connection flag's environment variable:
// --tls-server-name is ASSIGNCTL_TLS_SERVER_NAME.
const envPrefix = "ASSIGNCTL_"

// envName is the environment variable of a flag.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// register declares the connection flags on fs, with their defaults.
func (c *connFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:7070", "assignd gRPC `address`")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "deadline of the call")
	fs.BoolVar(&c.tls, "tls", false, "use TLS, verifying the server against the system roots or --tls-ca")
	fs.StringVar(&c.caFile, "tls-ca", "", "PEM CA bundle `file` to verify the server with (implies --tls)")
	fs.StringVar(&c.certFile, "tls-cert", "", "PEM client certificate `file` for mTLS (implies --tls; with --tls-key)")
	fs.StringVar(&c.keyFile, "tls-key", "", "PEM private key `file` of --tls-cert")
	fs.StringVar(&c.serverName, "tls-server-name", "", "`name` to verify in the server certificate (default: the host of --addr)")
	fs.IntVar(&c.maxRecv, "max-recv-bytes", 256<<20, "largest response accepted, in `bytes`")
	for _, name := range connFlagNames {
		f := fs.Lookup(name)
		f.Usage += " (env " + envName(name) + ")"
	}
}

// connFlagNames are the flags register declares, each with a variable.
var connFlagNames = []string{"addr", "timeout", "tls", "tls-ca", "tls-cert", "tls-key", "tls-server-name", "max-recv-bytes"}

// applyEnv sets every connection flag not given on the command line from
// its environment variable, when that is set.
func (c *connFlags) applyEnv(fs *pflag.FlagSet, getenv func(string) string) error {
	for _, name := range connFlagNames {
		f := fs.Lookup(name)
		if f == nil || f.Changed {
			continue
		}
		if v := getenv(envName(name)); v != "" {
			if err := f.Value.Set(v); err != nil {
				return fmt.Errorf("%s=%q: %w", envName(name), v, err)
			}
		}
	}
	return nil
}

// conn is a connection to assignd with its clients.
type conn struct {
	cc      *grpc.ClientConn
	assign  assigndv1.AssignmentServiceClient
	history assigndv1.GroupHistoryServiceClient
	health  healthpb.HealthClient
	replay  assigndv1.ReplayServiceClient
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
	return &conn{cc: cc, assign: assigndv1.NewAssignmentServiceClient(cc), history: assigndv1.NewGroupHistoryServiceClient(cc),
		health: healthpb.NewHealthClient(cc), replay: assigndv1.NewReplayServiceClient(cc)}, nil
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
