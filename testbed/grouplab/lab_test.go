package grouplab_test

import (
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/grouplab"
)

// TestLabRecordsAKill runs two shim members on kfake, kills one and
// checks what the lab makes of it: its partitions go to the survivor
// after the session timeout, and anything processed twice is explained by
// the killed member never committing.
func TestLabRecordsAKill(t *testing.T) {
	ctx := grouplab.Budget(t, "runs an in-process Kafka broker", 60*time.Second)
	lab, err := grouplab.New([]grouplab.Topic{{Name: "a", Partitions: 8}}, grouplab.WithSessionTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	if err := lab.StartProducing(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"m1", "m2"} {
		if _, err := lab.StartMember(n, grouplab.Shim); err != nil {
			t.Fatal(err)
		}
		if err := lab.Settle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lab.StartMember("m1", grouplab.Shim); err == nil {
		t.Error("a second m1 started")
	}
	lab.Members()[1].Kill()
	if err := lab.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lab.StopProducing(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lab.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	a := lab.Analyze()
	if p := a.Problems(true); len(p) > 0 {
		t.Fatalf("problems: %q", p)
	}
	last := a.Windows[len(a.Windows)-1]
	if last.Owned["m1"] != 8 || len(last.Moves) != 4 {
		t.Errorf("after the kill: owned %v, moves %v", last.Owned, last.Moves)
	}
	var sb strings.Builder
	grouplab.Render(&sb, lab.Timeline().Events(), a)
	if !strings.Contains(sb.String(), "m2 is killed without leaving") {
		t.Errorf("the rendering misses the kill:\n%s", sb.String())
	}
	if lab.Timeline().Produced() == 0 || lab.Members()[0].Balancer().Stats().Served == 0 {
		t.Error("nothing produced or nothing served by assignd")
	}
}
