package main

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/loadsource"
)

// The load source's cluster takes the same TLS and SASL flags as the
// history's, under --load-*, from the command line or the environment.
func TestLoadConnFlags(t *testing.T) {
	tests := []configCase[kafkaConn]{
		{"defaults: plaintext, no SASL", nil, nil, func(k kafkaConn) bool {
			opts, err := k.opts()
			return err == nil && len(opts) == 0 && k.conn == kafkaconn.Config{}
		}, ""},
		{"TLS and SCRAM from the environment", []string{"--load-brokers", "k1:9093"}, map[string]string{"ASSIGND_LOAD_TLS": "true",
			"ASSIGND_LOAD_SASL_MECHANISM": "scram-sha-256", "ASSIGND_LOAD_SASL_USER": "assignd", "ASSIGND_LOAD_SASL_PASSWORD": "secret"},
			func(k kafkaConn) bool {
				tc, err := k.conn.TLSConfig()
				m, _ := k.conn.Mechanism()
				opts, oerr := k.opts()
				return err == nil && tc != nil && tc.MinVersion == tls.VersionTLS12 && m.Name() == "SCRAM-SHA-256" && oerr == nil && len(opts) == 3 // brokers, TLS, SASL
			}, ""},
		{"plain SASL without TLS", []string{"--load-sasl-mechanism", "plain", "--load-sasl-user", "u"}, nil, func(k kafkaConn) bool {
			tc, err := k.conn.TLSConfig()
			m, _ := k.conn.Mechanism()
			opts, _ := k.opts()
			return err == nil && tc == nil && m.Name() == "PLAIN" && len(opts) == 1
		}, ""},
		{"missing CA file", []string{"--load-tls-ca", "missing-ca.pem"}, nil, func(k kafkaConn) bool {
			_, err := k.opts()
			return err != nil && strings.Contains(err.Error(), "--load-tls-ca")
		}, ""},
		{"unknown SASL mechanism", []string{"--load-sasl-mechanism", "gssapi", "--load-sasl-user", "u"}, nil, nil, `--load-sasl-mechanism: "gssapi"`},
		{"SASL without a user", []string{"--load-sasl-mechanism", "plain"}, nil, nil, "--load-sasl-user: missing"},
		{"client cert without key", []string{"--load-tls-cert", "c.pem"}, nil, nil, "--load-tls-key: missing"},
		{"a password and its file", []string{"--load-sasl-mechanism", "plain", "--load-sasl-user", "u", "--load-sasl-password", "p", "--load-sasl-password-file", "f"}, nil, nil,
			"--load-sasl-password-file: set either"},
		{"a password file", []string{"--load-sasl-mechanism", "plain", "--load-sasl-user", "u", "--load-sasl-password-file", "missing-pass"}, nil, func(k kafkaConn) bool {
			_, err := k.opts()
			return err != nil && strings.Contains(err.Error(), "--load-sasl-password-file")
		}, ""},
	}
	runConfigCases(t, tests, func(c config) kafkaConn { return c.load.kafka }, func(t *testing.T, c config) {
		if c.history.kafka.conn != (kafkaconn.Config{}) {
			t.Errorf("--load-* flags leaked into the history's connection: %+v", c.history.kafka)
		}
	})
}

// The load source samples a SASL (SCRAM-SHA-256) cluster with the
// --load-sasl-* flags; with a wrong password the cluster refuses them.
func TestLoadSourceSASL(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders"), kfake.EnableSASL(),
		kfake.Superuser("SCRAM-SHA-256", "assignd", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := strings.Join(c.ListenAddrs(), ",")
	cfg, err := parseConfig([]string{"--load-brokers", brokers, "--load-sasl-mechanism", "scram-sha-256", "--load-sasl-user", "assignd"},
		func(k string) (string, bool) { return "secret", k == "ASSIGND_LOAD_SASL_PASSWORD" }, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg.load.interval = 50 * time.Millisecond
	src, stop, err := startLoadSource(ctx, cfg.load, slog.New(slog.NewTextHandler(io.Discard, nil)), loadsource.NewBook())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for {
		ws, err := src.Weights([]string{"orders"}, time.Now())
		if err == nil {
			if len(ws) != 1 || len(ws[0].Weights) != 2 {
				t.Fatalf("weights %+v, want orders' 2 partitions", ws)
			}
			break
		}
		// Stale is not ready either: at a 50 ms interval, a sample on a
		// busy machine can be older than four intervals.
		if !(errors.Is(err, loadsource.ErrNotReady) || errors.Is(err, loadsource.ErrStale)) || ctx.Err() != nil {
			t.Fatalf("load over SASL never ready: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}

	bad := cfg.load.kafka
	bad.conn.SASLPassword = "wrong"
	opts, err := bad.opts()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(c.ListenAddrs()...))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bctx, bcancel := context.WithTimeout(ctx, 5*time.Second)
	defer bcancel()
	if _, err := kadm.NewClient(cl).ListEndOffsets(bctx, "orders"); err == nil {
		t.Fatal("end offsets listed with a wrong SASL password")
	}
}
