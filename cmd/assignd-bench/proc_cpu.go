package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: the kernel
// reports them in USER_HZ, 100 a second on every Linux architecture.
const userHZ = 100

// procCPU is the CPU time (user and system, all threads) process pid has
// used, or 0 when it cannot be read (not Linux, or the process gone).
// Measured in the server's own process, a call's CPU cost does not depend
// on what else shares the machine, as its latency does.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted from its end are utime (14) and stime (15), the 12th and
	// 13th after it.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, _ := strconv.ParseInt(f, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ
}

// loadAverage is the machine's load averages over 1, 5 and 15 minutes
// ("" when unknown): storms' latencies depend on what else runs, and
// these runs are read beside it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
