package main

import (
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/testcerts"
)

// TestBinaryHTTPTLS serves the HTTP listener with TLS and a client CA:
// the probes answer without a client certificate, the console and metrics
// only with one the CA signed, plaintext gets nothing, and rotating the
// files (as the kubelet swaps a Secret) serves the new certificate and
// checks clients against the new CA without a restart.
func TestBinaryHTTPTLS(t *testing.T) {
	r := startRotation(t, "ASSIGND_METRICS_TLS_", "prometheus", "ops")
	p, srv1, srv2, cli1, cli2 := r.p, r.srv1, r.srv2, r.cli1, r.cli2
	foreign := testcerts.New(t).Client(t, "intruder", "elsewhere")
	// get makes a new connection (no keep-alive) and returns the status
	// and the serial of the server's certificate.
	get := func(path string, certs ...tls.Certificate) (int, string, error) {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DisableKeepAlives: true, TLSClientConfig: &tls.Config{RootCAs: r.roots, Certificates: certs}}}
		resp, err := c.Get("https://" + p.metricsAddr + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.TLS.PeerCertificates[0].SerialNumber.String(), nil
	}
	for _, tt := range []struct {
		path  string
		certs []tls.Certificate
		want  int
	}{
		{"/healthz", nil, http.StatusOK},
		{"/readyz", nil, http.StatusOK},
		{"/console/", nil, http.StatusForbidden},
		{"/metrics", nil, http.StatusForbidden},
		{"/console/", []tls.Certificate{cli1}, http.StatusOK},
		{"/metrics", []tls.Certificate{cli1}, http.StatusOK},
	} {
		code, serial, err := get(tt.path, tt.certs...)
		if err != nil || code != tt.want || serial != srv1.Leaf.SerialNumber.String() {
			t.Errorf("GET %s with %d client certificates: %d, %v (server certificate %s); want %d from %s",
				tt.path, len(tt.certs), code, err, serial, tt.want, srv1.Leaf.SerialNumber)
		}
	}
	if _, _, err := get("/console/", foreign); err == nil {
		t.Error("a client certificate of another CA was accepted")
	}
	if resp, err := http.Get("http://" + p.metricsAddr + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plaintext HTTP got an answer from the TLS listener")
		}
	}

	r.rotate(t)
	if code, serial, err := get("/console/", cli2); err != nil || code != http.StatusOK || serial != srv2.Leaf.SerialNumber.String() {
		t.Errorf("after the rotation: %d, %v, server certificate %s; want 200 from the new certificate %s", code, err, serial, srv2.Leaf.SerialNumber)
	}
	if _, _, err := get("/console/", cli1); err == nil {
		t.Error("after the rotation a client certificate of the old CA was accepted; the client CA was not reloaded")
	}
	r.waitReloaded(t, "--metrics-tls-cert")
	p.stop(t)
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9464": true, "[::1]:9464": true, "localhost:9464": true,
		"0.0.0.0:9464": false, ":9464": false, "10.1.2.3:9464": false, "nonsense": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %t, want %t", addr, got, want)
		}
	}
}
