//go:build unix

// Command testbroker runs the real Kafka broker of testbed/kafkabroker
// for test suites that are not written in Go (Java, Python, shell):
//
//	testbroker up [-watch PID] [-timeout 90s] [-cp JAR|DIR]... [-set KEY=VALUE]... DIR   # start; prints host:port
//	testbroker down DIR                                                                   # stop
//
// -cp adds a jar, or a directory's jars, to the broker's classpath (a
// broker plugin, such as a KIP-848 assignor) and -set sets one broker
// setting (kafkabroker.WithClasspath and WithConfig); both may repeat.
//
// up starts a broker in the background and returns once it serves. It
// writes DIR/bootstrap (host:port, one line) and DIR/pid (the background
// process, which owns the broker); the broker's own directory and log are
// DIR/broker and DIR/broker/broker.log, and the background process logs to
// DIR/testbroker.log. The broker stops on `testbroker down DIR`, or when
// the watched process exits (default: the process that ran up, e.g. the
// test script's shell; with `go run`, pass -watch $$), so that nothing
// outlives the run. Jars and java are found as testbed/kafkabroker finds
// them (scripts/kafka-jars.sh fetches the jars).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/assignd/assignd/testbed/kafkabroker"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "testbroker:", err)
		os.Exit(1)
	}
}

const usage = "usage: testbroker up [-watch PID] [-timeout D] [-cp JAR|DIR]... [-set KEY=VALUE]... DIR | testbroker down DIR"

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// extra is what up passes on to serve: classpath entries and settings.
type extra struct {
	classpath repeated
	settings  repeated
}

func (e extra) args() []string {
	var out []string
	for _, c := range e.classpath {
		out = append(out, "-cp", c)
	}
	for _, s := range e.settings {
		out = append(out, "-set", s)
	}
	return out
}

func (e extra) options() ([]kafkabroker.Option, error) {
	var opts []kafkabroker.Option
	if len(e.classpath) > 0 {
		opts = append(opts, kafkabroker.WithClasspath(e.classpath...))
	}
	for _, s := range e.settings {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-set %q: want KEY=VALUE", s)
		}
		opts = append(opts, kafkabroker.WithConfig(k, v))
	}
	return opts, nil
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	watch := fs.Int("watch", 0, "stop the broker when this process exits (default: the caller of up)")
	timeout := fs.Duration("timeout", 90*time.Second, "how long the broker may take to serve")
	var ex extra
	fs.Var(&ex.classpath, "cp", "a jar, or a directory of jars, to add to the broker's classpath (repeatable)")
	fs.Var(&ex.settings, "set", "a broker setting KEY=VALUE (repeatable)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(usage)
	}
	dir, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		return err
	}
	switch args[0] {
	case "up":
		if *watch == 0 {
			*watch = os.Getppid()
		}
		if _, err := ex.options(); err != nil {
			return err
		}
		return up(dir, *watch, *timeout, ex)
	case "serve": // the background half of up
		return serve(dir, *watch, *timeout, ex)
	case "down":
		return down(dir)
	}
	return errors.New(usage)
}

// up starts `testbroker serve` in a session of its own and waits until it
// has written DIR/bootstrap, or has failed.
func up(dir string, watch int, timeout time.Duration, ex extra) error {
	if pid, err := readPID(dir); err == nil && alive(pid) {
		return fmt.Errorf("a broker is already running for %s (pid %d): run testbroker down first", dir, pid)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"bootstrap", "pid"} {
		os.Remove(filepath.Join(dir, f))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(dir, "testbroker.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	args := append([]string{"serve", "-watch", strconv.Itoa(watch), "-timeout", timeout.String()}, ex.args()...)
	cmd := exec.Command(self, append(args, dir)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(timeout + 15*time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "bootstrap")); err == nil {
			fmt.Print(string(b))
			return nil
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "testbroker.log"))
			return fmt.Errorf("the broker did not start (%v):\n%s", err, log)
		case <-deadline:
			_ = cmd.Process.Kill()
			return fmt.Errorf("the broker did not start in %s (see %s)", timeout, filepath.Join(dir, "testbroker.log"))
		case <-tick.C:
		}
	}
}

// serve runs the broker until SIGTERM or SIGINT, the watched process's
// exit, or the broker's own exit.
func serve(dir string, watch int, timeout time.Duration, ex extra) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	opts, err := ex.options()
	if err != nil {
		return err
	}
	opts = append(opts, kafkabroker.WithDir(filepath.Join(dir, "broker")), kafkabroker.WithStartTimeout(timeout))
	b, err := kafkabroker.Start(ctx, opts...)
	if err != nil {
		return err
	}
	defer b.Stop()
	defer os.Remove(filepath.Join(dir, "bootstrap"))
	tmp := filepath.Join(dir, "bootstrap.tmp")
	if err := os.WriteFile(tmp, []byte(b.Addr()+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "bootstrap")); err != nil {
		return err
	}
	fmt.Printf("broker %s serving at %s (pid %d); watching pid %d\n", b.Dir(), b.Addr(), b.PID(), watch)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Println("stopping: signalled")
			return nil
		case <-b.Done():
			return errors.New("the broker exited on its own; see " + b.LogPath())
		case <-tick.C:
			if watch > 0 && !alive(watch) {
				fmt.Printf("stopping: process %d is gone\n", watch)
				return nil
			}
		}
	}
}

// down stops the background process (which stops the broker) and waits
// for it to go.
func down(dir string) error {
	pid, err := readPID(dir)
	if err != nil {
		return fmt.Errorf("no broker for %s: %w", dir, err)
	}
	defer os.Remove(filepath.Join(dir, "pid"))
	if !alive(pid) {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for range 200 {
		if !alive(pid) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL) // its broker dies with it (Pdeathsig)
	return fmt.Errorf("pid %d did not stop within 20 s; killed", pid)
}

func readPID(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// alive reports whether pid is a running process (not a zombie).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust the signal
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
