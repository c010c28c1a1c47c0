//go:build unix

package interop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// proc is a subprocess in its own process group. Its stdout and stderr are
// read line by line as they come, each line handed to onLine with the time
// it was read; the last lines are kept to explain a failure.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and its output is read
	err  error         // cmd.Wait's result, valid after done

	mu   sync.Mutex
	tail []string
}

// tailLines is how many output lines a proc keeps for failure reports.
const tailLines = 60

// startProc starts name (args...) with env added to the test's environment
// in dir. onLine runs on the reading goroutines, so it must be safe for
// concurrent use. The process group is killed when the test ends, whatever
// happened.
func startProc(t *testing.T, name, dir string, env []string, onLine func(stream, line string, at time.Time), args ...string) *proc {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s (%s): %v", name, strings.Join(args, " "), err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	var readers sync.WaitGroup
	read := func(stream string, r io.Reader) {
		defer readers.Done()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line, at := sc.Text(), time.Now()
			p.keep(stream + ": " + line)
			if onLine != nil {
				onLine(stream, line, at)
			}
		}
	}
	readers.Add(2)
	go read("stdout", stdout)
	go read("stderr", stderr)
	go func() {
		readers.Wait() // Wait closes the pipes: read them to the end first
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("last output of %s (exit: %v):\n%s", name, p.exitErr(), p.lastLines())
		}
	})
	return p
}

func (p *proc) keep(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tail) == tailLines {
		copy(p.tail, p.tail[1:])
		p.tail = p.tail[:tailLines-1]
	}
	p.tail = append(p.tail, line)
}

func (p *proc) lastLines() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) exitErr() error {
	if !p.exited() {
		return errors.New("still running")
	}
	return p.err
}

// signal sends sig to the whole process group (node and kcat start no
// children today, but a wrapper script would).
func (p *proc) signal(sig syscall.Signal) {
	if p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// stop asks the process to exit (SIGTERM: both consumers leave their group
// on it) and waits up to grace; then it kills the group. It returns an error
// when the process had to be killed or exited with an error.
func (p *proc) stop(grace time.Duration) error {
	p.signal(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	select {
	case <-p.done:
		if p.err != nil {
			return fmt.Errorf("%s exited with %w", p.name, p.err)
		}
		return nil
	case <-ctx.Done():
		p.kill()
		return fmt.Errorf("%s did not exit within %s of SIGTERM; killed", p.name, grace)
	}
}

// kill kills the process group and waits for the output to be read.
func (p *proc) kill() {
	p.signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		// The output pipes stayed open (a grandchild outside the group);
		// nothing more can be done from here.
	}
}
