package kafkabroker

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/assignd/assignd/testbed/loopback"
)

// Broker is one running Kafka broker (and KRaft controller).
type Broker struct {
	id         int32
	addr       string // what clients bootstrap from: the tap's, or the broker's
	brokerAddr string // the broker's own PLAINTEXT listener
	dir        string
	removeDir  bool
	tap        *tap

	exited  chan struct{} // closed when the JVM has exited
	waitErr error         // the JVM's exit, once exited is closed
	pid     int

	stopOnce sync.Once
	stopErr  error
}

// LogFile is the name of the broker's log (the JVM's output) in its
// directory.
const LogFile = "broker.log"

// Start formats storage and starts a broker, and returns once it answers
// metadata requests, bounded by ctx and [WithStartTimeout]. On failure
// nothing is left running and the error carries the end of the broker's
// log.
func Start(ctx context.Context, opts ...Option) (*Broker, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	rt, err := cfg.jvmEnv()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.startTimeout)
	defer cancel()

	dir, removeDir, err := workDir(cfg.dir)
	if err != nil {
		return nil, err
	}
	b := &Broker{id: 1, dir: dir, removeDir: removeDir, exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			b.Stop()
		}
	}()

	ports, err := loopback.FreePorts(2)
	if err != nil {
		return nil, err
	}
	b.brokerAddr = fmt.Sprintf("127.0.0.1:%d", ports[0])
	controller := fmt.Sprintf("127.0.0.1:%d", ports[1])
	b.addr = b.brokerAddr
	if cfg.tap {
		if b.tap, err = startTap(b.brokerAddr); err != nil {
			return nil, err
		}
		b.addr = b.tap.addr()
	}
	id, err := newClusterID()
	if err != nil {
		return nil, err
	}
	q := quorum{bootstrap: controller, standalone: true}
	if err := b.format(ctx, rt, cfg.settings, controller, q, id); err != nil {
		return nil, err
	}
	if err := b.launch(rt); err != nil {
		return nil, err
	}
	if err := b.waitServing(ctx); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// jvmEnv is what every broker JVM of one configuration runs with.
type jvmEnv struct {
	java string
	cp   string
	heap string
}

func (c *config) jvmEnv() (jvmEnv, error) {
	java, err := Java()
	if err != nil {
		return jvmEnv{}, err
	}
	lib := c.libDir
	if lib == "" {
		if lib, err = LibDir(); err != nil {
			return jvmEnv{}, err
		}
	}
	if lib, err = filepath.Abs(lib); err != nil {
		return jvmEnv{}, err
	}
	cp, err := classpath(lib, c.classpath)
	if err != nil {
		return jvmEnv{}, err
	}
	return jvmEnv{java: java, cp: cp, heap: c.heap}, nil
}

