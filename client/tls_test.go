package client_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/server"
)

// testPKI is a throwaway CA with one server certificate for 127.0.0.1 and
// one client certificate.
type testPKI struct {
	pool   *x509.CertPool
	server tls.Certificate
	client tls.Certificate
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips ...net.IP) tls.Certificate {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &testPKI{
		pool:   pool,
		server: issue(2, "assignd", x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1)),
		client: issue(3, "leader", x509.ExtKeyUsageClientAuth),
	}
}

func TestMutualTLS(t *testing.T) {
	pki := newTestPKI(t)
	addr := serveAssignd(t, server.WithTLS(&tls.Config{
		Certificates: []tls.Certificate{pki.server},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: pki.pool,
		MinVersion: tls.VersionTLS13,
	}))
	for _, tc := range []struct {
		name string
		opts []client.Option
		want codes.Code
	}{
		{"client certificate", []client.Option{client.WithTLS(&tls.Config{RootCAs: pki.pool, Certificates: []tls.Certificate{pki.client}, MinVersion: tls.VersionTLS13})}, codes.OK},
		{"no client certificate", []client.Option{client.WithTLS(&tls.Config{RootCAs: pki.pool, MinVersion: tls.VersionTLS13})}, codes.Unavailable},
		{"plaintext", nil, codes.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := client.New(addr, append(tc.opts, client.WithTimeout(3*time.Second), client.WithMaxAttempts(1))...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.ListAssignors(testContext(t))
			if got := status.Code(err); got != tc.want {
				t.Fatalf("code %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}
