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
	writeCA := func(ca *testcerts.CA, mtime time.Time) {
		if err := os.WriteFile(caFile, ca.PEM, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(caFile, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	writeCA(other, at)
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
	writeCA(served, at.Add(time.Second))
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
