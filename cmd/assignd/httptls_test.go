package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
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
	assignd, _ := binaries(t)
	secret := secretDir{t.TempDir()}
	ca1, ca2 := testcerts.New(t), testcerts.New(t)
	srv1, srv2 := ca1.Server(t), ca2.Server(t)
	cli1, cli2 := ca1.Client(t, "prometheus", "ops"), ca2.Client(t, "prometheus", "ops")
	foreign := testcerts.New(t).Client(t, "intruder", "elsewhere")
	secret.write(t, "v1", ca1, srv1)
	p := startAssignd(t, assignd, []string{"ASSIGND_METRICS_TLS_CERT=" + secret.path("tls.crt"), "ASSIGND_METRICS_TLS_KEY=" + secret.path("tls.key"),
		"ASSIGND_METRICS_TLS_CLIENT_CA=" + secret.path("ca.crt")})

	roots := x509.NewCertPool()
	roots.AddCert(ca1.Cert)
	roots.AddCert(ca2.Cert)
	// get makes a new connection (no keep-alive) and returns the status
	// and the serial of the server's certificate.
	get := func(path string, certs ...tls.Certificate) (int, string, error) {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DisableKeepAlives: true, TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
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

	secret.write(t, "v2", ca2, srv2)
	if code, serial, err := get("/console/", cli2); err != nil || code != http.StatusOK || serial != srv2.Leaf.SerialNumber.String() {
		t.Errorf("after the rotation: %d, %v, server certificate %s; want 200 from the new certificate %s", code, err, serial, srv2.Leaf.SerialNumber)
	}
	if _, _, err := get("/console/", cli1); err == nil {
		t.Error("after the rotation a client certificate of the old CA was accepted; the client CA was not reloaded")
	}
	deadline := time.After(5 * time.Second)
	for reloaded := false; !reloaded; {
		select {
		case rec := <-p.lines:
			reloaded = rec["msg"] == "TLS files reloaded" && strings.Contains(rec["files"].(string), "--metrics-tls-cert")
		case <-deadline:
			t.Fatal("no \"TLS files reloaded\" log line for the HTTP listener")
		}
	}
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
