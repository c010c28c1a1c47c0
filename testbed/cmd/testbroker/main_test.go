//go:build unix

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/testbed/kafkabroker"
)

// TestMain lets the test binary stand in for testbroker: up starts
// os.Executable() with "serve", and the variable makes that run main.
func TestMain(m *testing.M) {
	if os.Getenv("TESTBROKER_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestUpDown: up returns once the broker serves, with its address in
// DIR/bootstrap; a client can use it; down stops it and its port closes.
func TestUpDown(t *testing.T) {
	if os.Getenv("ASSIGND_BROKER") != "kafka" {
		t.Skip("starts a real Kafka broker: set ASSIGND_BROKER=kafka (and run scripts/kafka-jars.sh)")
	}
	if err := kafkabroker.Available(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESTBROKER_AS_MAIN", "1")
	dir := t.TempDir()
	if err := run([]string{"up", "-watch", itoa(os.Getpid()), dir}); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = run([]string{"down", dir})
		}
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "testbroker.log"))
			t.Logf("testbroker.log:\n%s", log)
		}
	})
	b, err := os.ReadFile(filepath.Join(dir, "bootstrap"))
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(string(b))
	if err := run([]string{"up", dir}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("a second up on the same directory: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := kafkabroker.CreateTopics(ctx, addr, map[string]int32{"t": 2}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	err = cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr()
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}

	if err := run([]string{"down", dir}); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if _, err := os.Stat(filepath.Join(dir, "pid")); !os.IsNotExist(err) {
		t.Errorf("DIR/pid after down: %v", err)
	}
	// The JVM dies with the background process (killed group, and
	// Pdeathsig); its listener goes with it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the broker still listens on %s after down", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// -cp and -set reach serve as they were given, and a -set without '=' is
// refused before anything starts.
func TestExtraFlags(t *testing.T) {
	ex := extra{classpath: repeated{"a.jar", "lib"}, settings: repeated{"group.consumer.assignors=uniform,x.Y", "k=v=w"}}
	want := []string{"-cp", "a.jar", "-cp", "lib", "-set", "group.consumer.assignors=uniform,x.Y", "-set", "k=v=w"}
	if got := ex.args(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("args = %q, want %q", got, want)
	}
	if opts, err := ex.options(); err != nil || len(opts) != 3 {
		t.Errorf("options: %d, %v; want 3 (classpath, two settings)", len(opts), err)
	}
	if err := run([]string{"up", "-set", "novalue", t.TempDir()}); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
		t.Errorf("-set novalue: %v", err)
	}
}
