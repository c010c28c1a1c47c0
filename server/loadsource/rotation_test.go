package loadsource_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/server/selection"
)

// readingConnector reads the cluster's credential files when it
// connects, as Dial does, and keeps what each connection read.
type readingConnector struct {
	mu     sync.Mutex
	reads  []string // the password each connection read
	closed int
}

func (r *readingConnector) connect(c kafkaconn.Config) (loadsource.Offsets, func(), error) {
	pass, err := os.ReadFile(c.SASLPasswordFile)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.ReadFile(c.CAFile); err != nil {
		return nil, nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads = append(r.reads, strings.TrimSpace(string(pass)))
	list := func(context.Context, ...string) (kadm.ListedOffsets, error) { return kadm.ListedOffsets{}, nil }
	return list, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.closed++
	}, nil
}

func (r *readingConnector) state() (reads []string, closed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reads...), r.closed
}

// Rotated credentials take effect without a restart: when the CA or the
// password file of a cluster changes on disk while the policy entry stays
// the same, the next sweep replaces the source, whose new connection reads
// the new files; an unchanged file replaces nothing.
func TestClustersFollowRotatedCredentials(t *testing.T) {
	dir := t.TempDir()
	caFile, passFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "password")
	write := func(path, content string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		// A distinct modification time, whatever the file system's
		// resolution: a rotation to content of the same size shows.
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	write(caFile, "ca-1", t0)
	write(passFile, "old\n", t0)

	r := &readingConnector{}
	conn := kafkaconn.Config{Brokers: "eu:1", CAFile: caFile, SASLMechanism: "plain", SASLUser: "u", SASLPasswordFile: passFile}
	lc := selection.LoadCluster{Name: "eu"}
	cs := loadsource.NewClusters(loadsource.NewBook(), func() map[string]kafkaconn.Config { return map[string]kafkaconn.Config{"eu": conn} },
		loadsource.WithConnector(r.connect), loadsource.WithSweep(time.Hour),
		loadsource.WithSourceOptions(loadsource.WithInterval(time.Hour)))
	defer cs.Close()
	now := time.Now()
	_, _, _ = cs.Weights(lc, []string{"t"}, now)

	waitClosed := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if _, closed := r.state(); closed == want {
				return
			}
			if time.Now().After(deadline) {
				_, closed := r.state()
				t.Fatalf("%d connections closed, want %d", closed, want)
			}
		}
	}
	for _, step := range []struct {
		name   string
		rotate func()
		reads  []string
	}{
		{"nothing changed", func() {}, []string{"old"}},
		{"the password rotated", func() { write(passFile, "new\n", t0.Add(time.Minute)) }, []string{"old", "new"}},
		{"the CA rotated, same size", func() { write(caFile, "ca-2", t0.Add(2*time.Minute)) }, []string{"old", "new", "new"}},
		{"nothing changed since", func() {}, []string{"old", "new", "new"}},
	} {
		step.rotate()
		cs.Sweep(now)
		reads, _ := r.state()
		if len(reads) != len(step.reads) || reads[len(reads)-1] != step.reads[len(step.reads)-1] {
			t.Fatalf("%s: connections read %q, want %q", step.name, reads, step.reads)
		}
		waitClosed(len(step.reads) - 1)
		if cs.Len() != 1 {
			t.Fatalf("%s: %d sources, want 1", step.name, cs.Len())
		}
	}
	// A file that disappears is a change too: the new connection fails,
	// the source is gone, and the next call reports the reason.
	if err := os.Remove(passFile); err != nil {
		t.Fatal(err)
	}
	cs.Sweep(now)
	waitClosed(3)
	if _, _, err := cs.Weights(lc, []string{"t"}, now); err == nil {
		t.Fatal("a cluster whose password file is gone answered")
	}
}
