package faults

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/assignd/assignd/testbed/loopback"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// assigndBinary builds cmd/assignd once per test binary, into dir.
func assigndBinary(t *testing.T, dir string) string {
	t.Helper()
	buildOnce.Do(func() {
		binary = filepath.Join(dir, "assignd")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/assignd/assignd/cmd/assignd").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build cmd/assignd: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// replica is one assignd process, restartable on the same ports (the
// leaders' resolver lists fixed addresses).
type replica struct {
	name        string
	bin         string
	env         []string
	grpcAddr    string
	metricsAddr string
	logPath     string

	mu     sync.Mutex
	pid    int
	exited chan struct{}
}

func newReplica(bin, name, dir string, env []string) (*replica, error) {
	ports, err := loopback.FreePorts(2)
	if err != nil {
		return nil, err
	}
	return &replica{
		name: name, bin: bin, env: env,
		grpcAddr:    fmt.Sprintf("127.0.0.1:%d", ports[0]),
		metricsAddr: fmt.Sprintf("127.0.0.1:%d", ports[1]),
		logPath:     filepath.Join(dir, name+".log"),
	}, nil
}

// start runs the replica and waits, bounded by ctx, until its health
// service says SERVING.
func (r *replica) start(ctx context.Context) error {
	logf, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(r.bin, "--listen", r.grpcAddr, "--metrics-listen", r.metricsAddr, "--log-format", "json")
	cmd.Env = append(os.Environ(), append([]string{"ASSIGND_HISTORY_REPLICA=" + r.name}, r.env...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// The replica dies with the thread that started it, which lives as
	// long as the process: a test binary that is killed leaves none.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited := make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		r.mu.Lock()
		r.pid, r.exited = cmd.Process.Pid, exited
		r.mu.Unlock()
		started <- nil
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("replica %s: %w", r.name, err)
	}
	conn, err := grpc.NewClient(r.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		resp, err := hc.Check(cctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("replica %s exited before serving:\n%s", r.name, r.logTail(30))
		case <-ctx.Done():
			return fmt.Errorf("replica %s did not serve in time: %w\n%s", r.name, ctx.Err(), r.logTail(30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// kill ends the replica as a crash would (SIGKILL) and waits for it.
func (r *replica) kill() {
	r.mu.Lock()
	pid, exited := r.pid, r.exited
	r.mu.Unlock()
	if exited == nil {
		return
	}
	select {
	case <-exited:
		return
	default:
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
	}
}

// metric is the sum of the samples of the Prometheus metric name (every
// label set), from the replica's /metrics.
func (r *replica) metric(name string) (float64, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + r.metricsAddr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, line := range strings.Split(string(body), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(rest[strings.LastIndexByte(rest, ' ')+1:], &v); err == nil {
			sum += v
		}
	}
	return sum, nil
}

func (r *replica) logTail(n int) string {
	b, err := os.ReadFile(r.logPath)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
