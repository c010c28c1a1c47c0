// Package kafkaconn is the one type of how assignd connects to a Kafka
// cluster (brokers, TLS, SASL), and the one place that turns it into
// franz-go client options, re-reading its files when they change: for the
// history topic (--history-*), the load source (--load-*) and the
// policy's load_clusters.
package kafkaconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Config is the connection to one cluster. It is comparable: two equal
// Configs connect the same way.
type Config struct {
	// Brokers are the bootstrap brokers, "host:port,...".
	Brokers string
	// TLS dials over TLS (system roots unless CAFile); implied by CAFile
	// and CertFile.
	TLS bool
	// CAFile is a PEM CA bundle the brokers' certificates must chain to.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key (mTLS).
	CertFile, KeyFile string
	// ServerName overrides the name the brokers' certificates are checked
	// against; empty: the host dialed.
	ServerName string
	// SASLMechanism is "plain", "scram-sha-256", "scram-sha-512" or ""
	// (none).
	SASLMechanism string
	// SASLUser is the SASL user name.
	SASLUser string
	// SASLPassword is the password itself (from a flag or the
	// environment); SASLPasswordFile, when set, names a file holding it
	// instead (trailing newlines are dropped), read when connecting.
	SASLPassword, SASLPasswordFile string
}

// Keys of the fields, as FieldError names them and as the flags of a
// connection end (--history-tls-ca): the caller maps them to its own
// names (a flag, a policy path).
const (
	KeyBrokers          = "brokers"
	KeyTLS              = "tls"
	KeyTLSCA            = "tls-ca"
	KeyTLSCert          = "tls-cert"
	KeyTLSKey           = "tls-key"
	KeyTLSServerName    = "tls-server-name"
	KeySASLMechanism    = "sasl-mechanism"
	KeySASLUser         = "sasl-user"
	KeySASLPassword     = "sasl-password"
	KeySASLPasswordFile = "sasl-password-file"
)

// Mechanisms are the SASL mechanisms a Config takes.
const Mechanisms = "plain, scram-sha-256 or scram-sha-512"

// FieldError is a problem with one field of a Config.
type FieldError struct {
	Key string // one of the Key constants
	Err error
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(key, format string, args ...any) error {
	return &FieldError{Key: key, Err: fmt.Errorf(format, args...)}
}

// Validate checks the fields without reading files.
func (c Config) Validate() error {
	switch {
	case c.CertFile != "" && c.KeyFile == "":
		return fieldErr(KeyTLSKey, "missing: a client certificate needs its key")
	case c.KeyFile != "" && c.CertFile == "":
		return fieldErr(KeyTLSCert, "missing: a client key needs its certificate")
	case c.SASLMechanism != "" && c.SASLMechanism != "plain" && c.SASLMechanism != "scram-sha-256" && c.SASLMechanism != "scram-sha-512":
		return fieldErr(KeySASLMechanism, "%q: want %s", c.SASLMechanism, Mechanisms)
	case c.SASLMechanism != "" && c.SASLUser == "":
		return fieldErr(KeySASLUser, "missing: SASL needs a user")
	case c.SASLPassword != "" && c.SASLPasswordFile != "":
		return fieldErr(KeySASLPasswordFile, "set either the password or the file holding it, not both")
	}
	return nil
}

// TLSConfig is the client TLS configuration, nil when the connection is
// plaintext.
func (c Config) TLSConfig() (*tls.Config, error) {
	if !c.TLS && c.CAFile == "" && c.CertFile == "" {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, &FieldError{Key: KeyTLSCA, Err: err}
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fieldErr(KeyTLSCA, "%s: no PEM certificate", c.CAFile)
		}
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, &FieldError{Key: KeyTLSCert, Err: err}
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// Mechanism is the SASL mechanism, nil without one. The password file,
// if any, is read now and again at every authentication, so that a
// rotated password takes effect on the next connection.
func (c Config) Mechanism() (sasl.Mechanism, error) {
	if _, err := c.password(); err != nil {
		return nil, err
	}
	switch c.SASLMechanism {
	case "plain":
		return plain.Plain(func(context.Context) (plain.Auth, error) {
			pass, err := c.password()
			return plain.Auth{User: c.SASLUser, Pass: pass}, err
		}), nil
	case "scram-sha-256", "scram-sha-512":
		auth := func(context.Context) (scram.Auth, error) {
			pass, err := c.password()
			return scram.Auth{User: c.SASLUser, Pass: pass}, err
		}
		if c.SASLMechanism == "scram-sha-256" {
			return scram.Sha256(auth), nil
		}
		return scram.Sha512(auth), nil
	}
	return nil, nil
}

// password is the SASL password: SASLPassword, or what SASLPasswordFile
// holds now.
func (c Config) password() (string, error) {
	if c.SASLMechanism == "" || c.SASLPasswordFile == "" {
		return c.SASLPassword, nil
	}
	b, err := os.ReadFile(c.SASLPasswordFile)
	if err != nil {
		return "", &FieldError{Key: KeySASLPasswordFile, Err: err}
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// Opts are the franz-go client options: the seed brokers, TLS dialing
// and SASL. The files are read now, so that a missing or bad one is an
// error at once, and again for the connections made after they change on
// disk (the TLS files when their size or modification time changes, the
// password file at every authentication): a rotated certificate, CA or
// password takes effect without a restart.
func (c Config) Opts() ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if c.Brokers != "" {
		opts = append(opts, kgo.SeedBrokers(strings.Split(c.Brokers, ",")...))
	}
	tc, err := c.TLSConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		opts = append(opts, kgo.Dialer(newTLSDialer(c, tc).dial))
	}
	m, err := c.Mechanism()
	if err != nil {
		return nil, err
	}
	if m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// stamp describes the state of files as os.Stat sees it (size and
// modification time, through symbolic links, so that a Kubernetes Secret's
// swapped link counts), without reading them: when it changes, a file was
// rotated. A file that cannot be stated is stamped with the error.
func stamp(files []string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f)
		if fi, err := os.Stat(f); err != nil {
			fmt.Fprintf(&b, " !%v\n", err)
		} else {
			fmt.Fprintf(&b, " %d %d\n", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}
