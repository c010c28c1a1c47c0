package kafkaconn_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/testbed/testcerts"
)

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.New(t)
	caFile, certFile, keyFile := ca.WriteFiles(t, dir, "client", ca.Client(t, "assignd", "ops"))
	pass := filepath.Join(dir, "pass")
	if err := os.WriteFile(pass, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		c       kafkaconn.Config
		opts    int    // franz-go options, when no error
		errKey  string // the FieldError's key, "" for none
		checkFn func(t *testing.T, c kafkaconn.Config)
	}{
		{name: "plaintext", c: kafkaconn.Config{}, opts: 0},
		{name: "TLS with system roots", c: kafkaconn.Config{TLS: true, ServerName: "kafka.eu"}, opts: 1, checkFn: func(t *testing.T, c kafkaconn.Config) {
			tc, _ := c.TLSConfig()
			if tc.ServerName != "kafka.eu" || tc.RootCAs != nil {
				t.Errorf("TLS %+v", tc)
			}
		}},
		{name: "mTLS and SCRAM with a password file", c: kafkaconn.Config{CAFile: caFile, CertFile: certFile, KeyFile: keyFile,
			SASLMechanism: "scram-sha-512", SASLUser: "u", SASLPasswordFile: pass}, opts: 2, checkFn: func(t *testing.T, c kafkaconn.Config) {
			m, err := c.Mechanism()
			if err != nil || m.Name() != "SCRAM-SHA-512" {
				t.Errorf("mechanism %v, %v", m, err)
			}
		}},
		{name: "missing CA file", c: kafkaconn.Config{CAFile: filepath.Join(dir, "nope.pem")}, errKey: kafkaconn.KeyTLSCA},
		{name: "CA file without PEM", c: kafkaconn.Config{CAFile: pass}, errKey: kafkaconn.KeyTLSCA},
		{name: "missing password file", c: kafkaconn.Config{SASLMechanism: "plain", SASLUser: "u", SASLPasswordFile: filepath.Join(dir, "nope")}, errKey: kafkaconn.KeySASLPasswordFile},
		{name: "certificate without key", c: kafkaconn.Config{CertFile: certFile}, errKey: kafkaconn.KeyTLSKey},
		{name: "unknown mechanism", c: kafkaconn.Config{SASLMechanism: "gssapi", SASLUser: "u"}, errKey: kafkaconn.KeySASLMechanism},
		{name: "SASL without user", c: kafkaconn.Config{SASLMechanism: "plain"}, errKey: kafkaconn.KeySASLUser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if err == nil {
				var opts []kgo.Opt
				if opts, err = tc.c.Opts(); err == nil && len(opts) != tc.opts {
					t.Fatalf("%d options, want %d", len(opts), tc.opts)
				}
			}
			var fe *kafkaconn.FieldError
			switch {
			case tc.errKey == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.errKey != "" && (!errors.As(err, &fe) || fe.Key != tc.errKey):
				t.Fatalf("error %v, want one on %s", err, tc.errKey)
			}
			if tc.checkFn != nil {
				tc.checkFn(t, tc.c)
			}
		})
	}
}
