package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/internal/kafkaconn"
)

// kafkaConn is the connection to one Kafka cluster, from flags: the
// brokers, TLS and SASL of internal/kafkaconn, the same settings a
// policy's load_clusters entry takes. The history topic (--history-*)
// and the load source (--load-*) each register one under their prefix.
type kafkaConn struct {
	prefix string // flag prefix, "history" or "load"
	conn   kafkaconn.Config
}

// register defines --<prefix>-brokers, -tls, -tls-ca, -tls-cert,
// -tls-key, -tls-server-name, -sasl-mechanism, -sasl-user,
// -sasl-password and -sasl-password-file on fs; brokers is the help of
// -brokers, what names the cluster in the others' ("history brokers").
func (k *kafkaConn) register(fs *flag.FlagSet, prefix, brokers, what string) {
	k.prefix = prefix
	name := func(key string) string { return prefix + "-" + key }
	p := "--" + prefix
	fs.StringVar(&k.conn.Brokers, name(kafkaconn.KeyBrokers), "", brokers)
	fs.BoolVar(&k.conn.TLS, name(kafkaconn.KeyTLS), false, "connect to the "+what+" over TLS (system roots unless "+p+"-tls-ca)")
	fs.StringVar(&k.conn.CAFile, name(kafkaconn.KeyTLSCA), "", "PEM CA bundle `file` the "+what+"' certificates must chain to; implies "+p+"-tls")
	fs.StringVar(&k.conn.CertFile, name(kafkaconn.KeyTLSCert), "", "PEM client certificate `file` for the "+what+" (mTLS, with "+p+"-tls-key); implies "+p+"-tls")
	fs.StringVar(&k.conn.KeyFile, name(kafkaconn.KeyTLSKey), "", "PEM private key `file` of "+p+"-tls-cert")
	fs.StringVar(&k.conn.ServerName, name(kafkaconn.KeyTLSServerName), "", "`name` the "+what+"' certificates are checked against; empty: the host dialed")
	fs.StringVar(&k.conn.SASLMechanism, name(kafkaconn.KeySASLMechanism), "", "SASL `mechanism` for the "+what+": "+kafkaconn.Mechanisms+"; empty: none")
	fs.StringVar(&k.conn.SASLUser, name(kafkaconn.KeySASLUser), "", "SASL user `name`")
	fs.StringVar(&k.conn.SASLPassword, name(kafkaconn.KeySASLPassword), "", "SASL `password`; prefer the environment variable "+envName(name(kafkaconn.KeySASLPassword))+", or "+p+"-sasl-password-file")
	fs.StringVar(&k.conn.SASLPasswordFile, name(kafkaconn.KeySASLPasswordFile), "", "`file` holding the SASL password (a mounted Secret), read at every connection, so that a rotated password needs no restart")
}

// flagErr names the flag of a kafkaconn.FieldError.
func (k *kafkaConn) flagErr(err error) error {
	var fe *kafkaconn.FieldError
	if errors.As(err, &fe) {
		return fmt.Errorf("--%s-%s: %w", k.prefix, fe.Key, fe.Err)
	}
	return err
}

// validate checks the flags together; what files hold is checked when
// connecting.
func (k *kafkaConn) validate() error { return k.flagErr(k.conn.Validate()) }

// opts are the franz-go client options of the flags (reading the files),
// errors naming the flag at fault.
func (k *kafkaConn) opts() ([]kgo.Opt, error) {
	opts, err := k.conn.Opts()
	return opts, k.flagErr(err)
}
