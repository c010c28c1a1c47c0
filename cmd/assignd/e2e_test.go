package main

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/testcerts"
)

// These tests build the real assignd and assignctl binaries, start assignd
// on loopback ports chosen by the kernel, and talk to it the way operators
// and leaders do: with assignctl, with a raw gRPC client and over HTTP.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds assignd and assignctl once per test run.
func binaries(t *testing.T) (assignd, assignctl string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "assignd-e2e-")
		if buildErr != nil {
			return
		}
		// go test puts its own toolchain first on PATH.
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
			"github.com/assignd/assignd/cmd/assignd", "github.com/assignd/assignd/cmd/assignctl")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "assignd"), filepath.Join(binDir, "assignctl")
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// process is a running assignd.
type process struct {
	cmd         *exec.Cmd
	grpcAddr    string
	metricsAddr string
	lines       chan map[string]any // the log records after the serving line
	exited      chan error
}

// startAssignd runs the binary with args and env and waits for its
// "assignd serving" log line to learn the bound addresses.
func startAssignd(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, loopbackArgs(args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, lines: make(chan map[string]any, 1024), exited: make(chan error, 1)}
	serving := make(chan map[string]any, 1)
	go func() {
		readLog(stderr, serving, p.lines)
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	select {
	case rec := <-serving:
		p.grpcAddr, p.metricsAddr = servingAddrs(rec)
	case err := <-p.exited:
		t.Fatalf("assignd exited before serving: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("assignd did not log its serving line")
	}
	return p
}

// stop sends SIGTERM and waits for a clean exit.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Errorf("assignd exited with %v after SIGTERM", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("assignd did not stop after SIGTERM")
	}
}

// assignctl runs the CLI binary.
func assignctl(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func TestBinaryEndToEnd(t *testing.T) {
	assignd, ctl := binaries(t)
	p := startAssignd(t, assignd, nil)
	example := filepath.Join("..", "..", "examples", "cooperative-metadata.json")

	// assignctl
	if code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "health"); code != 0 || strings.TrimSpace(out) != "SERVING" {
		t.Errorf("assignctl health: %d %q", code, out)
	}
	if code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "assignors"); code != 0 || !strings.Contains(out, "cooperative-sticky") {
		t.Errorf("assignctl assignors: %d %q", code, out)
	}
	code, table := assignctl(t, ctl, "--addr", p.grpcAddr, "assign", "-f", example)
	if code != 0 || !strings.Contains(table, "consumer-3") || !strings.Contains(table, "follow-up rebalance required") {
		t.Errorf("assignctl assign: %d\n%s", code, table)
	}
	code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "assign", "-f", filepath.Join("..", "..", "examples", "invalid", "truncated-metadata.json"))
	if code != 1 || !strings.Contains(out, "members[0].metadata") {
		t.Errorf("assignctl assign (invalid): %d\n%s", code, out)
	}

	// a raw gRPC client, as a leader in any language would be
	conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	req := &assigndv1.AssignRequest{}
	if err := protojson.Unmarshal(data, req); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := assigndv1.NewAssignmentServiceClient(conn).Assign(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetAssignor() != "cooperative-sticky" || !resp.GetFollowupRequired() || len(resp.GetAssignments()) != 3 {
		t.Errorf("raw client got %v", resp)
	}
	for _, a := range resp.GetAssignments() {
		dec, err := wire.DecodeAssignment(a.GetAssignment())
		if err != nil {
			t.Errorf("%s: %v", a.GetMemberId(), err)
			continue
		}
		// consumer-3 subscribed with v1 and must be answered with v1.
		if want := map[string]int16{"consumer-1": 3, "consumer-2": 3, "consumer-3": 1}[a.GetMemberId()]; dec.Version != want {
			t.Errorf("%s: assignment v%d, want v%d", a.GetMemberId(), dec.Version, want)
		}
	}

	// HTTP operations endpoints
	for path, want := range map[string]string{"/healthz": "ok", "/readyz": "ready", "/metrics": "assignd_assign_duration_seconds_bucket"} {
		if body := httpGet(t, "http://"+p.metricsAddr+path); !strings.Contains(body, want) {
			t.Errorf("GET %s lacks %q:\n%.500s", path, want, body)
		}
	}

	// one log line per call, with the domain fields
	found := false
	for deadline := time.After(5 * time.Second); !found; {
		select {
		case rec := <-p.lines:
			found = rec["msg"] == "finished call" && rec["group"] == "checkout" && rec["grpc.code"] == "OK" && rec["assignor"] == "cooperative-sticky@1"
		case <-deadline:
			t.Fatal("no call log line for the Assign call")
		}
	}
	p.stop(t)
}

// TestBinaryMutualTLS configures TLS through ASSIGND_* variables and
// checks that assignctl needs a client certificate.
func TestBinaryMutualTLS(t *testing.T) {
	assignd, ctl := binaries(t)
	dir := t.TempDir()
	ca := testcerts.New(t)
	caFile, srvCert, srvKey := ca.WriteFiles(t, dir, "server", ca.Server(t))
	_, cliCert, cliKey := ca.WriteFiles(t, dir, "client", ca.Client(t, "ops", "platform"))
	p := startAssignd(t, assignd, []string{"ASSIGND_TLS_CERT=" + srvCert, "ASSIGND_TLS_KEY=" + srvKey, "ASSIGND_TLS_CLIENT_CA=" + caFile})

	if code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "--tls-ca", caFile, "--tls-cert", cliCert, "--tls-key", cliKey, "assignors"); code != 0 {
		t.Errorf("assignctl with a client certificate: %d\n%s", code, out)
	}
	// Both are refused in the handshake: no connection, exit 3.
	if code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "--tls-ca", caFile, "--timeout", "5s", "assignors"); code != 3 {
		t.Errorf("assignctl without a client certificate: %d\n%s", code, out)
	}
	if code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "--timeout", "5s", "health"); code != 3 {
		t.Errorf("assignctl in plaintext against TLS: %d\n%s", code, out)
	}
	cert, err := tls.LoadX509KeyPair(cliCert, cliKey)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: ca.Pool, Certificates: []tls.Certificate{cert}})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := assigndv1.NewAssignmentServiceClient(conn).ListAssignors(ctx, &assigndv1.ListAssignorsRequest{}); err != nil {
		t.Errorf("raw mTLS client: %v", err)
	}
	p.stop(t)
}

// TestBinaryBadFlags: configuration errors exit 2 before listening.
func TestBinaryBadFlags(t *testing.T) {
	assignd, _ := binaries(t)
	for _, args := range [][]string{{"--log-format", "xml"}, {"--tls-cert", "only.crt"}, {"--nope"}} {
		err := exec.Command(assignd, args...).Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("assignd %q: %v, want exit status 2", args, err)
		}
	}
	out, err := exec.Command(assignd, "--help").Output()
	if err != nil || !strings.Contains(string(out), "ASSIGND_LISTEN") {
		t.Errorf("assignd --help: %v\n%s", err, out)
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
