package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

const cooperativeSticky = "cooperative-sticky"

// eagerOnly reports whether Kafka clients of this protocol name only run
// the EAGER rebalance protocol (range, roundrobin, sticky).
func eagerOnly(name string) bool {
	std, ok := assign.StandardOf(name)
	return ok && !std.Allows(assign.Cooperative)
}

// signals derives what holds for the group now, each with why, in the
// order of the GroupSignal values.
func signals(sn *snapshot, t Thresholds, now time.Time) []*assigndv1.FiredSignal {
	if len(sn.decisions) == 0 {
		return nil
	}
	latest := sn.decisions[0]
	var out []*assigndv1.FiredSignal
	fire := func(s assigndv1.GroupSignal, format string, args ...any) {
		out = append(out, &assigndv1.FiredSignal{Signal: s, Reason: fmt.Sprintf(format, args...)})
	}
	storm := min(max(t.StormRebalances, t.StormPerMember*int(latest.GetMemberCount())), StormCap)
	// A storm says every reason that holds: the count, and the member
	// that keeps coming back, which is what an operator goes after.
	var why []string
	if n := countSince(sn.times, now.Add(-t.StormWindow)); n >= storm {
		why = append(why, fmt.Sprintf("%d rebalances in the last %s (threshold %d for %d members)", n, t.StormWindow, storm, latest.GetMemberCount()))
	}
	if key, joins := flapping(sn.joins, now.Add(-t.StormWindow)); joins >= t.FlapJoins {
		why = append(why, fmt.Sprintf("member %s joined %d times in the last %s (threshold %d): it keeps leaving and coming back",
			memberNamed(key, sn.kept), joins, t.StormWindow, t.FlapJoins))
	}
	if len(why) > 0 {
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_REBALANCE_STORM, "%s", strings.Join(why, "; "))
	}
	if from, to, at := generationGap(sn.decisions); !at.IsZero() && now.Sub(at) < t.GapWindow {
		missed := "generation " + fmt.Sprint(from+1)
		if to-from > 2 {
			missed = fmt.Sprintf("generations %d to %d", from+1, to-1)
		}
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_GENERATION_GAP,
			"%s never reached assignd (generation %d followed %d at %s): the leader fell back to its local assignor, or a leader without assignd led",
			missed, to, from, stamp(at))
	}
	if since := eagerSince(sn.decisions); !since.IsZero() {
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_UNDER_COOPERATIVE,
			"protocol name %s runs EAGER since %s: the first bounce of the KIP-429 upgrade; still there after the second bounce means stuck mid-migration",
			cooperativeSticky, stamp(since))
	}
	if name := latest.GetProtocolName(); eagerOnly(name) {
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_ONLY_PROTOCOL, "protocol name %q: its clients run EAGER only; every rebalance stops the whole group", name)
		if !sn.cooperativeUntil.IsZero() {
			fire(assigndv1.GroupSignal_GROUP_SIGNAL_PROTOCOL_REGRESSION,
				"called with %q until %s, now with %q: protocol negotiation fell back to eager (a stale image or a divergent configuration on some members)",
				cooperativeSticky, stamp(sn.cooperativeUntil), name)
		}
	}
	if latest.GetFollowupRequired() {
		if age := now.Sub(latest.GetTime().AsTime()); age >= t.StuckAfter {
			fire(assigndv1.GroupSignal_GROUP_SIGNAL_STUCK_FOLLOWUP,
				"generation %d withheld %d partitions and required a follow-up rebalance; none came in %s (threshold %s)",
				latest.GetGenerationId(), latest.GetWithheld(), age.Round(time.Second), t.StuckAfter)
		}
	}
	if imb := latest.GetImbalance(); int(imb) > t.Imbalance {
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_IMBALANCE, "imbalance %d partitions between the most and least loaded member (threshold %d)", imb, t.Imbalance)
	} else if skew := latest.GetWorstTopicImbalance(); int(skew) > t.TopicImbalance {
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_IMBALANCE, "topic %q: %d partitions between the subscribers holding most and least of it (threshold %d)",
			latest.GetWorstImbalanceTopic(), skew, t.TopicImbalance)
	}
	if n := sn.rebalancesSince(now.Add(-time.Hour)); n > t.RebalancesPerHour {
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_FREQUENT_REBALANCES, "%d rebalances in the last hour (threshold %d)", n, t.RebalancesPerHour)
	}
	if u := longestUnowned(sn.decisions); u.span >= t.Unowned {
		withheld := sn.kept[u.fromIndex].full().GetWithheldPartitions()
		fire(assigndv1.GroupSignal_GROUP_SIGNAL_LONG_UNOWNED,
			"%d partitions withheld at generation %d (%s) stayed unowned %s, until generation %d assigned them at %s (threshold %s)",
			u.from.GetWithheld(), u.from.GetGenerationId(), partitionList(withheld, u.from.GetWithheld()),
			u.span.Round(time.Millisecond), u.to.GetGenerationId(), stamp(u.to.GetTime().AsTime()), t.Unowned)
	}
	return out
}

