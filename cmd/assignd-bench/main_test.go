package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestMain lets the test binary serve as the benchmark's child process,
// as the benchmark binary itself does.
func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		if err := serveChild(); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRun runs a short benchmark against both kinds of server and checks
// that every row was measured: the calls succeeded, latencies and rates
// are positive.
func TestRun(t *testing.T) {
	for _, where := range []string{"process", "inprocess"} {
		t.Run(where, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(where, 40, false, 0, 4, &out); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			rows := regexp.MustCompile(`p50 +([0-9.]+)(µs|ms|s) +p99 +([0-9.]+)(µs|ms|s) +([0-9]+) calls/s`).FindAllStringSubmatch(out.String(), -1)
			if len(rows) != 6 {
				t.Fatalf("%d measured rows, want 6:\n%s", len(rows), out.String())
			}
			for _, r := range rows {
				if r[1] == "0" || r[5] == "0" {
					t.Errorf("row without a measurement: %q", r[0])
				}
			}
			if !strings.Contains(out.String(), "server: "+where) {
				t.Errorf("the output does not say which server it measured:\n%s", out.String())
			}
		})
	}
}

// TestRunBig reads the quality of an answer from the encoded assignments,
// which both views carry.
func TestRunBig(t *testing.T) {
	srv, err := startServer(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	conn, err := grpc.NewClient(srv.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req, err := smallRequest()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []assigndv1.AssignmentView{assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL, assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED} {
		var out bytes.Buffer
		if err := runBig(t.Context(), &out, assigndv1.NewAssignmentServiceClient(conn), cloneWithView(req, v), 2); err != nil {
			t.Fatal(err)
		}
		if want := "96 partitions assigned, 10 members, balance (max-min) 1"; !strings.Contains(out.String(), want) {
			t.Errorf("view %s: output lacks %q:\n%s", v, want, out.String())
		}
	}
}
