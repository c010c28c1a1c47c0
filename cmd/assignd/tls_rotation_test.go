package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/testcerts"
)

// secretDir lays out TLS files as the kubelet mounts a Secret: the files
// are symlinks through ..data, a symlink to a directory of the current
// version, and an update swaps ..data in one rename.
type secretDir struct{ dir string }

func (s secretDir) write(t *testing.T, version string, ca *testcerts.CA, cert tls.Certificate) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(s.dir, version), 0o700); err != nil {
		t.Fatal(err)
	}
	ca.WriteFiles(t, filepath.Join(s.dir, version), "tls", cert)
	tmp := filepath.Join(s.dir, "..data_tmp")
	if err := os.Symlink(version, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tls.crt", "tls.key", "ca.crt"} {
		if _, err := os.Lstat(filepath.Join(s.dir, f)); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", f), filepath.Join(s.dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (s secretDir) path(f string) string { return filepath.Join(s.dir, f) }

// TestBinaryTLSRotation rotates the server certificate and the client CA
// under a live client, as cert-manager and the kubelet do: the connection
// opened before keeps working, a new one gets the new certificate and is
// checked against the new CA, and no restart is needed.
func TestBinaryTLSRotation(t *testing.T) {
	assignd, _ := binaries(t)
	secret := secretDir{t.TempDir()}
	ca1, ca2 := testcerts.New(t), testcerts.New(t)
	srv1, srv2 := ca1.Server(t), ca2.Server(t)
	cli1, cli2 := ca1.Client(t, "leader", "team"), ca2.Client(t, "leader", "team")
	secret.write(t, "v1", ca1, srv1)
	p := startAssignd(t, assignd, []string{"ASSIGND_TLS_CERT=" + secret.path("tls.crt"), "ASSIGND_TLS_KEY=" + secret.path("tls.key"),
		"ASSIGND_TLS_CLIENT_CA=" + secret.path("ca.crt")})

	roots := x509.NewCertPool()
	roots.AddCert(ca1.Cert)
	roots.AddCert(ca2.Cert)
	dial := func(cert tls.Certificate) *grpc.ClientConn {
		conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}})))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	// call returns the serial number of the certificate the server showed.
	call := func(conn *grpc.ClientConn) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var pr peer.Peer
		if _, err := assigndv1.NewAssignmentServiceClient(conn).ListAssignors(ctx, &assigndv1.ListAssignorsRequest{}, grpc.Peer(&pr)); err != nil {
			return "", err
		}
		return pr.AuthInfo.(credentials.TLSInfo).State.PeerCertificates[0].SerialNumber.String(), nil
	}

	live := dial(cli1)
	if serial, err := call(live); err != nil || serial != srv1.Leaf.SerialNumber.String() {
		t.Fatalf("before rotation: serial %s, %v; want %s", serial, err, srv1.Leaf.SerialNumber)
	}
	secret.write(t, "v2", ca2, srv2)

	if serial, err := call(live); err != nil || serial != srv1.Leaf.SerialNumber.String() {
		t.Errorf("the connection opened before the rotation: serial %s, %v; want it to keep working on %s", serial, err, srv1.Leaf.SerialNumber)
	}
	if serial, err := call(dial(cli2)); err != nil || serial != srv2.Leaf.SerialNumber.String() {
		t.Errorf("a new connection after the rotation: serial %s, %v; want the new certificate %s", serial, err, srv2.Leaf.SerialNumber)
	}
	if _, err := call(dial(cli1)); err == nil {
		t.Error("a new connection with a client certificate of the old CA succeeded; the client CA was not reloaded")
	}
	deadline := time.After(5 * time.Second)
	for reloaded := false; !reloaded; {
		select {
		case rec := <-p.lines:
			reloaded = rec["msg"] == "TLS files reloaded"
		case <-deadline:
			t.Fatal("no \"TLS files reloaded\" log line")
		}
	}
	p.stop(t)
}

// TestTLSFilesBadChange: a change that does not load (a key that does not
// match the certificate) keeps the last good configuration serving, and
// is logged once, however many handshakes see it.
func TestTLSFilesBadChange(t *testing.T) {
	dir := t.TempDir()
	ca := testcerts.New(t)
	_, certFile, keyFile := ca.WriteFiles(t, dir, "server", ca.Server(t))
	var logs bytes.Buffer
	cfg, err := tlsConfig(config{tlsCert: certFile, tlsKey: keyFile}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	good, err := cfg.GetConfigForClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A key of another certificate.
	other := t.TempDir()
	_, _, otherKey := ca.WriteFiles(t, other, "x", ca.Server(t))
	key, err := os.ReadFile(otherKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := cfg.GetConfigForClient(nil)
		if err != nil || got != good {
			t.Fatalf("after a bad change: %v, %v; want the last good configuration", got, err)
		}
	}
	if n := strings.Count(logs.String(), "do not load"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
	if _, err := tlsConfig(config{tlsCert: filepath.Join(dir, "missing.crt"), tlsKey: keyFile}, slog.Default()); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Errorf("a missing file at start: %v, want an error naming --tls-cert", err)
	}
}
