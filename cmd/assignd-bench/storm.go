package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// stormConfig is what -storm measures.
type stormConfig struct {
	groups    int           // groups of the storm (one call each)
	over      time.Duration // the time their calls arrive in
	heavy     int           // groups of the overload run (3× or more what the server sustains)
	deadline  time.Duration // each call's deadline, the Go client's default
	sustain   time.Duration // how long each closed-loop run lasts
	parallel  int           // callers of the closed-loop runs
	connsList []int         // connection counts of the overload run
}

// pool is a set of connections to one server, used in turn.
type pool struct {
	conns []*grpc.ClientConn
	next  atomic.Uint64
}

func dialPool(addr string, n int) (*pool, error) {
	p := &pool{}
	for range n {
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
		if err != nil {
			return nil, errors.Join(err, p.close())
		}
		p.conns = append(p.conns, cc)
	}
	return p, nil
}

func (p *pool) client() assigndv1.AssignmentServiceClient {
	return assigndv1.NewAssignmentServiceClient(p.conn())
}

func (p *pool) conn() *grpc.ClientConn { return p.conns[p.next.Add(1)%uint64(len(p.conns))] }

func (p *pool) close() error {
	var errs []error
	for _, cc := range p.conns {
		errs = append(errs, cc.Close())
	}
	return errors.Join(errs...)
}

// outcome is what one call of a storm came to.
type outcome struct {
	// at is when the call was due, since the storm began; took is from
	// then to its answer, so that a call the callers were late to send
	// counts as late (no coordinated omission).
	at, took time.Duration
	resp     rawMessage
	refused  bool  // RESOURCE_EXHAUSTED, reason OVERLOADED
	err      error // anything else, DEADLINE_EXCEEDED included
}

// stormRun is a storm's summary.
type stormRun struct {
	ok, refused, failed, invalid int
	p50, p99, last               time.Duration // of the answered calls; last: since the storm began
	refusedMax                   time.Duration // the slowest refusal
	firstErr                     error
	goodput                      float64 // answered calls per second, from the first arrival to the last answer
}

