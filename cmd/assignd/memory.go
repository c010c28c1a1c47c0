package main

import (
	"log/slog"
	"runtime/debug"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// setMemoryLimit sets the Go memory limit (GOMEMLIMIT) to 90% of the
// container's memory limit (cgroup v2 memory.max, or v1), or of the
// machine's memory when the process has no such limit, and returns the
// limit in force. GOMEMLIMIT in the environment wins, and AUTOMEMLIMIT
// (a ratio, or "off") is honoured, as automemlimit documents. The
// garbage collector then works harder before the process nears the
// limit, and the default --memory-budget is derived from it.
func setMemoryLimit(logger *slog.Logger) int64 {
	if _, err := memlimit.Set(memlimit.WithProvider(memlimit.ApplyFallback(memlimit.FromCgroup, memlimit.FromSystem))); err != nil {
		logger.Warn("could not set the Go memory limit; the memory budget falls back to its fixed default", "error", err)
	}
	return debug.SetMemoryLimit(-1)
}
