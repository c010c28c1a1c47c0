package loadsource_test

import (
	"context"
	"errors"
	"maps"
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

func (f *fakeConnector) connect(c kafkaconn.Config) (loadsource.Offsets, func(), error) {
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

// policy is the load clusters a policy declares, as reloads change them.
type policy struct {
	mu sync.Mutex
	m  map[string]kafkaconn.Config
}

// declare sets the cluster name's connection (to brokers, over TLS when
// tls) and returns the cluster as a rule selects it.
func (p *policy) declare(name, brokers string, tls bool) selection.LoadCluster {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]kafkaconn.Config{}
	}
	p.m[name] = kafkaconn.Config{Brokers: brokers, TLS: tls}
	return selection.LoadCluster{Name: name}
}

func (p *policy) remove(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, name)
}

func (p *policy) current() map[string]kafkaconn.Config {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.m)
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
	var p policy
	cs := loadsource.NewClusters(loadsource.NewBook(), p.current, loadsource.WithConnector(f.connect), loadsource.WithMaxSources(2),
		loadsource.WithIdleClose(time.Minute), loadsource.WithSourceOptions(loadsource.WithInterval(time.Hour)))
	now := time.Now()
	east := p.declare("east", "e:1", false)
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
	_, _, _ = cs.Weights(p.declare("east", "e:2", true), []string{"t"}, now)
	_, _, _ = cs.Weights(p.declare("west", "w:1", false), []string{"t"}, now)
	north := p.declare("north", "n:1", false)
	if _, _, err := cs.Weights(north, nil, now); !errors.Is(err, loadsource.ErrTooManyClusters) {
		t.Fatalf("a third cluster: %v, want ErrTooManyClusters", err)
	}
	if _, _, err := cs.Weights(p.declare("west", "bad:1", false), nil, now); err == nil {
		t.Fatal("a cluster that cannot connect answered")
	}
	if _, _, err := cs.Weights(selection.LoadCluster{Name: "south"}, nil, now); !errors.Is(err, loadsource.ErrUnknownCluster) {
		t.Fatalf("a cluster the policy does not declare: %v, want ErrUnknownCluster", err)
	}
	p.remove("west")
	// west was replaced by the failing config: it is gone.
	// east is idle for two minutes while north is asked for: the sweep
	// closes it.
	_, _, _ = cs.Weights(north, nil, now.Add(2*time.Minute))
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
	var p policy
	east, west := p.declare("east", "e:1", false), p.declare("west", "w:1", false)
	cs := loadsource.NewClusters(loadsource.NewBook(), p.current, loadsource.WithConnector(f.connect),
		loadsource.WithSourceOptions(loadsource.WithInterval(time.Hour)), loadsource.WithSweep(time.Hour))
	defer cs.Close()
	now := time.Now()
	_, _, _ = cs.Weights(east, nil, now)
	_, _, _ = cs.Weights(west, nil, now)
	cs.Sweep(now)
	if cs.Len() != 2 {
		t.Fatalf("%d sources after a sweep with both declared, want 2", cs.Len())
	}
	p.declare("east", "e:2", false) // a reload: west removed, east changed
	p.remove("west")
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
