package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/assignd/assignd/server/history"
)

// runFleet measures the memory of assignd's default history at a fleet's
// size: n groups of the fleet's spread of sizes ([fleetShape]), each
// rebalancing history.DefaultDecisionsPerGroup times (so that every
// group's ring of decisions and inputs is full), then the server's RSS
// rss after the last call, beside its RSS before the first.
func runFleet(ctx context.Context, n int, rss time.Duration, out io.Writer) (err error) {
	groups, err := stormGroups("fleet", n, fleetShape)
	if err != nil {
		return err
	}
	srv, err := startChild(ctx, assigndKind)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.stop()) }()
	p, err := dialPool(srv.addr, 8)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, p.close()) }()
	idle := procMemory(srv.pid, "VmRSS")
	begin := time.Now()
	for gen := range int32(history.DefaultDecisionsPerGroup) {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(groups); i += 8 {
					sg := groups[i]
					sg.req.GenerationId = 8 + gen
					cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					resp, err := p.client().Assign(cctx, sg.req)
					cancel()
					if err == nil {
						err = sg.check(resp)
					}
					if err != nil {
						errs <- fmt.Errorf("group %s: %w", sg.req.GetGroupId(), err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return err
		}
	}
	calls := n * history.DefaultDecisionsPerGroup
	fmt.Fprintf(out, "fleet: %d groups × %d rebalances (%d calls) in %s\n", n, history.DefaultDecisionsPerGroup, calls, time.Since(begin).Round(time.Second))
	time.Sleep(rss)
	if proc, err := os.FindProcess(srv.pid); err == nil && proc.Signal(syscall.SIGUSR1) == nil {
		// Its report, on stderr, comes before the RSS read after it: a
		// collection of a heap of hundreds of MiB on a loaded machine
		// takes seconds.
		time.Sleep(5 * time.Second)
	}
	fmt.Fprintf(out, "fleet: assignd RSS %d MiB idle, %d MiB %s after the last call, peak %d MiB (history bound %d MiB)\n",
		idle>>20, procMemory(srv.pid, "VmRSS")>>20, rss, procMemory(srv.pid, "VmHWM")>>20, history.DefaultMaxBytes>>20)
	return nil
}
