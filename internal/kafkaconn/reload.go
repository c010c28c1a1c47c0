package kafkaconn

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"
)

// dialTimeout is franz-go's own default, which a custom dialer replaces.
const dialTimeout = 10 * time.Second

// tlsDialer dials over TLS with the configuration of the files as they
// are now: it is built again when their stamp changes. A change that
// does not load (a half-written file) keeps the last good configuration
// until the next change.
type tlsDialer struct {
	c     Config
	mu    sync.Mutex
	stamp string
	tc    *tls.Config
}

func newTLSDialer(c Config, tc *tls.Config) *tlsDialer {
	return &tlsDialer{c: c, stamp: stamp(c.tlsFiles()), tc: tc}
}

// tlsFiles are the files the TLS configuration is built from.
func (c Config) tlsFiles() []string {
	var fs []string
	for _, f := range []string{c.CAFile, c.CertFile, c.KeyFile} {
		if f != "" {
			fs = append(fs, f)
		}
	}
	return fs
}

// config is the TLS configuration of the files now.
func (d *tlsDialer) config() *tls.Config {
	now := stamp(d.c.tlsFiles())
	d.mu.Lock()
	defer d.mu.Unlock()
	if now != d.stamp {
		if tc, err := d.c.TLSConfig(); err == nil {
			d.tc, d.stamp = tc, now
		}
	}
	return d.tc
}

// dial is a franz-go Dialer: as kgo.DialTLSConfig, with the host dialed
// as the server name unless the Config names one.
func (d *tlsDialer) dial(ctx context.Context, network, host string) (net.Conn, error) {
	tc := d.config().Clone()
	if tc.ServerName == "" {
		if h, _, err := net.SplitHostPort(host); err == nil {
			tc.ServerName = h
		}
	}
	td := &tls.Dialer{NetDialer: &net.Dialer{Timeout: dialTimeout}, Config: tc}
	return td.DialContext(ctx, network, host)
}
