package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// fullViewCase is one of the full-view comparison's requests.
type fullViewCase struct {
	name string
	req  *assigndv1.AssignRequest
}

// fullViewCases are the engine issue's A, B and B2 as a Java or Python
// leader sends them: the explicit member form (topics, owned partitions
// and generation as fields) and ASSIGNMENT_VIEW_FULL. A is the first
// assignment of 500 topics × 2,000 partitions to 2,000 members; B and B2
// start from what A gave, with the last member gone (B) or a new one (B2).
func fullViewCases() ([]fullViewCase, error) {
	a, topics := caseA()
	res, err := assign.Run(assign.CooperativeSticky(), a)
	if err != nil {
		return nil, err
	}
	steady := make([]assign.Member, len(res.Members))
	for i, m := range res.Members {
		steady[i] = assign.Member{ID: m.ID, Topics: topics, Owned: m.Assigned, Generation: 1}
	}
	leave := &assign.Group{Generation: 2, Protocol: assign.Cooperative, Topics: a.Topics, Members: steady[:len(steady)-1]}
	join := &assign.Group{Generation: 2, Protocol: assign.Cooperative, Topics: a.Topics,
		Members: append(slices.Clip(steady), assign.Member{ID: "consumer-2000", Topics: topics, Generation: assign.NoGeneration})}
	return []fullViewCase{
		{"A first assignment", explicitRequest(a)},
		{"B one member leaves", explicitRequest(leave)},
		{"B2 one member joins", explicitRequest(join)},
	}, nil
}

// explicitRequest writes every member of g in the explicit form, asking
// for the full view.
func explicitRequest(g *assign.Group) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{
		GroupId: "bench-full-view", GenerationId: g.Generation, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		View:              assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL,
	}
	for _, t := range g.Topics {
		req.Topics = append(req.Topics, &assigndv1.Topic{Name: t.Name, PartitionCount: t.Partitions})
	}
	for _, m := range g.Members {
		req.Members = append(req.Members, apiconv.MemberToAPI(m))
	}
	return req
}

// fullViewServer is one server of the comparison.
type fullViewServer struct {
	name   string
	client assigndv1.AssignmentServiceClient
	pid    int // for its RSS; 0: unknown
	stop   func() error
}

// runFullView compares the servers named in list (process: assignd in a
// child process; franz-go: the peer, [franzService], in a child process;
// HOST:PORT or HOST:PORT@PID: a running server) on [fullViewCases]: rounds
// runs, each calling every server with A, B and B2 in turn, so that each
// server's calls come seconds apart, as a group's rebalances do. It ends
// with each server's RSS, rssWait after its last call.
func runFullView(ctx context.Context, out io.Writer, list string, rounds int, rssWait time.Duration) (err error) {
	cases, err := fullViewCases()
	if err != nil {
		return err
	}
	var servers []*fullViewServer
	defer func() {
		for _, s := range servers {
			if s.stop != nil {
				if stopErr := s.stop(); err == nil {
					err = stopErr
				}
			}
		}
	}()
	for _, where := range strings.Split(list, ",") {
		s, err := dialFullView(ctx, where)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	fmt.Fprintf(out, "full view, explicit form, 1,000,000 partitions (500 topics x 2000, 2000 members); requests %.1f, %.1f, %.1f MB\n",
		float64(proto.Size(cases[0].req))/1e6, float64(proto.Size(cases[1].req))/1e6, float64(proto.Size(cases[2].req))/1e6)
	took := make([][][]time.Duration, len(servers)) // server, case, run
	lastCall := make([]time.Time, len(servers))
	for i := range took {
		took[i] = make([][]time.Duration, len(cases))
	}
	for run := range rounds {
		for si, s := range servers {
			for ci, c := range cases {
				callCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
				t0 := time.Now()
				_, err := s.client.Assign(callCtx, c.req)
				d := time.Since(t0)
				cancel()
				if err != nil {
					return fmt.Errorf("%s, %s: %w", s.name, c.name, err)
				}
				lastCall[si] = time.Now()
				took[si][ci] = append(took[si][ci], d)
				fmt.Fprintf(out, "  run %d  %-10s %-20s %8s\n", run+1, s.name, c.name, d.Round(time.Millisecond))
			}
		}
	}
	fmt.Fprintf(out, "medians of %d runs (ratio: to the last server):\n", rounds)
	peer := len(servers) - 1
	for ci, c := range cases {
		ref := median(took[peer][ci])
		for si, s := range servers {
			m := median(took[si][ci])
			fmt.Fprintf(out, "  %-20s %-10s median %8s  max %8s  %.2fx\n", c.name, s.name, m.Round(time.Millisecond),
				slices.Max(took[si][ci]).Round(time.Millisecond), float64(m)/float64(ref))
		}
	}
	for si, s := range servers {
		if s.pid == 0 {
			continue
		}
		time.Sleep(time.Until(lastCall[si].Add(rssWait)))
		rss, hwm := procMemory(s.pid, "VmRSS"), procMemory(s.pid, "VmHWM")
		fmt.Fprintf(out, "  %-10s RSS %s after its last call: %d MiB (peak %d MiB)\n", s.name, rssWait, rss>>20, hwm>>20)
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}

func dialFullView(ctx context.Context, where string) (*fullViewServer, error) {
	s := &fullViewServer{name: where}
	addr := where
	switch where {
	case "process", "franz-go":
		kind := assigndKind
		if where == "franz-go" {
			kind = franzKind
		}
		child, err := startChild(ctx, kind)
		if err != nil {
			return nil, err
		}
		s.stop, s.pid, addr = child.stop, child.pid, child.addr
		if where == "process" {
			s.name = "assignd"
		}
	default:
		if a, pid, ok := strings.Cut(where, "@"); ok {
			n, err := strconv.Atoi(pid)
			if err != nil {
				return nil, fmt.Errorf("server %q: the pid after @: %w", where, err)
			}
			addr, s.pid, s.name = a, n, a
		}
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(server.DefaultMaxRecvBytes), grpc.MaxCallSendMsgSize(server.DefaultMaxRecvBytes)))
	if err != nil {
		return nil, err
	}
	stopChild := s.stop
	s.stop = func() error {
		conn.Close()
		if stopChild != nil {
			return stopChild()
		}
		return nil
	}
	s.client = assigndv1.NewAssignmentServiceClient(conn)
	return s, nil
}

// procMemory reads a field of /proc/PID/status (VmRSS, VmHWM) in bytes,
// or 0.
func procMemory(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
