package kafkabroker

import "syscall"

// sysProcAttr puts the JVM in a process group of its own (Stop kills the
// group) and has the kernel kill it when the thread that started it ends,
// so that a test binary that dies leaves no broker behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
