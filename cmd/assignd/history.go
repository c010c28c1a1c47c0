package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/kafkalog"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/server/policy"
)

// historyConfig is the configuration of the group history: its
// in-memory bounds, the inputs kept, the signals' thresholds and sharing
// through the history topic (docs/observatory.md).
type historyConfig struct {
	decisions         int
	groups            int
	inputs            int
	inputBytes        int64
	maxBytes          int64
	thresholds        string
	topic             string
	replica           string
	partitions        int
	replicationFactor int
	retention         time.Duration
	buffer            int
	maxRecordBytes    int
	kafka             kafkaConn // the history topic's cluster
}

func historyFlags(fs *flag.FlagSet, c *config) {
	h := &c.history
	fs.IntVar(&h.decisions, "history-decisions", history.DefaultDecisionsPerGroup,
		"decisions kept in memory per group for GroupHistoryService, assignctl groups and describe, and the console (docs/observatory.md); 0 keeps no history")
	fs.IntVar(&h.groups, "history-groups", history.DefaultMaxGroups,
		"groups whose decisions are kept; beyond it the least recently seen group is forgotten; 0 keeps no history")
	fs.Int64Var(&h.maxBytes, "history-bytes", history.DefaultMaxBytes,
		"`bytes` of memory the history may hold, decisions, groups' state and inputs together, as it counts them when recording; beyond it the least recently seen groups are forgotten")
	fs.IntVar(&h.inputs, "history-inputs", history.DefaultInputsPerGroup, "latest inputs (AssignRequests) kept per group, for replaying them; 0 keeps none")
	fs.Int64Var(&h.inputBytes, "history-input-bytes", history.DefaultInputBytes, "`bytes` the kept inputs of all groups may take; beyond it the oldest are forgotten")
	fs.StringVar(&h.thresholds, "history-thresholds", "", "signal thresholds as `key=value,...`: storm-rebalances, storm-per-member, storm-window, flap-joins, gap-window, "+
		"stuck-after, imbalance, rebalances-per-hour, unowned (docs/observatory.md); unset keys keep their defaults")
	fs.StringVar(&h.topic, "history-topic", bus.DefaultTopic, "Kafka `topic` of the shared history, the staged rollouts' records and the weight snapshots; created when missing")
	fs.StringVar(&h.replica, "history-replica", "", "this replica's `name` on its history records; empty: the host name")
	fs.IntVar(&h.partitions, "history-partitions", bus.DefaultPartitions, "partitions of the history topic, when assignd creates it")
	fs.IntVar(&h.replicationFactor, "history-replication-factor", bus.DefaultReplicationFactor, "replication factor of the history topic, when assignd creates it; -1: the broker's default")
	fs.DurationVar(&h.retention, "history-retention", bus.DefaultRetention, "retention.ms of the history topic, when assignd creates it: how far back a restarted replica reads")
	fs.IntVar(&h.buffer, "history-buffer", bus.DefaultBuffer, "history topic `records` that may wait for Kafka; beyond it they are dropped and counted, Assign never waits")
	fs.IntVar(&h.maxRecordBytes, "history-max-record-bytes", bus.DefaultMaxRecordBytes, "largest history topic record in `bytes`; a decision whose input would make it larger is shared without its input")
	h.kafka.register(fs, "history", "Kafka bootstrap `brokers` (host:port,...) of the history topic: every replica produces its decisions to --history-topic and reads the whole topic; "+
		"empty keeps the history in this process", "history brokers")
}

// on reports whether the history is kept at all.
func (c *historyConfig) on() bool { return c.decisions > 0 && c.groups > 0 }

// shared reports whether the history is shared through Kafka.
func (c *historyConfig) shared() bool { return c.kafka.conn.Brokers != "" }

func (c *historyConfig) validate() error {
	switch {
	case c.decisions < 0 || c.groups < 0 || c.inputs < 0 || c.inputBytes < 0:
		return errors.New("--history-decisions, --history-groups, --history-inputs and --history-input-bytes must not be negative")
	case c.on() && c.maxBytes < 1:
		return errors.New("--history-bytes must be positive (--history-decisions 0 keeps no history)")
	case c.buffer < 1 || c.maxRecordBytes < 1024 || c.partitions < 1 || c.retention <= 0:
		return errors.New("--history-buffer, --history-partitions and --history-retention must be positive, --history-max-record-bytes at least 1024")
	case c.shared() && !c.on():
		// Without a history there is no history log: each replica would
		// decide its staged rollouts alone (docs/staged-rollouts.md).
		return errors.New("--history-brokers shares the history and the staged rollouts' agreed step through Kafka: it needs --history-decisions and --history-groups above 0")
	}
	if c.replica == "" {
		c.replica, _ = os.Hostname()
	}
	if err := c.kafka.validate(); err != nil {
		return err
	}
	_, err := parseThresholds(c.thresholds)
	return err
}

