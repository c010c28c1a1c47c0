package loadsource_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/server/selection"
)

// fakeConnector counts connections opened and closed, by brokers.
type fakeConnector struct {
	mu             sync.Mutex
	opened, closed map[string]int
}

func (f *fakeConnector) connect(c selection.LoadCluster) (loadsource.Offsets, func(), error) {
	if c.Brokers == "bad:1" {
		return nil, nil, errors.New("no route")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opened[c.Brokers]++
	list := func(context.Context, ...string) (kadm.ListedOffsets, error) { return kadm.ListedOffsets{}, nil }
	return list, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.closed[c.Brokers]++
	}, nil
}

func (f *fakeConnector) counts(brokers string) (opened, closed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opened[brokers], f.closed[brokers]
}

// One source per cluster: kept while the cluster is unchanged, replaced
// when a reload changes it, closed when idle or on Close; their number is
// capped, and a connection error is the caller's fallback reason.
func TestClustersLifecycle(t *testing.T) {
	f := &fakeConnector{opened: map[string]int{}, closed: map[string]int{}}
	cs := loadsource.NewClusters(loadsource.NewBook(), loadsource.WithConnector(f.connect), loadsource.WithMaxSources(2),
		loadsource.WithIdleClose(time.Minute), loadsource.WithSourceOptions(loadsource.WithInterval(time.Hour)))
	now := time.Now()
	east := selection.LoadCluster{Name: "east", Brokers: "e:1"}
	for range 3 {
		// The new source samples at once, in the background: before that
		// sample the cluster has no snapshot (ErrNotReady), after it one
		// without "t" (the fake lists nothing: ErrNoSnapshot).
		if _, _, err := cs.Weights(east, []string{"t"}, now); !errors.Is(err, loadsource.ErrNotReady) && !errors.Is(err, loadsource.ErrNoSnapshot) {
			t.Fatalf("a new cluster: %v, want ErrNotReady or ErrNoSnapshot", err)
		}
	}
	if o, c := f.counts("e:1"); o != 1 || c != 0 {
		t.Fatalf("e:1 opened %d closed %d, want 1 and 0", o, c)
	}
	// A reload changes east's connection: the old source closes.
	east2 := selection.LoadCluster{Name: "east", Brokers: "e:2", Conn: kafkaconn.Config{TLS: true}}
	_, _, _ = cs.Weights(east2, []string{"t"}, now)
	west := selection.LoadCluster{Name: "west", Brokers: "w:1"}
	_, _, _ = cs.Weights(west, []string{"t"}, now)
	if _, _, err := cs.Weights(selection.LoadCluster{Name: "north", Brokers: "n:1"}, nil, now); !errors.Is(err, loadsource.ErrTooManyClusters) {
		t.Fatalf("a third cluster: %v, want ErrTooManyClusters", err)
	}
	if _, _, err := cs.Weights(selection.LoadCluster{Name: "west", Brokers: "bad:1"}, nil, now); err == nil {
		t.Fatal("a cluster that cannot connect answered")
	}
	// west was replaced by the failing config: it is gone.
	// east is idle for two minutes while north is asked for: the sweep
	// closes it.
	_, _, _ = cs.Weights(selection.LoadCluster{Name: "north", Brokers: "n:1"}, nil, now.Add(2*time.Minute))
	cs.Sweep(now.Add(2 * time.Minute))
	if cs.Len() != 1 {
		t.Fatalf("%d sources, want north only", cs.Len())
	}
	cs.Close()
	for _, b := range []string{"e:1", "e:2", "w:1", "n:1"} {
		if o, c := f.counts(b); o != 1 || c != 1 {
			t.Errorf("%s opened %d closed %d, want 1 and 1", b, o, c)
		}
	}
	if _, _, err := cs.Weights(east, nil, now); err == nil {
		t.Fatal("answered after Close")
	}
}

// A sweep closes the sources of clusters the current policy removed or
// changed, at once, and keeps the others.
func TestClustersFollowThePolicy(t *testing.T) {
	f := &fakeConnector{opened: map[string]int{}, closed: map[string]int{}}
	east := selection.LoadCluster{Name: "east", Brokers: "e:1"}
	west := selection.LoadCluster{Name: "west", Brokers: "w:1"}
	var mu sync.Mutex
	declared := []selection.LoadCluster{east, west}
	cs := loadsource.NewClusters(loadsource.NewBook(), loadsource.WithConnector(f.connect),
		loadsource.WithSourceOptions(loadsource.WithInterval(time.Hour)), loadsource.WithSweep(time.Hour),
		loadsource.WithCurrent(func() []selection.LoadCluster {
			mu.Lock()
			defer mu.Unlock()
			return declared
		}))
	defer cs.Close()
	now := time.Now()
	_, _, _ = cs.Weights(east, nil, now)
	_, _, _ = cs.Weights(west, nil, now)
	cs.Sweep(now)
	if cs.Len() != 2 {
		t.Fatalf("%d sources after a sweep with both declared, want 2", cs.Len())
	}
	mu.Lock()
	declared = []selection.LoadCluster{{Name: "east", Brokers: "e:2"}} // a reload: west removed, east changed
	mu.Unlock()
	cs.Sweep(now)
	if cs.Len() != 0 {
		t.Fatalf("%d sources after the reload's sweep, want 0", cs.Len())
	}
	cs.Close()
	for _, b := range []string{"e:1", "w:1"} {
		if o, c := f.counts(b); o != 1 || c != 1 {
			t.Errorf("%s opened %d closed %d, want 1 and 1", b, o, c)
		}
	}
}
