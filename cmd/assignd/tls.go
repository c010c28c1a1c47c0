package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// tlsConfig loads the gRPC listener's server certificate and, for mTLS,
// the client CA bundle, and returns a configuration that re-reads them when
// they change (see [tlsFiles]). It returns nil when TLS is off, and an
// error when the files do not load at start.
func tlsConfig(c config, logger *slog.Logger) (*tls.Config, error) {
	return reloadingTLS(&tlsFiles{cert: c.tlsCert, key: c.tlsKey, clientCA: c.tlsClientCA, logger: logger,
		flags: grpcTLSFlags, clientAuth: tls.RequireAndVerifyClientCert,
		// gRPC negotiates HTTP/2 by ALPN, and a configuration returned by
		// GetConfigForClient replaces the one grpc-go prepared.
		nextProtos: []string{"h2"}})
}

// reloadingTLS returns the configuration of f's files, re-read on change,
// or nil when f names no certificate.
func reloadingTLS(f *tlsFiles) (*tls.Config, error) {
	if f.cert == "" {
		return nil, nil
	}
	if _, err := f.current(); err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// Every handshake gets the configuration of the files as they
		// are now; connections already open keep theirs.
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return f.current() },
	}, nil
}

// tlsFiles is the TLS configuration of the files --tls-cert, --tls-key and
// --tls-client-ca name, re-read when their contents change, so that a
// rotated certificate (cert-manager renewing a Secret, which the kubelet
// swaps in with a symlink) serves new connections without a restart.
//
// Each handshake reads the three files (a few KiB; a handshake's own
// cryptography costs far more) and compares them with the ones loaded. A
// change that does not load (the key written before its certificate, say)
// is logged once and the last good configuration keeps serving; the next
// handshake tries again.
type tlsFiles struct {
	cert, key, clientCA string
	logger              *slog.Logger
	// flags name cert, key and clientCA in messages.
	flags [3]string
	// clientAuth is the client certificate policy when clientCA is set.
	clientAuth tls.ClientAuthType
	// nextProtos are the ALPN protocols served.
	nextProtos []string

	mu     sync.Mutex
	loaded [3][]byte // the contents of cert, key and clientCA behind cfg
	failed [3][]byte // the contents that last failed to load
	cfg    *tls.Config
}

func (f *tlsFiles) current() (*tls.Config, error) {
	var now [3][]byte
	var err error
	for i, path := range []string{f.cert, f.key, f.clientCA} {
		if path == "" {
			continue
		}
		if now[i], err = os.ReadFile(path); err != nil {
			err = fmt.Errorf("reading %s: %w", f.flags[i], err)
			break
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.cfg != nil && same(now, f.loaded) {
		return f.cfg, nil
	}
	var cfg *tls.Config
	if err == nil {
		cfg, err = f.load(now)
	}
	if err != nil {
		if f.cfg == nil {
			return nil, err // at start: assignd does not start
		}
		if !same(now, f.failed) {
			f.failed = now
			f.logger.Warn("TLS files changed but do not load; serving the previous certificate", "files", f.flags[0], "error", err)
		}
		return f.cfg, nil
	}
	if f.cfg != nil {
		f.logger.Info("TLS files reloaded", "files", f.flags[0], "subject", cfg.Certificates[0].Leaf.Subject.String(),
			"not_after", cfg.Certificates[0].Leaf.NotAfter, "client_ca", f.clientCA != "")
	}
	f.loaded, f.failed, f.cfg = now, [3][]byte{}, cfg
	return cfg, nil
}

// grpcTLSFlags name the gRPC listener's files, in tlsFiles order.
var grpcTLSFlags = [3]string{"--tls-cert", "--tls-key", "--tls-client-ca"}

func same(a, b [3][]byte) bool {
	return bytes.Equal(a[0], b[0]) && bytes.Equal(a[1], b[1]) && bytes.Equal(a[2], b[2])
}

// load builds the configuration of one handshake from the files'
// contents (certificate, key, client CA bundle).
func (f *tlsFiles) load(files [3][]byte) (*tls.Config, error) {
	cert, err := tls.X509KeyPair(files[0], files[1])
	if err != nil {
		return nil, fmt.Errorf("loading %s/%s: %w", f.flags[0], f.flags[1], err)
	}
	if cert.Leaf == nil {
		return nil, fmt.Errorf("%s: no certificate", f.flags[0])
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: f.nextProtos}
	if f.clientCA != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(files[2]) {
			return nil, fmt.Errorf("%s: no PEM certificates", f.flags[2])
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = f.clientAuth
	}
	return cfg, nil
}
