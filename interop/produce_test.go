//go:build unix

package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/grouplab"
)

// produceMarkers writes n records with distinct values to every partition
// of topics (grouplab.ProduceMarkers) and returns the values by partition.
func produceMarkers(t *testing.T, brokers []string, topics map[string]int32, phase string, n int) map[tp][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := grouplab.ProduceMarkers(ctx, brokers, topics, phase, n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkPhase waits until every marker was consumed and then checks that
// each was consumed exactly once, by the member that owns its partition.
// It is meant for a stable group: no partition moves while it runs.
func checkPhase(t *testing.T, led *ledger, markers map[tp][]string, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, "every marker record to be consumed", func() bool {
		for _, vs := range markers {
			for _, v := range vs {
				if len(led.ConsumersOf(v)) == 0 {
					return false
				}
			}
		}
		return true
	}, func() string { return missing(led, markers) }, led.History)
	owners := led.Owners()
	for p, vs := range markers {
		for _, v := range vs {
			cs := led.ConsumersOf(v)
			if len(cs) != 1 {
				who := make([]string, len(cs))
				for i, c := range cs {
					who[i] = c.Member
				}
				t.Errorf("record %q consumed %d times (by %v), want exactly once", v, len(cs), who)
				continue
			}
			if cs[0].Member != owners[p] {
				t.Errorf("record %q consumed by %s, but %s owns %s", v, cs[0].Member, owners[p], p)
			}
		}
	}
}

func missing(led *ledger, markers map[tp][]string) string {
	var b strings.Builder
	b.WriteString("not consumed:")
	n := 0
	for _, vs := range markers {
		for _, v := range vs {
			if len(led.ConsumersOf(v)) == 0 && n < 20 {
				b.WriteString(" " + v)
				n++
			}
		}
	}
	return b.String()
}
