package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/assignd/assignd/server/history"
)

// reportHeapOnSignal makes a server process write its live heap (after a
// collection) and what its history counts to stderr on SIGUSR1, so that
// -fleet can set the RSS it reads beside them.
func reportHeapOnSignal(h *history.Store) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(os.Stderr, "fleet: server heap %d MiB live, history counts %d MiB of %d groups\n",
				ms.HeapAlloc>>20, h.Bytes()>>20, h.Len())
		}
	}()
}
