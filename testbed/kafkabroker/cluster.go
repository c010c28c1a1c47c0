package kafkabroker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/testbed/loopback"
)

// Cluster is several running Kafka nodes, each a combined broker and
// KRaft controller, all of them voters of one static controller quorum.
type Cluster struct {
	nodes     []*Broker // by node id - 1
	dir       string
	removeDir bool

	stopOnce sync.Once
	stopErr  error
}

// clusterSettings are what a cluster of n nodes changes in
// [DefaultConfig]: internal and new topics replicated to every node (at
// most three), and a write acknowledged by all in-sync replicas needs two
// of them, so that the loss of any one node loses no acknowledged record
// and stops no writer.
func clusterSettings(n int) map[string]string {
	rf := strconv.Itoa(min(n, 3))
	isr := strconv.Itoa(min(n-1, 2))
	return map[string]string{
		"default.replication.factor":                       rf,
		"min.insync.replicas":                              isr,
		"offsets.topic.replication.factor":                 rf,
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    isr,
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            isr,
	}
}

// StartCluster formats and starts n nodes (2 ≤ n ≤ 9) on free loopback
// ports and returns once every node answers metadata requests and lists
// all n brokers, bounded by ctx and [WithStartTimeout]. Every option of
// [Start] applies to each node but [WithTap]; [WithDir] is the cluster's
// directory, which holds one directory per node (node-1, ...). The
// settings are [DefaultConfig]'s with topics replicated to three nodes and
// two in-sync replicas required ([WithConfig] overrides either). On
// failure nothing is left running.
func StartCluster(ctx context.Context, n int, opts ...Option) (*Cluster, error) {
	if n < 2 || n > 9 {
		return nil, fmt.Errorf("kafkabroker: a cluster of %d nodes: want 2 to 9", n)
	}
	cfg := defaultConfig()
	cfg.heap = "384m"
	for k, v := range clusterSettings(n) {
		cfg.settings[k] = v
	}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.tap {
		return nil, errors.New("kafkabroker: WithTap is for a single broker, not a cluster")
	}
	rt, err := cfg.jvmEnv()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.startTimeout)
	defer cancel()
	c := &Cluster{}
	if c.dir, c.removeDir, err = workDir(cfg.dir); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()

	ports, err := loopback.FreePorts(2 * n)
	if err != nil {
		return nil, err
	}
	controllers := make([]string, n)
	voters := make([]string, n)
	for i := range n {
		controllers[i] = fmt.Sprintf("127.0.0.1:%d", ports[2*i+1])
		voters[i] = fmt.Sprintf("%d@%s", i+1, controllers[i])
	}
	q := quorum{voters: strings.Join(voters, ",")}
	for i := range n {
		dir := filepath.Join(c.dir, fmt.Sprintf("node-%d", i+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		b := &Broker{id: int32(i + 1), dir: dir, exited: make(chan struct{})}
		b.brokerAddr = fmt.Sprintf("127.0.0.1:%d", ports[2*i])
		b.addr = b.brokerAddr
		c.nodes = append(c.nodes, b)
	}
	id, err := newClusterID()
	if err != nil {
		return nil, err
	}
	// The nodes format, start and elect a controller together: a node
	// waits for a quorum of voters before it serves.
	if err := c.each(func(b *Broker) error {
		if err := b.format(ctx, rt, cfg.settings, controllers[b.id-1], q, id); err != nil {
			return err
		}
		return b.launch(rt)
	}); err != nil {
		return nil, err
	}
	if err := c.each(func(b *Broker) error { return b.waitServing(ctx) }); err != nil {
		return nil, err
	}
	if err := c.waitBrokers(ctx); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// each runs fn on every node at once and returns the first error.
func (c *Cluster) each(fn func(*Broker) error) error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, b := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(b); err != nil {
				errs[i] = fmt.Errorf("node %d: %w", b.id, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// waitBrokers waits until the metadata lists every node as a broker.
func (c *Cluster) waitBrokers(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Seeds()...))
	if err != nil {
		return err
	}
	defer cl.Close()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	seen := 0
	for {
		if resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err == nil {
			if seen = len(resp.Brokers); seen == len(c.nodes) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkabroker: %d of %d brokers registered: %w", seen, len(c.nodes), ctx.Err())
		case <-tick.C:
		}
	}
}

// Nodes are the cluster's nodes, in node id order (1, 2, ...).
func (c *Cluster) Nodes() []*Broker { return c.nodes }

// Node is the node with the given id, or nil.
func (c *Cluster) Node(id int32) *Broker {
	if id < 1 || int(id) > len(c.nodes) {
		return nil
	}
	return c.nodes[id-1]
}

// Seeds are every node's bootstrap address.
func (c *Cluster) Seeds() []string {
	out := make([]string, len(c.nodes))
	for i, b := range c.nodes {
		out[i] = b.Addr()
	}
	return out
}

// Addr is the bootstrap list, host:port,host:port,..., as Kafka clients
// and assignd's --history-brokers take it.
func (c *Cluster) Addr() string { return strings.Join(c.Seeds(), ",") }

// Dir is the cluster's directory: a directory per node.
func (c *Cluster) Dir() string { return c.dir }

// Stop kills every node that still runs (bounded, as [Broker.Stop]) and
// removes the directory if StartCluster created it. It is safe to call
// more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		var errs []error
		for _, b := range c.nodes {
			errs = append(errs, b.Stop())
		}
		if c.removeDir {
			errs = append(errs, os.RemoveAll(c.dir))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// StopOnCleanup stops the cluster when the test ends, and first logs the
// end of each node's log if the test failed.
func (c *Cluster) StopOnCleanup(t T) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			for _, b := range c.nodes {
				t.Logf("Kafka node %d's log (%s), last 80 lines:\n%s", b.id, b.LogPath(), b.LogTail(80))
			}
		}
		if err := c.Stop(); err != nil {
			t.Logf("stopping the Kafka cluster: %v", err)
		}
	})
}
