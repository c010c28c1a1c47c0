package main

import (
	"crypto/tls"
	"flag"
	"log/slog"
	"net"
	"net/http"
)

// metricsFlags declare the HTTP listener of /metrics, the probes and the
// console, and its TLS.
func metricsFlags(fs *flag.FlagSet, c *config) {
	fs.StringVar(&c.metricsListen, "metrics-listen", defaultMetricsListen, "HTTP `address` for /metrics (Prometheus), /healthz, /readyz and the read-only /console/ (docs/observatory.md); empty disables it")
	fs.StringVar(&c.metricsTLSCert, "metrics-tls-cert", "", "PEM certificate `file` to serve the HTTP listener (--metrics-listen: metrics, probes, console) over TLS, with --metrics-tls-key; "+
		"re-read when it changes, like --tls-cert (it may name the same files)")
	fs.StringVar(&c.metricsTLSKey, "metrics-tls-key", "", "PEM private key `file` of --metrics-tls-cert")
	fs.StringVar(&c.metricsTLSClientCA, "metrics-tls-client-ca", "", "PEM CA bundle `file`: the HTTP listener requires a client certificate signed by it (mTLS) "+
		"on every path but /healthz and /readyz, which stay open to probes; needs --metrics-tls-cert")
}

// httpTLSFlags name the HTTP listener's files, in tlsFiles order.
var httpTLSFlags = [3]string{"--metrics-tls-cert", "--metrics-tls-key", "--metrics-tls-client-ca"}

// httpTLSConfig is the HTTP listener's TLS configuration, re-read when its
// files change as the gRPC listener's is, or nil when it serves plaintext.
//
// With a client CA the handshake asks for a certificate and verifies one
// that is given (VerifyClientCertIfGiven), and [requireClientCert] refuses
// requests without one on every path but the probes: the kubelet's HTTPS
// probes present no certificate, and /healthz and /readyz show nothing
// about the groups.
func httpTLSConfig(c config, logger *slog.Logger) (*tls.Config, error) {
	return reloadingTLS(&tlsFiles{cert: c.metricsTLSCert, key: c.metricsTLSKey, clientCA: c.metricsTLSClientCA, logger: logger,
		flags: httpTLSFlags, clientAuth: tls.VerifyClientCertIfGiven, nextProtos: []string{"http/1.1"}})
}

// openPaths are served to clients without a certificate when the HTTP
// listener requires one.
var openPaths = map[string]bool{"/healthz": true, "/readyz": true}

// requireClientCert answers 403 to requests without a verified client
// certificate, except on openPaths. The handshake has already refused a
// certificate the CA did not sign.
func requireClientCert(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !openPaths[r.URL.Path] && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
			http.Error(w, "a client certificate signed by --metrics-tls-client-ca is required", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// isLoopback reports whether a listen address binds loopback only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