// parseThresholds reads --history-thresholds.
func parseThresholds(s string) (history.Thresholds, error) {
	var t history.Thresholds
	if s == "" {
		return t, nil
	}
	ints := map[string]*int{
		"storm-rebalances": &t.StormRebalances, "storm-per-member": &t.StormPerMember, "flap-joins": &t.FlapJoins,
		"imbalance": &t.Imbalance, "topic-imbalance": &t.TopicImbalance, "rebalances-per-hour": &t.RebalancesPerHour,
	}
	durations := map[string]*time.Duration{
		"storm-window": &t.StormWindow, "gap-window": &t.GapWindow, "stuck-after": &t.StuckAfter, "unowned": &t.Unowned,
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		var err error
		switch {
		case !ok:
			err = errors.New("want key=value")
		case ints[k] != nil:
			*ints[k], err = strconv.Atoi(v)
			if err == nil && *ints[k] < 1 {
				err = errors.New("must be at least 1")
			}
		case durations[k] != nil:
			*durations[k], err = time.ParseDuration(v)
			if err == nil && *durations[k] <= 0 {
				err = errors.New("must be positive")
			}
		default:
			err = errors.New("unknown key")
		}
		if err != nil {
			return t, fmt.Errorf("--history-thresholds %q: %w", kv, err)
		}
	}
	return t, nil
}

// newHistory builds the history Store of the flags and, with
// --history-brokers, the bus of the history topic, not started, that
// shares the Store's records and book's weight snapshots. The returned
// function closes them (it does nothing without a bus).
func newHistory(hc historyConfig, logger *slog.Logger, mp metric.MeterProvider, book *loadsource.Book) (*history.Store, *bus.Bus, func(), error) {
	t, err := parseThresholds(hc.thresholds)
	if err != nil {
		return nil, nil, nil, err
	}
	opts := []history.Option{
		history.WithDecisionsPerGroup(hc.decisions), history.WithMaxGroups(hc.groups),
		history.WithInputs(hc.inputs, hc.inputBytes), history.WithMaxBytes(hc.maxBytes), history.WithThresholds(t), history.WithReplica(hc.replica),
	}
	if !hc.shared() {
		h, err := history.New(opts...)
		return h, nil, func() {}, err
	}
	if _, err := hc.kafka.opts(); err != nil { // the files load, or the flag at fault is named
		return nil, nil, nil, err
	}
	logger = logger.With("component", "history")
	b, err := bus.New(hc.kafka.conn, bus.WithTopic(hc.topic), bus.WithTopicCreation(int32(hc.partitions), int16(hc.replicationFactor), hc.retention),
		bus.WithBuffer(hc.buffer), bus.WithMaxRecordBytes(hc.maxRecordBytes), bus.WithLogger(logger), bus.WithMeterProvider(mp))
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := kafkalog.New(b)
	if err != nil {
		b.Close()
		return nil, nil, nil, err
	}
	h, err := history.New(append(opts, history.WithPublisher(l))...)
	if err != nil {
		b.Close()
		return nil, nil, nil, err
	}
	book.ShareOn(b, hc.replica, logger)
	l.Start(h)
	logger.Info("history shared through Kafka", "brokers", hc.kafka.conn.Brokers, "topic", hc.topic, "replica", hc.replica)
	return h, b, func() { l.Close(); b.Close() }, nil
}

// shadowRecorder records the policy's shadow runs in h.
func shadowRecorder(h *history.Store) func(context.Context, policy.ShadowRun) {
	return func(_ context.Context, r policy.ShadowRun) {
		h.Record(history.ShadowDecision(history.Shadow{
			Time: time.Now(), Group: r.Group, ProtocolName: r.ProtocolName, Assignor: r.Shadow,
			Rule: r.Rule, Revision: r.Revision, Input: r.Input, Result: r.Result, Took: r.Took,
		}))
	}
}
