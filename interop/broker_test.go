//go:build unix

package interop

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/testbed/grouplab"
)

// sessionTimeout is the group session timeout of every member. No test
// relies on a session expiring (every member leaves with LeaveGroup), so it
// is long enough to ride out a stalled process on a loaded 2-core machine:
// KafkaJS heartbeats only between fetches, and a member that misses its
// session is kicked out with its partitions still in hand.
const sessionTimeout = 10 * time.Second

// startBroker starts a broker on 127.0.0.1 with the given topics (name →
// partitions) and a groupWatch observing it: kfake, or with
// ASSIGND_BROKER=kafka the test binary's real Kafka broker
// (grouplab.StartBroker). On a failure the real broker's log ends the
// test's output.
func startBroker(t *testing.T, topics map[string]int32) (*grouplab.Broker, *groupWatch) {
	t.Helper()
	kind, err := grouplab.BrokerFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	var ts []grouplab.Topic
	for _, name := range slices.Sorted(maps.Keys(topics)) {
		ts = append(ts, grouplab.Topic{Name: name, Partitions: topics[name]})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := grouplab.StartBroker(ctx, kind, ts)
	if err != nil {
		t.Fatalf("starting the broker: %v", err)
	}
	t.Cleanup(func() {
		if log := b.LogTail(100); t.Failed() && log != "" {
			t.Logf("the Kafka broker's log, last 100 lines:\n%s", log)
		}
		b.Close()
	})
	return b, watchGroups(b)
}

// joinSeen is one JoinGroup request as the coordinator received it.
type joinSeen struct {
	at       time.Time
	memberID string // empty on a member's very first join
	// protocols maps protocol name → the raw subscription offered for it.
	protocols map[string][]byte
}

// syncSeen is one leader's SyncGroup request: its plan for a generation.
type syncSeen struct {
	at         time.Time
	generation int32
	leader     string
	// plan maps member id → the raw assignment the leader sent it.
	plan map[string][]byte
}

// groupWatch records the JoinGroup, SyncGroup and LeaveGroup requests of
// every group through the broker's observer (kfake's control hooks, or the
// real broker's tap), without handling them: the broker's view of who
// offered what and which plan each leader sent.
type groupWatch struct {
	mu     sync.Mutex
	joins  []joinSeen
	syncs  []syncSeen
	leaves []string
}

func watchGroups(b *grouplab.Broker) *groupWatch {
	w := new(groupWatch)
	b.Observe(func(r kmsg.Request) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch req := r.(type) {
		case *kmsg.JoinGroupRequest:
			w.join(req)
		case *kmsg.SyncGroupRequest:
			w.sync(req)
		case *kmsg.LeaveGroupRequest:
			w.leave(req)
		}
	}, kmsg.JoinGroup, kmsg.SyncGroup, kmsg.LeaveGroup)
	return w
}

func (w *groupWatch) join(req *kmsg.JoinGroupRequest) {
	j := joinSeen{at: time.Now(), memberID: req.MemberID, protocols: make(map[string][]byte)}
	for _, p := range req.Protocols {
		j.protocols[p.Name] = slices.Clone(p.Metadata)
	}
	w.joins = append(w.joins, j)
}

func (w *groupWatch) sync(req *kmsg.SyncGroupRequest) {
	if len(req.GroupAssignment) == 0 {
		return // a follower
	}
	s := syncSeen{at: time.Now(), generation: req.Generation, leader: req.MemberID, plan: make(map[string][]byte)}
	for _, a := range req.GroupAssignment {
		s.plan[a.MemberID] = slices.Clone(a.MemberAssignment)
	}
	w.syncs = append(w.syncs, s)
}

func (w *groupWatch) leave(req *kmsg.LeaveGroupRequest) {
	if req.MemberID != "" {
		w.leaves = append(w.leaves, req.MemberID)
	}
	for _, m := range req.Members {
		w.leaves = append(w.leaves, m.MemberID)
	}
}

// leaderSyncs returns the leader SyncGroups seen so far, oldest first.
func (w *groupWatch) leaderSyncs() []syncSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.syncs)
}

// lastJoinBefore returns the subscription member offered for protocol in
// its last JoinGroup before at.
func (w *groupWatch) lastJoinBefore(member, protocol string, at time.Time) ([]byte, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.joins) - 1; i >= 0; i-- {
		j := w.joins[i]
		if j.memberID == member && !j.at.After(at) {
			meta, ok := j.protocols[protocol]
			return meta, ok
		}
	}
	return nil, false
}

// left reports whether member sent LeaveGroup.
func (w *groupWatch) left(member string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.leaves, member)
}

// joinsOf returns every JoinGroup member sent, oldest first.
func (w *groupWatch) joinsOf(member string) []joinSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []joinSeen
	for _, j := range w.joins {
		if j.memberID == member {
			out = append(out, j)
		}
	}
	return out
}

// decodePlan decodes every assignment of a leader's plan.
func decodePlan(t *testing.T, s syncSeen) map[string]tpSet {
	t.Helper()
	out := make(map[string]tpSet, len(s.plan))
	for member, raw := range s.plan {
		a, err := wire.DecodeAssignment(raw)
		if err != nil {
			t.Fatalf("generation %d: leader %s sent member %s an undecodable assignment: %v", s.generation, s.leader, member, err)
		}
		out[member] = setOf(a.Partitions)
	}
	return out
}
