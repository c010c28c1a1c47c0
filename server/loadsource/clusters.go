package loadsource

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/selection"
)

// Connector connects to a policy's load cluster: it returns how to list
// its log-end offsets and how to close the connection. It must not block
// on the network.
type Connector func(c kafkaconn.Config) (list Offsets, close func(), err error)

// Dial is the default [Connector], and --load-brokers' connection: a
// franz-go client with the cluster's brokers, TLS and SASL, listing
// offsets with kadm.
func Dial(c kafkaconn.Config) (Offsets, func(), error) {
	opts, err := c.Opts()
	if err != nil {
		return nil, nil, err
	}
	cl, err := kgo.NewClient(append(opts, kgo.ClientID("assignd-load"))...)
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl).ListEndOffsets, cl.Close, nil
}

// ErrUnknownCluster is returned by [Clusters.Weights] for a cluster the
// current policy does not declare (see [NewClusters]).
var ErrUnknownCluster = errors.New("load cluster not declared")

// ErrTooManyClusters is returned by [Clusters.Weights] for a cluster
// beyond the cap on sources.
var ErrTooManyClusters = errors.New("too many load clusters")

// errClosed is returned by [Clusters.Weights] after Close.
var errClosed = errors.New("load clusters closed")

// Clusters keeps one [Source] per load cluster that policy rules name
// (load_clusters, params.load_cluster), each sampling in the background
// into one [Book]. A source starts when a rule first asks for its
// cluster; it is replaced when a policy reload changes the cluster's
// brokers or connection, and closed at the next sweep when a reload
// removed it ([NewClusters]) or no rule asked for it during the idle time,
// or on Close. Their number is capped. A rotated credential file needs no
// new source: the connection reads the files again for each new broker
// connection (internal/kafkaconn's Config.Opts).
type Clusters struct {
	book    *Book
	opts    []Option
	max     int
	idle    time.Duration
	report  func(cluster string, err error)
	connect Connector
	current func() map[string]kafkaconn.Config
	sweep   time.Duration
	stopJan context.CancelFunc

	mu      sync.Mutex
	sources map[string]*clusterSource
	closed  bool
	stops   sync.WaitGroup
}

type clusterSource struct {
	cfg  kafkaconn.Config
	src  *Source
	used time.Time
	stop func() // cancels Run, waits for it, closes the connection
}

// ClustersOption tunes [Clusters].
type ClustersOption func(*Clusters)

// WithSourceOptions are the options of every cluster's [Source]
// (interval, staleness, caps). Default: none.
func WithSourceOptions(opts ...Option) ClustersOption {
	return func(c *Clusters) { c.opts = append(c.opts, opts...) }
}

// WithMaxSources caps the clusters sampled at once. Default: 16.
func WithMaxSources(n int) ClustersOption { return func(c *Clusters) { c.max = max(n, 1) } }

// WithIdleClose closes a cluster's source when no rule asked for it
// during d. Default: 30 min.
func WithIdleClose(d time.Duration) ClustersOption { return func(c *Clusters) { c.idle = d } }

// WithReport receives the sources' sampling errors. Default: none.
func WithReport(f func(cluster string, err error)) ClustersOption {
	return func(c *Clusters) { c.report = f }
}

// WithConnector connects to the clusters. Default: [Dial].
func WithConnector(f Connector) ClustersOption { return func(c *Clusters) { c.connect = f } }

// WithSweep sets how often sources are checked against the current policy
// and the idle time, in the background. Default: 1 min.
func WithSweep(d time.Duration) ClustersOption {
	return func(c *Clusters) {
		if d > 0 {
			c.sweep = d
		}
	}
}

// NewClusters returns the sources of the policy's load clusters, sampling
// into book. current gives the clusters the current policy declares, by
// name (policy.Policy's LoadClusters): [Clusters.Weights] connects to a
// cluster as they say, and every sweep closes the sources of clusters a
// reload removed or changed, without waiting for the idle time. It
// sweeps in the background until Close.
func NewClusters(book *Book, current func() map[string]kafkaconn.Config, opts ...ClustersOption) *Clusters {
	c := &Clusters{book: book, current: current, max: 16, idle: 30 * time.Minute, connect: Dial, sweep: time.Minute, sources: map[string]*clusterSource{}}
	for _, o := range opts {
		o(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.stopJan = cancel
	c.stops.Add(1)
	go func() {
		defer c.stops.Done()
		t := time.NewTicker(c.sweep)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				c.Sweep(now)
			}
		}
	}()
	return c
}

// Sweep closes the sources of clusters the current policy no longer
// declares as they were and those idle since before now minus the idle
// time. It runs every sweep interval; tests call it.
func (c *Clusters) Sweep(now time.Time) {
	current := c.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, e := range c.sources {
		if lc, declared := current[name]; now.Sub(e.used) > c.idle || !declared || lc != e.cfg {
			c.stopLocked(name, e)
		}
	}
}

// Weights answers for a rule that reads load from lc, as
// [Source.SnapshotWeights]; it starts (or restarts, when lc changed) the
// cluster's source without waiting for Kafka: the first answers are
// [ErrNotReady] until two samples were taken.
func (c *Clusters) Weights(lc selection.LoadCluster, topics []string, now time.Time) ([]assign.TopicWeights, string, error) {
	src, err := c.source(lc.Name, now)
	if err != nil {
		return nil, "", err
	}
	return src.SnapshotWeights(topics, now)
}

func (c *Clusters) source(name string, now time.Time) (*Source, error) {
	lc, ok := c.current()[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownCluster, name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	if e, ok := c.sources[name]; ok {
		if e.cfg == lc {
			e.used = now
			return e.src, nil
		}
		c.stopLocked(name, e) // the policy changed the cluster
	}
	if len(c.sources) >= c.max {
		return nil, fmt.Errorf("%w: %d sampled already", ErrTooManyClusters, len(c.sources))
	}
	return c.startLocked(name, lc, now)
}

// startLocked connects to the cluster name as lc says and starts its
// source, as used at used.
func (c *Clusters) startLocked(name string, lc kafkaconn.Config, used time.Time) (*Source, error) {
	list, closeConn, err := c.connect(lc)
	if err != nil {
		return nil, fmt.Errorf("connecting to load cluster %s: %w", name, err)
	}
	src := New(list, append(append([]Option{}, c.opts...), WithBook(c.book, name))...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var report func(error)
		if c.report != nil {
			report = func(err error) { c.report(name, err) }
		}
		src.Run(ctx, report)
	}()
	c.sources[name] = &clusterSource{cfg: lc, src: src, used: used, stop: func() { cancel(); <-done; closeConn() }}
	return src, nil
}

// stopLocked removes a source and stops it in the background: a sample
// may be waiting for Kafka, and Assign must not.
func (c *Clusters) stopLocked(name string, e *clusterSource) {
	delete(c.sources, name)
	c.stops.Add(1)
	go func() {
		defer c.stops.Done()
		e.stop()
	}()
}

// Len is how many clusters are sampled.
func (c *Clusters) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sources)
}

// Close stops the sweeps and every source, and waits for them.
func (c *Clusters) Close() {
	c.stopJan()
	c.mu.Lock()
	c.closed = true
	for name, e := range c.sources {
		c.stopLocked(name, e)
	}
	c.mu.Unlock()
	c.stops.Wait()
}
