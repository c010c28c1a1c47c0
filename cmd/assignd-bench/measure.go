package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// stats summarises one measurement.
type stats struct {
	p50, p99 time.Duration
	perSec   float64
}

// sequential makes n calls one after another.
func sequential(ctx context.Context, n int, call func(context.Context) error) (stats, error) {
	lat := make([]time.Duration, n)
	start := time.Now()
	for i := range lat {
		t0 := time.Now()
		if err := call(ctx); err != nil {
			return stats{}, err
		}
		lat[i] = time.Since(t0)
	}
	return summarise(lat, time.Since(start)), nil
}

// interleaved makes n calls of each function, sequentially, in rounds
// blocks that alternate between the functions.
func interleaved(ctx context.Context, rounds, n int, calls ...func(context.Context) error) ([]stats, error) {
	lat := make([][]time.Duration, len(calls))
	busy := make([]time.Duration, len(calls))
	per := max(1, n/rounds)
	for range rounds {
		for i, call := range calls {
			start := time.Now()
			for range per {
				t0 := time.Now()
				if err := call(ctx); err != nil {
					return nil, err
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
			busy[i] += time.Since(start)
		}
	}
	out := make([]stats, len(calls))
	for i := range calls {
		out[i] = summarise(lat[i], busy[i])
	}
	return out, nil
}

// concurrent makes n calls from workers callers at once.
func concurrent(ctx context.Context, n, workers int, call func(context.Context) error) (stats, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				t0 := time.Now()
				if err := call(ctx); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	if err, ok := firstErr.Load().(error); ok {
		return stats{}, err
	}
	return summarise(lat, time.Since(start)), nil
}

func summarise(lat []time.Duration, total time.Duration) stats {
	slices.Sort(lat)
	return stats{
		p50:    lat[len(lat)/2],
		p99:    lat[min(len(lat)-1, len(lat)*99/100)],
		perSec: float64(len(lat)) / total.Seconds(),
	}
}

func printRow(w io.Writer, name string, s, floor stats) {
	fmt.Fprintf(w, "  %-58s p50 %9s  p99 %9s  %8.0f calls/s  p50 = %.2fx floor\n",
		name, s.p50.Round(time.Microsecond), s.p99.Round(time.Microsecond), s.perSec, float64(s.p50)/float64(floor.p50))
}

func protoSize(m proto.Message) int { return proto.Size(m) }

// runBig sends the big group rounds times and reports each call's wall
// time, the sizes, and the quality of the answer, read from the encoded
// assignments (which both views carry).
func runBig(ctx context.Context, w io.Writer, client assigndv1.AssignmentServiceClient, req *assigndv1.AssignRequest, rounds int) error {
	fmt.Fprintf(w, "  view %s, request %.1f MB\n", req.GetView(), float64(proto.Size(req))/1e6)
	var times []time.Duration
	var resp *assigndv1.AssignResponse
	for range rounds {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		t0 := time.Now()
		r, err := client.Assign(ctx, req)
		took := time.Since(t0)
		cancel()
		if err != nil {
			return err
		}
		resp = r
		times = append(times, took)
		fmt.Fprintf(w, "    call: %s\n", took.Round(time.Millisecond))
	}
	slices.Sort(times)
	counts := make([]int, len(resp.GetAssignments()))
	total := 0
	for i, a := range resp.GetAssignments() {
		dec, err := wire.DecodeAssignment(a.GetAssignment())
		if err != nil {
			return fmt.Errorf("member %s: %w", a.GetMemberId(), err)
		}
		for _, tp := range dec.Partitions {
			counts[i] += len(tp.Partitions)
		}
		total += counts[i]
	}
	lo, hi := slices.Min(counts), slices.Max(counts)
	fmt.Fprintf(w, "    response %.1f MB, %d partitions assigned, %d members, balance (max-min) %d\n",
		float64(proto.Size(resp))/1e6, total, len(counts), hi-lo)
	fmt.Fprintf(w, "    end to end over gRPC: min %s, median %s (target < 1s)\n",
		times[0].Round(time.Millisecond), times[len(times)/2].Round(time.Millisecond))
	return nil
}
