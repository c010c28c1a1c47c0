//go:build unix

package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/syncbuf"
)

// assignCall is one Assign call as assignd served it.
type assignCall struct {
	at   time.Time
	req  *assigndv1.AssignRequest
	resp *assigndv1.AssignResponse // nil when err is set
	err  error
}

// assigndServer is the real assignd server (package server, default
// policy) on a loopback port (grouplab's restartable Assignd), recording
// every Assign call through an extra interceptor and keeping its JSON call
// log, so tests can tell which assignments it made. It can be stopped and
// started again on the same address to exercise the leaders' fallback.
type assigndServer struct {
	t    *testing.T
	srv  *grouplab.Assignd
	addr string

	mu    sync.Mutex
	calls []assignCall
	log   syncbuf.Buffer
}

func startAssignd(t *testing.T) *assigndServer {
	t.Helper()
	a := &assigndServer{t: t}
	srv, err := grouplab.StartAssignd(slog.New(slog.NewJSONHandler(&a.log, nil)),
		server.WithGRPCServerOptions(grpc.ChainUnaryInterceptor(a.record)))
	if err != nil {
		t.Fatalf("assignd: %v", err)
	}
	a.srv, a.addr = srv, srv.Addr()
	t.Cleanup(a.stop)
	return a
}

// stop shuts the server down (bounded); Assign calls fail until restart.
func (a *assigndServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.srv.Stop(ctx)
}

// restart starts the server again on the address of the stopped one.
func (a *assigndServer) restart() {
	a.t.Helper()
	if err := a.srv.Start(); err != nil {
		a.t.Fatalf("assignd: %v", err)
	}
}

func (a *assigndServer) record(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if info.FullMethod != assigndv1.AssignmentService_Assign_FullMethodName {
		return resp, err
	}
	c := assignCall{at: time.Now(), req: proto.Clone(req.(*assigndv1.AssignRequest)).(*assigndv1.AssignRequest), err: err}
	if err == nil {
		c.resp = proto.Clone(resp.(*assigndv1.AssignResponse)).(*assigndv1.AssignResponse)
	}
	a.mu.Lock()
	a.calls = append(a.calls, c)
	a.mu.Unlock()
	return resp, err
}

// callsFor returns the Assign calls of group, oldest first.
func (a *assigndServer) callsFor(group string) []assignCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []assignCall
	for _, c := range a.calls {
		if c.req.GetGroupId() == group {
			out = append(out, c)
		}
	}
	return out
}

// loggedAssigns counts assignd's call-log lines for successful Assign
// calls of group: the operator's view of the same calls.
func (a *assigndServer) loggedAssigns(group string) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(a.log.Bytes()))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Method string `json:"grpc.method"`
			Code   string `json:"grpc.code"`
			Group  string `json:"group"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Method == "Assign" && line.Code == "OK" && line.Group == group {
			n++
		}
	}
	return n
}

// errNoCall is returned by responseFor when assignd made no matching call.
var errNoCall = errors.New("no successful Assign call")

// responseFor returns the last successful Assign response of group whose
// request named exactly the given member ids.
func (a *assigndServer) responseFor(group string, members []string) (*assigndv1.AssignResponse, error) {
	want := slices.Sorted(slices.Values(members))
	calls := a.callsFor(group)
	for i := len(calls) - 1; i >= 0; i-- {
		c := calls[i]
		if c.err != nil {
			continue
		}
		var got []string
		for _, m := range c.req.GetMembers() {
			got = append(got, m.GetMemberId())
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			return c.resp, nil
		}
	}
	return nil, errNoCall
}