// unowned is a span during which partitions withheld by one decision
// waited for the next.
type unowned struct {
	from, to  *assigndv1.Decision
	fromIndex int // from's, in the decisions
	span      time.Duration
}

// longestUnowned finds, among the decisions (newest first), the longest
// wait from a decision that withheld partitions to the next decision of a
// later generation, which assigns them (KIP-429: the owner revokes them
// on receiving the first, rejoins, and the second gives them to their new
// owner); a retry of the same generation does not end the wait. The
// partitions are unowned from the owner's revocation, just after the
// first decision, to the new owner's assignment, just after the second:
// the span between the two decisions is that time, plus the owner's
// reaction. A wait not over yet is the stuck-followup signal's.
func longestUnowned(newestFirst []*assigndv1.Decision) unowned {
	var u unowned
	var open *assigndv1.Decision
	openIndex := 0
	for i := len(newestFirst) - 1; i >= 0; i-- {
		d := newestFirst[i]
		if open != nil {
			if d.GetGenerationId() == open.GetGenerationId() {
				continue // a retry: the wait goes on
			}
			if d.GetGenerationId() > open.GetGenerationId() {
				if span := d.GetTime().AsTime().Sub(open.GetTime().AsTime()); span > u.span {
					u = unowned{from: open, to: d, fromIndex: openIndex, span: span}
				}
			}
			open = nil // assigned, or the group started again
		}
		if d.GetWithheld() > 0 {
			open, openIndex = d, i
		}
	}
	return u
}

// partitionList names up to 8 partitions as topic-partition, with how
// many more there were of total.
func partitionList(tps []*assigndv1.TopicPartitions, total int32) string {
	var b []byte
	n := 0
	for _, tp := range tps {
		for _, p := range tp.GetPartitions() {
			if n == 8 {
				break
			}
			if n > 0 {
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, "%s-%d", tp.GetTopic(), p)
			n++
		}
	}
	if int(total) > n {
		b = fmt.Appendf(b, " and %d more", int(total)-n)
	}
	return string(b)
}

func countSince(times []int64, since time.Time) int {
	n, s := 0, since.UnixNano()
	for _, t := range times {
		if t != 0 && t >= s {
			n++
		}
	}
	return n
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// has reports whether sigs holds s.
func has(sigs []*assigndv1.FiredSignal, s assigndv1.GroupSignal) bool {
	for _, f := range sigs {
		if f.GetSignal() == s {
			return true
		}
	}
	return false
}

func memberKey(m *assigndv1.DecisionMember) string {
	if id := m.GetGroupInstanceId(); id != "" {
		return fmt.Sprintf("instance %q", id)
	}
	return fmt.Sprintf("%q", trimMemberUUID(m.GetMemberId()))
}

// trimMemberUUID drops the UUID the coordinator appends to a member id
// ("clientId-UUID", KIP-394 and before), leaving the client id. Kafka
// writes the UUID with dashes (36 characters); franz-go's kfake as 32 hex
// digits.
func trimMemberUUID(id string) string {
	switch n := len(id); {
	case n > 37 && id[n-37] == '-':
		return id[:n-37]
	case n > 33 && id[n-33] == '-' && isHex(id[n-32:]):
		return id[:n-33]
	}
	return id
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// generationGap finds the newest jump of more than one generation between
// consecutive decisions (newest first): the coordinator bumps the
// generation by one per rebalance and the leader of each calls Assign, so
// a jump means a rebalance assignd did not decide. A repeated generation
// is a retry; a smaller one a group that was emptied and started again.
// It returns the generations before and after the jump and when the later
// one was decided, or a zero time.
func generationGap(newestFirst []*assigndv1.Decision) (from, to int32, at time.Time) {
	for i := 0; i+1 < len(newestFirst); i++ {
		newer, older := newestFirst[i], newestFirst[i+1]
		if newer.GetGenerationId() > older.GetGenerationId()+1 {
			return older.GetGenerationId(), newer.GetGenerationId(), newer.GetTime().AsTime()
		}
	}
	return 0, 0, time.Time{}
}

// eagerSince is when a cooperative-sticky group that runs EAGER in its
// latest decision started doing so, as far as the kept decisions go, or a
// zero time.
func eagerSince(newestFirst []*assigndv1.Decision) time.Time {
	var since time.Time
	for _, d := range newestFirst {
		if d.GetProtocolName() != cooperativeSticky || d.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER {
			break
		}
		since = d.GetTime().AsTime()
	}
	return since
}
