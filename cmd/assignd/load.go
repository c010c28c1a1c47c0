package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/server/loadsource"
)

// startLoadSource samples the log-end offsets of the cluster at brokers
// every interval, in the background, until stop is called or ctx ends; conn
// gives the connection's TLS and SASL. Its samples go to book, as the
// default cluster's ("").
func startLoadSource(ctx context.Context, brokers string, interval time.Duration, conn *kafkaConn, logger *slog.Logger, book *loadsource.Book) (src *loadsource.Source, stop func(), err error) {
	if interval <= 0 {
		return nil, nil, fmt.Errorf("--load-interval: %s is not positive", interval)
	}
	opts, err := conn.opts()
	if err != nil {
		return nil, nil, err
	}
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(strings.Split(brokers, ",")...))...)
	if err != nil {
		return nil, nil, fmt.Errorf("--load-brokers: %w", err)
	}
	src = loadsource.New(kadm.NewClient(cl).ListEndOffsets, loadsource.WithInterval(interval), loadsource.WithStaleAfter(4*interval), loadsource.WithBook(book, ""))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		src.Run(ctx, func(err error) { logger.Warn("load sample", "err", err) })
	}()
	return src, func() { cancel(); <-done; cl.Close() }, nil
}
