package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/contains"
	"github.com/assignd/assignd/testbed/grouplab"
)

// TestDemo runs the whole demo, small: two consumers, a rolling restart
// with assignd down for one restart.
func TestDemo(t *testing.T) {
	ctx := grouplab.Budget(t, "runs an in-process Kafka broker", 60*time.Second)
	d := defaultDemo()
	d.members, d.partitions = 2, 6
	d.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	var out bytes.Buffer
	if err := run(ctx, &out, d); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	contains.All(t, "the output", got,
		"c1 starts (shim balancer)",
		"balances as leader via service",
		"balances as leader via fallback (Unavailable)",
		"[follow-up]",
		"-- settled in generation",
		"c2' starts",
		"No partition was ever owned by two consumers at once.",
	)
}

func TestDemoRejectsBadFlags(t *testing.T) {
	for _, d := range []demo{
		{members: 0, partitions: 6, heartbeat: time.Second},
		{members: 2, partitions: 0, heartbeat: time.Second},
		{members: 2, partitions: 6, heartbeat: 0},
	} {
		if err := run(context.Background(), io.Discard, d); err == nil {
			t.Errorf("%+v ran", d)
		}
	}
}
