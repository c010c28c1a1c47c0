//go:build !unix

package kafkabroker

import (
	"os"
	"syscall"
)

// sysProcAttr: no process groups here; Stop kills the JVM itself.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// processAlive cannot tell here: never sweep.
func processAlive(int) bool { return true }