// storm sends one call for each group, open loop: the calls arrive evenly
// over the given time whatever the server does, each with its deadline,
// as leaders do when a cluster rolls. Every answer is validated after
// the storm (not during it: the checks would take the server's CPU).
func storm(ctx context.Context, p *pool, groups []*stormGroup, over, deadline time.Duration) stormRun {
	outs := make([]outcome, len(groups))
	reqs, err := encodeRequests(groups)
	if err != nil {
		return stormRun{failed: len(groups), firstErr: err}
	}
	var wg sync.WaitGroup
	defer pauseCollections()()
	begin := time.Now()
	for i := range groups {
		at := over * time.Duration(i) / time.Duration(len(groups))
		if d := time.Until(begin.Add(at)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The deadline runs from when the call was due.
			cctx, cancel := context.WithDeadline(ctx, begin.Add(at+deadline))
			defer cancel()
			o := &outs[i]
			o.at = at
			o.err = p.conn().Invoke(cctx, assigndv1.AssignmentService_Assign_FullMethodName, &reqs[i], &o.resp, rawCall)
			o.took = time.Since(begin) - at
			if o.err != nil {
				o.refused = overloaded(o.err)
			}
		}()
	}
	wg.Wait()
	var r stormRun
	var lat []time.Duration
	for i, o := range outs {
		switch {
		case o.err == nil:
			if err := groups[i].checkRaw(o.resp); err != nil {
				r.invalid++
				r.firstErr = cmpOr(r.firstErr, err)
				continue
			}
			r.ok++
			lat = append(lat, o.took)
			r.last = max(r.last, o.at+o.took)
		case o.refused:
			r.refused++
			r.refusedMax = max(r.refusedMax, o.took)
		default:
			r.failed++
			r.firstErr = cmpOr(r.firstErr, fmt.Errorf("group %s: %w", groups[i].req.GetGroupId(), o.err))
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		r.p50, r.p99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
		r.goodput = float64(r.ok) / r.last.Seconds()
	}
	return r
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// retryHint is the wait an overloaded refusal suggests (RetryInfo), or 0.
func retryHint(err error) time.Duration {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok {
			return info.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// overloaded reports whether err is assignd's refusal of a call it could
// not start in time.
func overloaded(err error) bool {
	st := status.Convert(err)
	if st.Code() != codes.ResourceExhausted {
		return false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason() == assigndv1.ErrorReason_ERROR_REASON_OVERLOADED.String()
		}
	}
	return false
}

// sustainedRun is what a sustained run measured: the calls answered,
// per second and in all, and the callers' CPU per call while they ran.
type sustainedRun struct {
	rate    float64
	calls   int
	callers time.Duration
}

// sustained is the server's capacity: parallel callers, closed loop (each
// sends its next call when the last is answered), for d, over the groups
// in turn. It returns the calls answered, per second and in all; a caller refused
// as overloaded waits the refusal's retry hint (at most 100 ms), as a
// leader backs off, and the refusal does not count. As in a storm, the
// requests are encoded before and every answer is checked after the run,
// so that the callers spend no CPU on protobuf or on checks while the
// server they share the machine with is measured.
func sustained(ctx context.Context, p *pool, groups []*stormGroup, parallel int, d time.Duration) (sustainedRun, error) {
	reqs, err := encodeRequests(groups)
	if err != nil {
		return sustainedRun{}, err
	}
	type answer struct {
		group int
		resp  rawMessage
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	answers := make([][]answer, parallel)
	errs := make([]error, parallel)
	resume := pauseCollections()
	stop := time.Now().Add(d)
	begin, cpu := time.Now(), procCPU(os.Getpid())
	for c := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				i := int(next.Add(1)) % len(groups)
				a := answer{group: i}
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				err := p.conn().Invoke(cctx, assigndv1.AssignmentService_Assign_FullMethodName, &reqs[i], &a.resp, rawCall)
				cancel()
				if overloaded(err) {
					time.Sleep(min(retryHint(err), 100*time.Millisecond))
					continue
				}
				if err != nil {
					errs[c] = fmt.Errorf("group %s: %w", groups[i].req.GetGroupId(), err)
					return
				}
				answers[c] = append(answers[c], a)
			}
		}()
	}
	wg.Wait()
	took, cpu := time.Since(begin), procCPU(os.Getpid())-cpu
	resume()
	done := 0
	for _, as := range answers {
		for _, a := range as {
			if err := groups[a.group].checkRaw(a.resp); err != nil {
				return sustainedRun{}, err
			}
			done++
		}
	}
	return sustainedRun{rate: float64(done) / took.Seconds(), calls: done, callers: cpu / time.Duration(max(done, 1))}, errors.Join(errs...)
}

// pauseCollections stops the callers' garbage collection, after one
// collection, until the returned func resumes it (within a 2 GiB heap,
// past which it collects anyway). The callers hold every group of the
// storm for the checks after it, tens of thousands of pointer-rich
// structs that each collection would trace again, on the cores the server
// needs.
func pauseCollections() (resume func()) {
	runtime.GC()
	percent, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(2<<30)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// encodeRequests is every group's request in its wire form.
func encodeRequests(groups []*stormGroup) ([]rawMessage, error) {
	reqs := make([]rawMessage, len(groups))
	for i, sg := range groups {
		b, err := proto.Marshal(sg.req)
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", sg.req.GetGroupId(), err)
		}
		reqs[i].b = b
	}
	return reqs, nil
}

// runStorm measures a storm against assignd and the franz-go-backed peer,
// each in a process of its own: their sustained capacity side by side,
// assignd under the storm, and assignd at three times what it sustains
// over one connection and over many.
func runStorm(ctx context.Context, cfg stormConfig, out io.Writer) error {
	groups, err := stormGroups("storm", max(cfg.groups, cfg.heavy), stormShape)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "load average %s at the start\n", loadAverage())
	defer func() { fmt.Fprintf(out, "load average %s at the end\n", loadAverage()) }()
	capacity, cpu, callers := map[string]float64{}, map[string]time.Duration{}, map[string]time.Duration{}
	var results stormResults
	for _, kind := range []string{franzKind, assigndKind} {
		srv, err := startChild(ctx, kind)
		if err != nil {
			return err
		}
		p, err := dialPool(srv.addr, 4)
		if err != nil {
			return errors.Join(err, srv.stop())
		}
		// Connections and both processes warm before anything counts.
		if _, err := sustained(ctx, p, groups, cfg.parallel, time.Second); err != nil {
			return errors.Join(err, p.close(), srv.stop())
		}
		before := procCPU(srv.pid)
		r, err := sustained(ctx, p, groups, cfg.parallel, cfg.sustain)
		// The server's CPU from before the requests were encoded to after
		// the answers were checked: it idles through both.
		capacity[kind], cpu[kind], callers[kind] = r.rate, (procCPU(srv.pid)-before)/time.Duration(max(r.calls, 1)), r.callers
		if err == nil && kind == assigndKind {
			results, err = stormRuns(ctx, cfg, srv.addr, groups, r.rate, out)
			fmt.Fprintf(out, "assignd RSS %d MiB after the runs, peak %d MiB\n", procMemory(srv.pid, "VmRSS")>>20, procMemory(srv.pid, "VmHWM")>>20)
		}
		if err := errors.Join(err, p.close(), srv.stop()); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "sustained, %d callers, closed loop, %s: assignd %.0f calls/s, franz-go peer %.0f calls/s (%.2f×); server CPU per call: assignd %s, franz-go peer %s; the callers' CPU per call: %s, %s\n",
		cfg.parallel, cfg.sustain, capacity[assigndKind], capacity[franzKind], capacity[assigndKind]/capacity[franzKind],
		cpu[assigndKind].Round(time.Microsecond), cpu[franzKind].Round(time.Microsecond),
		callers[assigndKind].Round(time.Microsecond), callers[franzKind].Round(time.Microsecond))
	results.capacity, results.peer = capacity[assigndKind], capacity[franzKind]
	reportBounds(out, issueBounds(results))
	return nil
}

