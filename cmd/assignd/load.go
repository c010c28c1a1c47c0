package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/assignd/assignd/server/loadsource"
)

// loadConfig configures partition load from Kafka (docs/load-aware.md):
// the cluster of --load-brokers, whose log-end offsets give rules with
// params.load_source "kafka" their load, and the sampling shared with the
// policy's load_clusters.
type loadConfig struct {
	interval time.Duration
	// margin is how long after its epoch a shared weight snapshot waits
	// before it is planned with.
	margin time.Duration
	kafka  kafkaConn
}

func loadFlags(fs *flag.FlagSet, c *config) {
	l := &c.load
	l.kafka.register(fs, "load", "comma-separated Kafka `brokers` (host:port) whose log-end offsets, sampled in the background, give "+
		"policy rules with params.load_source: kafka their partition load (docs/load-aware.md); empty reads none", "load brokers")
	fs.DurationVar(&l.interval, "load-interval", loadsource.DefaultInterval, "how often --load-brokers' (and the policy's load_clusters') log-end offsets are sampled; "+
		"also the epoch of shared weight snapshots: give every replica the same")
	fs.DurationVar(&l.margin, "load-margin", loadsource.DefaultMargin, fmt.Sprintf("with --history-brokers, how long after a sampling interval ends its shared weight snapshot waits "+
		"before replicas plan with it: time for it to reach every replica; at most %d × --load-interval (docs/load-aware.md)", marginIntervals))
}

// marginIntervals bounds --load-margin in intervals: shared, a snapshot is
// planned with once its interval ended and the margin passed, and a book
// keeps loadsource.DefaultKeep intervals; a longer margin would never plan
// with Kafka's load.
const marginIntervals = loadsource.DefaultKeep - 2

func (l *loadConfig) validate(shared bool) error {
	switch {
	case l.margin < 0:
		return fmt.Errorf("--load-margin %s: must not be negative", l.margin)
	case l.interval <= 0:
		return fmt.Errorf("--load-interval %s: must be positive", l.interval)
	case shared && l.margin > marginIntervals*l.interval:
		return fmt.Errorf("--load-margin %s: at most %d × --load-interval (%s) with --history-brokers, or no shared weight snapshot is ever planned with", l.margin, marginIntervals, l.interval)
	}
	return l.kafka.validate()
}

// startLoadSource samples the log-end offsets of the cluster of
// --load-brokers every interval, in the background, until stop is called
// or ctx ends. Its samples go to book, as the default cluster's ("").
func startLoadSource(ctx context.Context, c loadConfig, logger *slog.Logger, book *loadsource.Book) (src *loadsource.Source, stop func(), err error) {
	if c.interval <= 0 {
		return nil, nil, errors.New("--load-interval: not positive")
	}
	if _, err := c.kafka.opts(); err != nil { // the files load, or the flag at fault is named
		return nil, nil, err
	}
	list, closeConn, err := loadsource.Dial(c.kafka.conn)
	if err != nil {
		return nil, nil, fmt.Errorf("--load-brokers: %w", err)
	}
	src = loadsource.New(list, loadsource.WithInterval(c.interval), loadsource.WithBook(book, ""))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		src.Run(ctx, func(err error) { logger.Warn("load sample", "err", err) })
	}()
	return src, func() { cancel(); <-done; closeConn() }, nil
}
