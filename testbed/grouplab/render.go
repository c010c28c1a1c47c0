package grouplab

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Render writes a readable account of events: who joined and left, who
// led each generation and how (assignd or the in-process fallback), what
// each member was given and gave up, which rebalances were cooperative
// follow-ups, and at every settled point who owned what and what moved
// since the last one. a is the analysis of the same events (Lab.Analyze).
func Render(w io.Writer, events []Event, a *Analysis) {
	names, kinds := identities(events)
	followups := followupGenerations(events)
	r := &renderer{w: w}
	window := 0
	// led counts the plans rendered per generation: real Kafka has one
	// leader per generation, kfake sometimes several.
	led := map[int32]int{}
	leader := func(g int32) string {
		led[g]++
		if led[g] > 1 {
			return " (kfake told it to lead too)"
		}
		return ""
	}
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case EventStarted:
			r.line(e, "%s starts (%s balancer)", e.Member, e.Detail)
		case EventLeaving:
			r.line(e, "%s leaves the group", e.Member)
		case EventKilled:
			r.line(e, "%s is killed without leaving; it owned %s", e.Member, compact(e.Partitions))
		case EventAssigndDown:
			r.line(e, "assignd stopped")
		case EventAssigndUp:
			r.line(e, "assignd listening on %s", e.Detail)
		case EventBalanced:
			tag := ""
			if followups[e.Generation] {
				tag = " [follow-up]"
			}
			r.line(e, "generation %d%s: %s balances as leader via %s%s", e.Generation, tag, e.Member, e.Detail, leader(e.Generation))
		case EventLeaderSync:
			name := names[e.MemberID]
			if kinds[name] == Shim {
				continue // its balance line says more
			}
			if name == "" {
				name = e.MemberID
			}
			tag := ""
			if followups[e.Generation] {
				tag = " [follow-up]"
			}
			r.line(e, "generation %d%s: %s balances as leader (franz-go's own balancer)%s", e.Generation, tag, name, leader(e.Generation))
		case EventAssigned:
			if len(e.Partitions) > 0 {
				r.line(e, "  %s gets %s", e.Member, compact(e.Partitions))
			}
		case EventRevoked:
			r.line(e, "  %s revokes %s", e.Member, compact(e.Partitions))
		case EventLost:
			r.line(e, "  %s lost %s", e.Member, compact(e.Partitions))
		case EventNote:
			r.line(e, "== %s", e.Detail)
		case EventSettled:
			if a != nil && window < len(a.Windows) {
				r.settled(e, &a.Windows[window])
			}
			window++
		}
	}
}

type renderer struct{ w io.Writer }

func (r *renderer) line(e *Event, format string, args ...any) {
	fmt.Fprintf(r.w, "%8s  %s\n", fmtAt(e.At), fmt.Sprintf(format, args...))
}

func (r *renderer) settled(e *Event, win *Window) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "-- settled in generation %d: ", e.Generation)
	switch n := len(win.Generations); {
	case n == 0:
		sb.WriteString("no rebalance")
	default:
		fmt.Fprintf(&sb, "%d rebalance%s for %d membership change%s", n, plural(n), len(win.Changes), plural(len(win.Changes)))
		if f := win.Followups(); f > 0 {
			fmt.Fprintf(&sb, " (%d follow-up%s)", f, plural(f))
		}
		if len(win.MissedSyncs) > 0 {
			fmt.Fprintf(&sb, "; late SyncGroup: %s", strings.Join(win.MissedSyncs, ", "))
		}
	}
	fmt.Fprintf(&sb, ", %d partition%s moved", len(win.Moves), plural(len(win.Moves)))
	r.line(e, "%s", sb.String())
	for _, mv := range groupMoves(win.Moves) {
		fmt.Fprintf(r.w, "%8s    moved %s\n", "", mv)
	}
	for _, m := range slices.Sorted(maps.Keys(win.Owned)) {
		fmt.Fprintf(r.w, "%8s    %-8s owns %2d\n", "", m, win.Owned[m])
	}
}

// followupGenerations finds the generations that were cooperative
// follow-ups: those after a generation in which a member that stayed in
// the group revoked partitions (they are handed out only once their owner
// has rejoined without them, KIP-429).
func followupGenerations(events []Event) map[int32]bool {
	leaving := map[string]bool{}
	out := map[int32]bool{}
	for _, e := range events {
		switch e.Kind {
		case EventLeaving, EventKilled:
			leaving[e.Member] = true
		case EventRevoked:
			if !leaving[e.Member] && e.Generation >= 0 {
				out[e.Generation+1] = true
			}
		}
	}
	return out
}

// groupMoves describes moves grouped by (from, to).
func groupMoves(moves []Move) []string {
	type pair struct{ from, to string }
	by := map[pair][]TP{}
	for _, m := range moves {
		k := pair{m.From, m.To}
		by[k] = append(by[k], m.TP)
	}
	keys := slices.SortedFunc(maps.Keys(by), func(a, b pair) int {
		return strings.Compare(a.from+"\x00"+a.to, b.from+"\x00"+b.to)
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%s -> %s: %s", k.from, k.to, compact(by[k]))
	}
	return out
}

// compact writes partitions as "orders 0-3,7 audit 1".
func compact(tps []TP) string {
	if len(tps) == 0 {
		return "nothing"
	}
	tps = slices.Clone(tps)
	slices.SortFunc(tps, compareTP)
	var sb strings.Builder
	for i := 0; i < len(tps); {
		t := tps[i].Topic
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(t)
		sb.WriteByte(' ')
		first := true
		for i < len(tps) && tps[i].Topic == t {
			lo := tps[i].Partition
			hi := lo
			for i+1 < len(tps) && tps[i+1].Topic == t && tps[i+1].Partition == hi+1 {
				i++
				hi++
			}
			i++
			if !first {
				sb.WriteByte(',')
			}
			first = false
			sb.WriteString(strconv.Itoa(int(lo)))
			if hi > lo {
				sb.WriteByte('-')
				sb.WriteString(strconv.Itoa(int(hi)))
			}
		}
	}
	return sb.String()
}

func fmtAt(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
