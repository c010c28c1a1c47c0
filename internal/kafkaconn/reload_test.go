package kafkaconn

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/testcerts"
)

// writeAt writes a file and gives it a modification time, whatever the
// file system's resolution: a rotation to content of the same size shows.
func writeAt(t *testing.T, path string, content []byte, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// The stamp of the TLS files changes when one changes on disk (size or
// modification time) or disappears, and only then.
func TestStamp(t *testing.T) {
	dir := t.TempDir()
	ca, cert := filepath.Join(dir, "ca"), filepath.Join(dir, "cert")
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	writeAt(t, ca, []byte("ca"), at)
	writeAt(t, cert, []byte("cert"), at)
	files := Config{CAFile: ca, CertFile: cert}.tlsFiles()
	s0 := stamp(files)
	if stamp(files) != s0 {
		t.Fatal("two stamps of unchanged files differ")
	}
	writeAt(t, cert, []byte("cert"), at.Add(time.Second))
	s1 := stamp(files)
	if s1 == s0 {
		t.Fatal("a new modification time left the stamp as it was")
	}
	writeAt(t, ca, []byte("ca-2"), at)
	s2 := stamp(files)
	if s2 == s1 {
		t.Fatal("a new size left the stamp as it was")
	}
	if err := os.Remove(ca); err != nil {
		t.Fatal(err)
	}
	if stamp(files) == s2 {
		t.Fatal("a missing file left the stamp as it was")
	}
}

// A connection made after the CA file changed on disk trusts the new CA,
// with no new client.
func TestTLSDialerRereadsChangedFiles(t *testing.T) {
	dir := t.TempDir()
	served, other := testcerts.New(t), testcerts.New(t)
	lis, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{served.Server(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	go func() {
		for {
			conn, err := lis.Accept()
			if err != nil {
				return
			}
			go func() { _ = conn.(*tls.Conn).Handshake(); conn.Close() }()
		}
	}()
	caFile := filepath.Join(dir, "ca.pem")
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	writeAt(t, caFile, other.PEM, at)
	c := Config{CAFile: caFile, ServerName: "localhost"}
	tc, err := c.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	d := newTLSDialer(c, tc)
	dial := func() error {
		conn, err := d.dial(context.Background(), "tcp", lis.Addr().String())
		if err == nil {
			conn.Close()
		}
		return err
	}
	if err := dial(); err == nil {
		t.Fatal("a server of another CA was trusted")
	}
	writeAt(t, caFile, served.PEM, at.Add(time.Second))
	if err := dial(); err != nil {
		t.Fatalf("after the CA file changed: %v", err)
	}
}

// The SASL password file is read at every authentication.
func TestMechanismRereadsThePasswordFile(t *testing.T) {
	pass := filepath.Join(t.TempDir(), "pass")
	write := func(s string) {
		if err := os.WriteFile(pass, []byte(s+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("first")
	m, err := Config{SASLMechanism: "plain", SASLUser: "u", SASLPasswordFile: pass}.Mechanism()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first", "second"} {
		write(want)
		_, msg, err := m.Authenticate(context.Background(), "kafka:9092")
		if err != nil || !strings.HasSuffix(string(msg), "\x00u\x00"+want) {
			t.Fatalf("authenticated with %q, %v; want the password %q", msg, err, want)
		}
	}
}
