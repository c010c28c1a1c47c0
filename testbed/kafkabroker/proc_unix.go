//go:build unix && !linux

package kafkabroker

import "syscall"

// sysProcAttr puts the JVM in a process group of its own; Stop kills the
// group. (Only Linux can tie the JVM's life to the test binary's.)
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
