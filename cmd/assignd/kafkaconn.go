package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/assignd/assignd/internal/kafkaconn"
)

// kafkaConn is how assignd connects to one Kafka cluster: TLS and SASL,
// from flags; internal/kafkaconn builds the connection.
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

// config is the connection of the flags.
func (k *kafkaConn) config() kafkaconn.Config {
	return kafkaconn.Config{TLS: k.tls, CAFile: k.tlsCA, CertFile: k.tlsCert, KeyFile: k.tlsKey,
		SASLMechanism: k.saslMechanism, SASLUser: k.saslUser, SASLPassword: k.saslPassword}
}

// flagErr names the flag of a kafkaconn.FieldError.
func (k *kafkaConn) flagErr(err error) error {
	var fe *kafkaconn.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("--%s-%s: %w", k.prefix, fe.Key, fe.Err)
	}
	return err
}

// validate checks the flags together, in their own words; what files
// hold is checked when connecting.
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
	return k.flagErr(k.config().Validate())
}

// tlsConfig is the client TLS configuration of the flags, nil when the
// connection is plaintext.
func (k *kafkaConn) tlsConfig() (*tls.Config, error) {
	tc, err := k.config().TLSConfig()
	return tc, k.flagErr(err)
}

// mechanism is the SASL mechanism of the flags, nil without one.
func (k *kafkaConn) mechanism() sasl.Mechanism {
	m, _ := k.config().Mechanism() // no password file: no error
	return m
}

// opts are the franz-go client options of the flags: TLS dialing and SASL.
func (k *kafkaConn) opts() ([]kgo.Opt, error) {
	opts, err := k.config().Opts()
	return opts, k.flagErr(err)
}

// connConfig is the connection of the flags to brokers, checked by
// building its client options (which reads its files).
func (k *kafkaConn) connConfig(brokers string) (kafkaconn.Config, error) {
	c := k.config()
	c.Brokers = brokers
	_, err := c.Opts()
	return c, k.flagErr(err)
}
