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

// rotation is an assignd serving one listener with TLS from a secretDir,
// and the two versions of the secret: v1, which it starts with, and v2, a
// new server certificate and client CA that [rotation.rotate] swaps in.
type rotation struct {
	p          *process
	secret     secretDir
	srv1, srv2 tls.Certificate // the server certificates of v1 and v2
	cli1, cli2 tls.Certificate // a client certificate of each CA
	roots      *x509.CertPool  // both CAs, as a client trusting the rotation
	ca2        *testcerts.CA
}

// startRotation starts assignd with the TLS variables that start with env
// ("ASSIGND_TLS_" or "ASSIGND_METRICS_TLS_") naming secret v1, and makes a
// client certificate of each CA for commonName and org.
func startRotation(t *testing.T, env, commonName, org string) *rotation {
	t.Helper()
	assignd, _ := binaries(t)
	r := &rotation{secret: secretDir{t.TempDir()}, roots: x509.NewCertPool()}
	ca1, ca2 := testcerts.New(t), testcerts.New(t)
	r.srv1, r.srv2, r.ca2 = ca1.Server(t), ca2.Server(t), ca2
	r.cli1, r.cli2 = ca1.Client(t, commonName, org), ca2.Client(t, commonName, org)
	r.roots.AddCert(ca1.Cert)
	r.roots.AddCert(ca2.Cert)
	r.secret.write(t, "v1", ca1, r.srv1)
	r.p = startAssignd(t, assignd, []string{env + "CERT=" + r.secret.path("tls.crt"), env + "KEY=" + r.secret.path("tls.key"),
		env + "CLIENT_CA=" + r.secret.path("ca.crt")})
	return r
}

// rotate swaps secret v2 in, as the kubelet updates a Secret.
func (r *rotation) rotate(t *testing.T) { r.secret.write(t, "v2", r.ca2, r.srv2) }

// waitReloaded waits up to 5 s for the log line saying the TLS files were
// reloaded, one that names flag when flag is not empty.
func (r *rotation) waitReloaded(t *testing.T, flag string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case rec := <-r.p.lines:
			if files, _ := rec["files"].(string); rec["msg"] == "TLS files reloaded" && strings.Contains(files, flag) {
				return
			}
		case <-deadline:
			t.Fatalf("no \"TLS files reloaded\" log line naming %q", flag)
		}
	}
}

// TestBinaryTLSRotation rotates the server certificate and the client CA
// under a live client, as cert-manager and the kubelet do: the connection
// opened before keeps working, a new one gets the new certificate and is
// checked against the new CA, and no restart is needed.
func TestBinaryTLSRotation(t *testing.T) {
	r := startRotation(t, "ASSIGND_TLS_", "leader", "team")
	p, srv1, srv2, cli1, cli2 := r.p, r.srv1, r.srv2, r.cli1, r.cli2
	dial := func(cert tls.Certificate) *grpc.ClientConn {
		conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: r.roots, Certificates: []tls.Certificate{cert}})))
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
	r.rotate(t)

	if serial, err := call(live); err != nil || serial != srv1.Leaf.SerialNumber.String() {
		t.Errorf("the connection opened before the rotation: serial %s, %v; want it to keep working on %s", serial, err, srv1.Leaf.SerialNumber)
	}
	if serial, err := call(dial(cli2)); err != nil || serial != srv2.Leaf.SerialNumber.String() {
		t.Errorf("a new connection after the rotation: serial %s, %v; want the new certificate %s", serial, err, srv2.Leaf.SerialNumber)
	}
	if _, err := call(dial(cli1)); err == nil {
		t.Error("a new connection with a client certificate of the old CA succeeded; the client CA was not reloaded")
	}
	r.waitReloaded(t, "")
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
