package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// kafkaConn is how assignd connects to one Kafka cluster: TLS and SASL.
// The history (--history-*) and the load source (--load-*) each register
// one under their prefix, so both clusters take the same options.
type kafkaConn struct {
	prefix        string // flag prefix, "history" or "load"
	tls           bool
	tlsCA         string
	tlsCert       string
	tlsKey        string
	saslMechanism string
	saslUser      string
	saslPassword  string
}

// register defines --<prefix>-tls, -tls-ca, -tls-cert, -tls-key,
// -sasl-mechanism, -sasl-user and -sasl-password on fs; what names the
// cluster in the help text ("history brokers").
func (k *kafkaConn) register(fs *flag.FlagSet, prefix, what string) {
	k.prefix = prefix
	p := "--" + prefix
	fs.BoolVar(&k.tls, prefix+"-tls", false, "connect to the "+what+" over TLS (system roots unless "+p+"-tls-ca)")
	fs.StringVar(&k.tlsCA, prefix+"-tls-ca", "", "PEM CA bundle `file` the "+what+"' certificates must chain to; implies "+p+"-tls")
	fs.StringVar(&k.tlsCert, prefix+"-tls-cert", "", "PEM client certificate `file` for the "+what+" (mTLS, with "+p+"-tls-key); implies "+p+"-tls")
	fs.StringVar(&k.tlsKey, prefix+"-tls-key", "", "PEM private key `file` of "+p+"-tls-cert")
	fs.StringVar(&k.saslMechanism, prefix+"-sasl-mechanism", "", "SASL `mechanism` for the "+what+": plain, scram-sha-256 or scram-sha-512; empty: none")
	fs.StringVar(&k.saslUser, prefix+"-sasl-user", "", "SASL user `name`")
	fs.StringVar(&k.saslPassword, prefix+"-sasl-password", "", "SASL `password`; prefer the environment variable "+envName(prefix+"-sasl-password"))
}

func (k *kafkaConn) validate() error {
	p := "--" + k.prefix
	switch {
	case (k.tlsCert == "") != (k.tlsKey == ""):
		return fmt.Errorf("%s-tls-cert and %s-tls-key go together", p, p)
	case k.saslMechanism != "" && k.saslMechanism != "plain" && k.saslMechanism != "scram-sha-256" && k.saslMechanism != "scram-sha-512":
		return fmt.Errorf("%s-sasl-mechanism %q: want plain, scram-sha-256 or scram-sha-512", p, k.saslMechanism)
	case k.saslMechanism != "" && k.saslUser == "":
		return fmt.Errorf("%s-sasl-mechanism needs %s-sasl-user", p, p)
	}
	return nil
}

// tlsConfig is the client TLS configuration of the flags, nil when the
// connection is plaintext.
func (k *kafkaConn) tlsConfig() (*tls.Config, error) {
	if !k.tls && k.tlsCA == "" && k.tlsCert == "" {
		return nil, nil
	}
	p := "--" + k.prefix
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if k.tlsCA != "" {
		pem, err := os.ReadFile(k.tlsCA)
		if err != nil {
			return nil, fmt.Errorf("%s-tls-ca: %w", p, err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s-tls-ca %s: no PEM certificate", p, k.tlsCA)
		}
	}
	if k.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(k.tlsCert, k.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("%s-tls-cert/%s-tls-key: %w", p, p, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// mechanism is the SASL mechanism of the flags, nil without one.
func (k *kafkaConn) mechanism() sasl.Mechanism {
	switch k.saslMechanism {
	case "plain":
		return plain.Auth{User: k.saslUser, Pass: k.saslPassword}.AsMechanism()
	case "scram-sha-256":
		return scram.Auth{User: k.saslUser, Pass: k.saslPassword}.AsSha256Mechanism()
	case "scram-sha-512":
		return scram.Auth{User: k.saslUser, Pass: k.saslPassword}.AsSha512Mechanism()
	}
	return nil
}

// opts are the franz-go client options of the flags: TLS dialing and SASL.
func (k *kafkaConn) opts() ([]kgo.Opt, error) {
	var opts []kgo.Opt
	tc, err := k.tlsConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if m := k.mechanism(); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}