// stormRuns runs the storm and the overloads against the server at addr,
// which sustains capacity calls a second, and reports each.
func stormRuns(ctx context.Context, cfg stormConfig, addr string, groups []*stormGroup, capacity float64, out io.Writer) (stormResults, error) {
	res := stormResults{overloads: map[int]stormRun{}}
	report := func(name string, r stormRun) {
		fmt.Fprintf(out, "%s: %d answered (p50 %s, p99 %s, last answer at %s, %.0f/s = %.0f%% of sustained), %d refused (slowest refusal %s), %d failed, %d invalid\n",
			name, r.ok, r.p50.Round(time.Millisecond), r.p99.Round(time.Millisecond), r.last.Round(time.Millisecond),
			r.goodput, 100*r.goodput/capacity, r.refused, r.refusedMax.Round(time.Millisecond), r.failed, r.invalid)
		if r.firstErr != nil {
			fmt.Fprintf(out, "  first failure: %v\n", r.firstErr)
		}
	}
	p, err := dialPool(addr, 64)
	if err != nil {
		return res, err
	}
	res.storm = storm(ctx, p, groups[:cfg.groups], cfg.over, cfg.deadline)
	report(fmt.Sprintf("storm: %d groups within %s, 64 connections, deadline %s", cfg.groups, cfg.over, cfg.deadline), res.storm)
	if err := p.close(); err != nil {
		return res, err
	}
	for _, n := range cfg.connsList {
		p, err := dialPool(addr, n)
		if err != nil {
			return res, err
		}
		// A pause between runs, so that one run's line has drained.
		time.Sleep(cfg.deadline)
		res.overloads[n] = storm(ctx, p, groups[:cfg.heavy], cfg.over, cfg.deadline)
		report(fmt.Sprintf("overload: %d groups within %s (%.1f× sustained), %d connections", cfg.heavy, cfg.over,
			float64(cfg.heavy)/cfg.over.Seconds()/capacity, n), res.overloads[n])
		if err := p.close(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// defaultStorm is -storm's configuration: the issue's storm (5,000
// groups within a second) and its overload (10,000), each call with the
// Go client's default deadline.
func defaultStorm() stormConfig {
	return stormConfig{groups: 5000, over: time.Second, heavy: 10000, deadline: client.DefaultTimeout,
		sustain: 3 * time.Second, parallel: 32, connsList: []int{1, 64}}
}
