package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/shimtest"
)

// procStatus reads a field of /proc/PID/status in bytes (VmRSS, VmHWM).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// cpuTicks is the process's user and system time in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name, which is in parentheses:
	// state is field 3, utime 14 and stime 15.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return utime + stime
}

func dial(t *testing.T, addr string) assigndv1.AssignmentServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return assigndv1.NewAssignmentServiceClient(conn)
}

// worstCase is the request that allocates the most per byte: one member,
// one topic of the default --max-partitions, about 50 bytes.
func worstCase(i int) *assigndv1.AssignRequest {
	return &assigndv1.AssignRequest{GroupId: fmt.Sprintf("worst-%d", i), ProtocolName: "range",
		Topics:  []*assigndv1.Topic{{Name: "t", PartitionCount: server.DefaultMaxPartitions}},
		Members: []*assigndv1.Member{{MemberId: "m", Topics: []string{"t"}}}}
}

// TestBinaryMemoryBound runs assignd with a 256 MiB --memory-budget, a
// 400 MiB GOMEMLIMIT and three slots (two for large calls, which the
// budget also allows: 2 × 96 MiB), sends 16 concurrent worst-case
// requests (each accepted: estimated at 96 MiB, under the 224 MiB a large
// call may use), and checks that the peak RSS stays under the bound the
// operations page states (GOMEMLIMIT + 64 MiB, since the budget and what gRPC
// holds fit under GOMEMLIMIT) and that RSS falls back to within 32 MiB of
// idle within a few seconds of the burst.
func TestBinaryMemoryBound(t *testing.T) {
	bin, _ := binaries(t)
	const budget = 256 << 20
	p := startAssignd(t, bin, []string{"GOMEMLIMIT=400MiB"}, "--memory-budget", strconv.Itoa(budget), "--max-concurrent-assigns", "3")
	pid := p.cmd.Process.Pid
	client := dial(t, p.grpcAddr)
	idle := procStatus(t, pid, "VmRSS")

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			resp, err := client.Assign(ctx, worstCase(i))
			if err == nil && len(resp.GetAssignments()) != 1 {
				err = fmt.Errorf("%d assignments", len(resp.GetAssignments()))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("worst-case call: %v", err)
		}
	}
	peak := procStatus(t, pid, "VmHWM")
	bound := int64(400<<20 + 64<<20)
	after := procStatus(t, pid, "VmRSS")
	var settled time.Duration
	for start := time.Now(); after > idle+32<<20 && time.Since(start) < 10*time.Second; {
		time.Sleep(100 * time.Millisecond)
		after = procStatus(t, pid, "VmRSS")
		settled = time.Since(start)
	}
	t.Logf("RSS idle %d MiB, peak (VmHWM) %d MiB under 16 worst-case calls (bound %d MiB), %d MiB %s after the burst",
		idle>>20, peak>>20, bound>>20, after>>20, settled.Round(100*time.Millisecond))
	if peak > bound {
		t.Errorf("peak RSS %d MiB over the bound of %d MiB", peak>>20, bound>>20)
	}
	if testing.Verbose() {
		for _, l := range strings.Split(httpGet(t, "http://"+p.metricsAddr+"/metrics"), "\n") {
			if strings.HasPrefix(l, "go_memstats_heap") || strings.HasPrefix(l, "go_memstats_next_gc") || strings.HasPrefix(l, "assignd_assign_inflight") || strings.HasPrefix(l, "assignd_assign_memory") || strings.HasPrefix(l, "go_gc_duration_seconds_count") {
				t.Log(l)
			}
		}
	}
	if after > idle+32<<20 {
		t.Errorf("RSS still %d MiB 10 s after the burst (idle: %d MiB)", after>>20, idle>>20)
	}
	p.stop(t)
}

// TestBinaryDeadlineToIdle: a long computation ([shimtest.LongRangeRequest]) with a
// 200 ms deadline; the process's CPU use stops
// once the engine sees the ended call. The time from the deadline to an
// idle process is logged.
func TestBinaryDeadlineToIdle(t *testing.T) {
	bin, _ := binaries(t)
	p := startAssignd(t, bin, nil, "--max-partitions", strconv.Itoa(shimtest.LongRangePartitions))
	pid := p.cmd.Process.Pid
	client := dial(t, p.grpcAddr)
	req := shimtest.LongRangeRequest()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	deadline, _ := ctx.Deadline()
	if _, err := client.Assign(ctx, req); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("client saw %v, want DEADLINE_EXCEEDED", err)
	}
	// The call's log line is written when the handler returns, that is
	// once the engine has stopped; the process is then idle: no CPU tick
	// in 200 ms.
	var stoppedAt time.Time
	for wait := time.After(2 * time.Minute); stoppedAt.IsZero(); {
		select {
		case rec := <-p.lines:
			if rec["msg"] != "finished call" || rec["group"] != req.GetGroupId() {
				continue
			}
			stoppedAt = time.Now()
			if rec["grpc.code"] != "DeadlineExceeded" {
				t.Errorf("logged %v, want DeadlineExceeded", rec["grpc.code"])
			}
		case <-wait:
			t.Fatal("no call log line 2 minutes after the deadline")
		}
	}
	last, idle := cpuTicks(t, pid), false
	for limit := time.Now().Add(10 * time.Second); !idle && time.Now().Before(limit); {
		time.Sleep(200 * time.Millisecond)
		now := cpuTicks(t, pid)
		idle, last = now == last, now
	}
	if !idle {
		t.Error("assignd still busy 10 s after the call ended")
	}
	t.Logf("deadline to the engine's stop (call logged): %s", max(0, stoppedAt.Sub(deadline)).Round(10*time.Millisecond))
	p.stop(t)
}
