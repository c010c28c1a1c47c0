package grouplab

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
)

// Assignd is an in-process assignd server (default policy) that can be
// stopped and started again on the same loopback address, as a restarted
// deployment would be. A Lab has one; harnesses that drive other clients
// (sarama, librdkafka, KafkaJS, kafka-python) start their own with
// [StartAssignd]. It is safe for concurrent use.
type Assignd struct {
	logger *slog.Logger
	opts   []server.Option
	sel    selection.Selector

	mu   sync.Mutex
	addr string // fixed after the first start
	srv  *server.Server
	done chan error
}

// StartAssignd starts an assignd on a free loopback port, logging to
// logger, built with opts (e.g. server.WithGRPCServerOptions to observe
// its calls).
func StartAssignd(logger *slog.Logger, opts ...server.Option) (*Assignd, error) {
	return startAssignd(logger, nil, opts...)
}

// startAssignd is StartAssignd with a Selector (nil: the default policy).
func startAssignd(logger *slog.Logger, sel selection.Selector, opts ...server.Option) (*Assignd, error) {
	a := &Assignd{logger: logger, opts: opts, sel: sel}
	if err := a.Start(); err != nil {
		return nil, err
	}
	return a, nil
}

// rebindWait bounds how long Start retries the address of a stopped
// server: right after a stop the port can be briefly unavailable.
const rebindWait = 5 * time.Second

// Start starts the server again after Stop, on the same address; it does
// nothing while the server runs.
func (a *Assignd) Start() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.srv != nil {
		return nil
	}
	addr := a.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	lis, err := net.Listen("tcp", addr)
	for deadline := time.Now().Add(rebindWait); err != nil && a.addr != "" && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		lis, err = net.Listen("tcp", addr)
	}
	if err != nil {
		return fmt.Errorf("grouplab: listening for assignd on %s: %w", addr, err)
	}
	sel := a.sel
	if sel == nil {
		sel = selection.Default()
	}
	srv, err := server.New(sel, a.logger, a.opts...)
	if err != nil {
		lis.Close()
		return fmt.Errorf("grouplab: creating assignd: %w", err)
	}
	a.addr, a.srv, a.done = lis.Addr().String(), srv, make(chan error, 1)
	go func(done chan<- error) { done <- srv.Serve(lis) }(a.done)
	return nil
}

// Stop shuts the server down gracefully (bounded by ctx); calls fail
// until Start. It does nothing when the server is stopped.
func (a *Assignd) Stop(ctx context.Context) error {
	a.mu.Lock()
	srv, done := a.srv, a.done
	a.srv = nil
	a.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Shutdown(ctx)
	if serr := <-done; err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("grouplab: stopping assignd: %w", err)
	}
	return nil
}

// Addr is the server's loopback address; it stays the same across Stop
// and Start.
func (a *Assignd) Addr() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.addr
}
