package client_test

import (
	"crypto/tls"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/shimtest"
	"github.com/assignd/assignd/testbed/testcerts"
)

func TestMutualTLS(t *testing.T) {
	ca := testcerts.New(t)
	leader := ca.Client(t, "leader", "payments")
	addr := shimtest.ServeAssignd(t, server.WithTLS(&tls.Config{
		Certificates: []tls.Certificate{ca.Server(t)},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: ca.Pool,
		MinVersion: tls.VersionTLS13,
	}))
	for _, tc := range []struct {
		name string
		opts []client.Option
		want codes.Code
	}{
		{"client certificate", []client.Option{client.WithTLS(&tls.Config{RootCAs: ca.Pool, Certificates: []tls.Certificate{leader}, MinVersion: tls.VersionTLS13})}, codes.OK},
		{"no client certificate", []client.Option{client.WithTLS(&tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS13})}, codes.Unavailable},
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