// workDir is dir, made absolute and created, or a new temporary directory
// that Stop is to remove (unless ASSIGND_KAFKA_KEEP=1).
func workDir(dir string) (string, bool, error) {
	remove := false
	if dir == "" {
		sweepTemp()
		var err error
		if dir, err = os.MkdirTemp("", fmt.Sprintf("kafkabroker-%d-", os.Getpid())); err != nil {
			return "", false, err
		}
		remove = os.Getenv("ASSIGND_KAFKA_KEEP") != "1"
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	abs, err := filepath.Abs(dir)
	return abs, remove, err
}

// jvm is the JVM's arguments before its main class.
func (b *Broker) jvm(rt jvmEnv) []string {
	return []string{
		"-Xmx" + rt.heap, "-Xms64m", "-Xss512k",
		// Tests want a quick start and little CPU on a shared machine,
		// not peak throughput: the client compiler only, the serial GC.
		"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
		"-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + filepath.Join(b.dir, "log4j2.properties"),
		"-Dkafka.logs.dir=" + b.dir,
		"-cp", rt.cp,
	}
}

func (b *Broker) propsPath() string { return filepath.Join(b.dir, "server.properties") }

// format writes the broker's settings and formats its storage for the
// cluster id.
func (b *Broker) format(ctx context.Context, rt jvmEnv, settings map[string]string, controller string, q quorum, clusterID string) error {
	if err := writeSettings(b.propsPath(), settings, b.id, b.brokerAddr, b.addr, controller, q, filepath.Join(b.dir, "data")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.dir, "log4j2.properties"), []byte(log4jSettings), 0o644); err != nil {
		return err
	}
	logf, err := os.OpenFile(b.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := append(b.jvm(rt), "kafka.tools.StorageTool", "format", "--cluster-id", clusterID, "--config", b.propsPath())
	if q.standalone {
		args = append(args, "--standalone")
	}
	format := exec.CommandContext(ctx, rt.java, args...)
	format.Dir, format.Stdout, format.Stderr = b.dir, logf, logf
	format.SysProcAttr = sysProcAttr()
	if err := format.Run(); err != nil {
		return fmt.Errorf("kafkabroker: formatting storage: %w\n%s", err, b.LogTail(40))
	}
	return nil
}

// launch starts the broker's JVM on its formatted storage.
func (b *Broker) launch(rt jvmEnv) error {
	logf, err := os.OpenFile(b.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the JVM holds its own descriptor
	cmd := exec.Command(rt.java, append(b.jvm(rt), "kafka.Kafka", b.propsPath())...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = b.dir, logf, logf
	cmd.SysProcAttr = sysProcAttr()
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the thread that started the process ends:
		// this goroutine keeps its thread until the JVM has exited, and
		// the thread ends with it (never unlocked).
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(b.exited)
			return
		}
		b.pid = cmd.Process.Pid
		started <- nil
		b.waitErr = cmd.Wait()
		close(b.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("kafkabroker: starting java: %w", err)
	}
	return nil
}

// Addr is the bootstrap address, host:port, that clients connect to.
func (b *Broker) Addr() string { return b.addr }

// Dir is the broker's directory: settings, data and log.
func (b *Broker) Dir() string { return b.dir }

// LogPath is the broker's log file.
func (b *Broker) LogPath() string { return filepath.Join(b.dir, LogFile) }

// PID is the JVM's process id, which is also its process group.
func (b *Broker) PID() int { return b.pid }

// Done is closed when the JVM has exited, for whatever reason.
func (b *Broker) Done() <-chan struct{} { return b.exited }

// Stop kills the broker's process group, waits for the JVM to exit
// (bounded) and removes the directory if Start created it. It is safe to
// call more than once.
func (b *Broker) Stop() error {
	b.stopOnce.Do(func() {
		b.stopErr = b.Kill()
		if b.tap != nil {
			b.tap.close()
		}
		if b.removeDir {
			if err := os.RemoveAll(b.dir); err != nil && b.stopErr == nil {
				b.stopErr = err
			}
		}
	})
	return b.stopErr
}

// Kill ends the broker as a crash would: SIGKILL to its process group,
// then a bounded wait for the JVM to exit. Its directory stays, and
// [Broker.Stop] is still to be called. Killing a broker that has exited
// does nothing.
func (b *Broker) Kill() error {
	if b.pid <= 0 {
		return nil
	}
	select {
	case <-b.exited:
		return nil // its process group may be gone, and its id reused
	default:
	}
	killGroup(b.pid)
	select {
	case <-b.exited:
		return nil
	case <-time.After(15 * time.Second):
		return fmt.Errorf("kafkabroker: the broker (pid %d) did not exit", b.pid)
	}
}

// NodeID is the broker's node.id: 1 for [Start]'s, 1, 2, ... in a
// [Cluster].
func (b *Broker) NodeID() int32 { return b.id }

// LogTail returns the last n lines of the broker's log.
func (b *Broker) LogTail(n int) string {
	f, err := os.Open(b.LogPath())
	if err != nil {
		return "(no broker log: " + err.Error() + ")"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > 2*n {
			lines = append(lines[:0], lines[len(lines)-n:]...)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// T is the part of testing.TB that [Broker.StopOnCleanup] uses.
type T interface {
	Helper()
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
}

// StopOnCleanup stops the broker when the test ends, and first logs the
// end of the broker's log if the test failed.
func (b *Broker) StopOnCleanup(t T) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the Kafka broker's log (%s), last 200 lines:\n%s", b.LogPath(), b.LogTail(200))
		}
		if err := b.Stop(); err != nil {
			t.Logf("stopping the Kafka broker: %v", err)
		}
	})
}

func (b *Broker) waitServing(ctx context.Context) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		select {
		case <-b.exited:
			return fmt.Errorf("kafkabroker: the broker exited before serving (%v)\n%s", b.waitErr, b.LogTail(60))
		case <-ctx.Done():
			return fmt.Errorf("kafkabroker: the broker did not serve in time (last: %v): %w\n%s", last, ctx.Err(), b.LogTail(60))
		case <-tick.C:
		}
		if last = ping(ctx, b.addr); last == nil {
			return nil
		}
	}
}

// newClusterID returns a random KRaft cluster id: a base64url UUID, as
// kafka-storage random-uuid prints, that starts with a letter or digit.
// One that starts with '-' would be read by StorageTool as a flag.
func newClusterID() (string, error) {
	for range 1000 {
		var u [16]byte
		if _, err := rand.Read(u[:]); err != nil {
			return "", err
		}
		id := base64.RawURLEncoding.EncodeToString(u[:])
		if c := id[0]; c != '-' && c != '_' {
			return id, nil
		}
	}
	return "", errors.New("kafkabroker: no cluster id")
}

// sweepTemp removes the temporary directories of brokers whose test
// binary is gone: a binary that exits without Stop (a broker shared by
// every test of a package, or a crash) cannot remove its own, though the
// kernel killed its broker (Pdeathsig).
func sweepTemp() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "kafkabroker-*-*"))
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(d), "kafkabroker-%d-", &pid); err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if !processAlive(pid) {
			_ = os.RemoveAll(d)
		}
	}
}

// classpath is the broker's jars, then the extra entries of
// [WithClasspath]: a directory stands for the jars in it.
func classpath(lib string, extra []string) (string, error) {
	cp := []string{filepath.Join(lib, "*")}
	for _, e := range extra {
		abs, err := filepath.Abs(e)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("kafkabroker: classpath entry: %w", err)
		}
		if fi.IsDir() {
			abs = filepath.Join(abs, "*")
		}
		cp = append(cp, abs)
	}
	return strings.Join(cp, string(os.PathListSeparator)), nil
}
