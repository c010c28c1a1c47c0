package grouplab

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/assignd/assignd/server"
)

// assignd runs an in-process assignd server that can be stopped and
// started again on the same loopback address, as a restarted deployment
// would be.
type assignd struct {
	logger *slog.Logger
	opts   []server.Option
	sel    server.Selector

	mu   sync.Mutex
	addr string // fixed after the first start
	srv  *server.Server
	done chan error
}

func (a *assignd) start() error {
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
	if err != nil {
		return fmt.Errorf("grouplab: listening for assignd on %s: %w", addr, err)
	}
	sel := a.sel
	if sel == nil {
		sel = server.DefaultSelector()
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

func (a *assignd) stop(ctx context.Context) error {
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

func (a *assignd) address() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.addr
}
