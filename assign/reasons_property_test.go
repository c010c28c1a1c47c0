package assign_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// TestMoveReasonsProperty: on random groups (both protocols, with and
// without racks, stale and contested claims, a move budget or a freeze),
// every partition that changes owner, is withheld or is held back has
// exactly one reason, the one its facts call for, and the counts by reason
// match the list, Stats.Moved and Stats.Pending. The previous owners are
// worked out here from the members' claims, independently of the engine.
func TestMoveReasonsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SampledFrom(ownedHistoryAssignors()).Draw(t, "assignor")
		proto := assign.Eager
		if !assign.Supports(a, assign.Eager) || assign.Supports(a, assign.Cooperative) && rapid.Bool().Draw(t, "cooperative") {
			proto = assign.Cooperative
		}
		gen := []assigntest.GenOption{assigntest.Owned(), assigntest.Conflicts(), assigntest.MissingTopics(),
			assigntest.Members(0, 10), assigntest.Protocol(proto)}
		if rapid.Bool().Draw(t, "racks") {
			gen = append(gen, assigntest.WithRacks())
		}
		if rapid.Bool().Draw(t, "equal subscriptions") {
			gen = append(gen, assigntest.EqualSubscriptions())
		}
		g := assigntest.GroupGen(gen...).Draw(t, "group")
		opts := []assign.Option{assign.WithMoveDetail(1 << 20)}
		limited := false
		switch rapid.IntRange(0, 4).Draw(t, "limit") {
		case 0:
			opts, limited = append(opts, assign.WithFreeze(true)), true
		case 1:
			opts, limited = append(opts, assign.WithMaxMoves(rapid.IntRange(1, 5).Draw(t, "max moves"))), true
		}
		r, err := assign.Run(a, g, opts...)
		if err != nil {
			t.Fatal(err)
		}
		checkReasons(t, g, r, limited)

		// A smaller cap lists the same moves, cut at the cap.
		k := rapid.IntRange(0, len(r.Moves)).Draw(t, "cap")
		capped, err := assign.Run(a, g, append(opts, assign.WithMoveDetail(k))...)
		if err != nil {
			t.Fatal(err)
		}
		if want := r.Moves[:k:k]; !slices.Equal(capped.Moves, want) && !(k == 0 && capped.Moves == nil) {
			t.Fatalf("WithMoveDetail(%d) = %v, want %v", k, capped.Moves, want)
		}
		if capped.Stats != r.Stats {
			t.Fatalf("the detail's cap changed the stats: %+v vs %+v", capped.Stats, r.Stats)
		}
	})
}

// ownedHistoryAssignors is every registered assignor that reads history
// from the members' owned partitions, as claimsOf does: all but sticky,
// whose history is its user data (TestMoveReasons covers it). An assignor
// added to the registry is checked here without further ado.
func ownedHistoryAssignors() []assign.Assignor {
	var out []assign.Assignor
	for _, a := range assign.Assignors() {
		if a.Name() != assign.NameSticky {
			out = append(out, a)
		}
	}
	return out
}

type tp struct {
	topic string
	p     int32
}

// claimFacts is what the members' claims say about one partition.
type claimFacts struct {
	owner     string // the claim of the highest generation, if it is alone
	contested bool   // several claims in the highest generation
	losers    int    // claims of a lower generation
}

// claimsOf settles the members' claims by generation (KAFKA-12984).
func claimsOf(g *assign.Group) map[tp]*claimFacts {
	type claim struct {
		id  string
		gen int32
	}
	all := map[tp][]claim{}
	for _, m := range g.Members {
		gen := max(m.Generation, assign.NoGeneration)
		for _, o := range m.Owned {
			for _, p := range o.Partitions {
				all[tp{o.Topic, p}] = append(all[tp{o.Topic, p}], claim{m.ID, gen})
			}
		}
	}
	out := map[tp]*claimFacts{}
	for k, cs := range all {
		top := slices.MaxFunc(cs, func(a, b claim) int { return int(a.gen - b.gen) }).gen
		f := &claimFacts{}
		var at []string
		for _, c := range cs {
			if c.gen == top {
				at = append(at, c.id)
			} else {
				f.losers++
			}
		}
		if len(at) == 1 {
			f.owner = at[0]
		} else {
			f.contested = true
		}
		out[k] = f
	}
	return out
}

func checkReasons(t *rapid.T, g *assign.Group, r *assign.Result, limited bool) {
	claims := claimsOf(g)
	subscribes := map[string]map[string]bool{}
	racks := map[string]string{}
	for _, m := range g.Members {
		subscribes[m.ID] = map[string]bool{}
		for _, topic := range m.Topics {
			subscribes[m.ID][topic] = true
		}
		racks[m.ID] = m.Rack
	}
	final := map[tp]string{}
	for _, m := range r.Members {
		for _, a := range m.Assigned {
			for _, p := range a.Partitions {
				final[tp{a.Topic, p}] = m.ID
			}
		}
	}
	withheld := map[tp]bool{}
	for _, a := range r.Pending {
		for _, p := range a.Partitions {
			withheld[tp{a.Topic, p}] = true
		}
	}
	recs := map[tp]assign.Move{}
	var counts assign.ReasonCounts
	moved, pending := 0, 0
	for i, mv := range r.Moves {
		k := tp{mv.Topic, mv.Partition}
		if i > 0 {
			prev := r.Moves[i-1]
			if prev.Topic > mv.Topic || prev.Topic == mv.Topic && prev.Partition >= mv.Partition {
				t.Fatalf("moves out of order or repeated at %d: %v then %v", i, prev, mv)
			}
		}
		recs[k] = mv
		counts[mv.Reason]++
		if mv.To == "" {
			pending++
			if !withheld[k] {
				t.Fatalf("%v: To is empty but the partition is not pending", mv)
			}
		} else if final[k] != mv.To {
			t.Fatalf("%v: the partition is assigned to %q", mv, final[k])
		}
		switch mv.Reason {
		case assign.ReasonUnsubscribed, assign.ReasonBalance, assign.ReasonRack:
			moved++
		}
	}
	if counts != r.Stats.Reasons {
		t.Fatalf("counts of the listed moves %v, Stats.Reasons %v", counts, r.Stats.Reasons)
	}
	if moved != r.Stats.Moved || pending != r.Stats.Pending {
		t.Fatalf("listed moves: %d moved, %d withheld; Stats: %d moved, %d pending", moved, pending, r.Stats.Moved, r.Stats.Pending)
	}
	// Every partition of a subscribed topic, against its facts.
	for _, top := range g.Topics {
		subscribed := false
		for _, m := range g.Members {
			subscribed = subscribed || subscribes[m.ID][top.Name]
		}
		if !subscribed {
			continue
		}
		for p := range top.Partitions {
			k := tp{top.Name, p}
			f := claims[k]
			if f == nil {
				f = &claimFacts{}
			}
			rec, has := recs[k]
			now := final[k] // "" when withheld
			if f.owner != "" && now == f.owner {
				switch {
				case has && rec.Reason == assign.ReasonHeld:
					if !limited || rec.From != f.owner || rec.To != f.owner {
						t.Fatalf("%v: held back, but no limit applies or it names other members", rec)
					}
				case f.losers > 0:
					if !has || rec.Reason != assign.ReasonStaleClaim || rec.To != f.owner || rec.From == "" || rec.From == f.owner {
						t.Fatalf("%v kept by %s over %d stale claim(s): record %v (%v)", k, f.owner, f.losers, rec, has)
					}
				case has:
					t.Fatalf("%v stays with %s but has a record %v", k, f.owner, rec)
				}
				continue
			}
			if !has {
				t.Fatalf("%v: from %q (contested %v) to %q without a reason", k, f.owner, f.contested, now)
			}
			if rec.From != f.owner {
				t.Fatalf("%v: From %q, previous owner %q", rec, rec.From, f.owner)
			}
			switch {
			case f.contested:
				if rec.Reason != assign.ReasonContested {
					t.Fatalf("%v: contested, reason %v", rec, rec.Reason)
				}
			case f.owner == "":
				if rec.Reason != assign.ReasonNoOwner {
					t.Fatalf("%v: nobody owned it, reason %v", rec, rec.Reason)
				}
			case !subscribes[f.owner][top.Name]:
				if rec.Reason != assign.ReasonUnsubscribed {
					t.Fatalf("%v: its owner does not subscribe, reason %v", rec, rec.Reason)
				}
			case rec.Reason == assign.ReasonRack:
				rk := racks[f.owner]
				// A topic without replica racks has no replica in any rack.
				if rk == "" || top.Racks != nil && slices.Contains(top.Racks[p], rk) {
					t.Fatalf("%v: a rack move from a member whose rack %q hosts a replica (%v)", rec, rk, top.Racks)
				}
			case rec.Reason != assign.ReasonBalance:
				t.Fatalf("%v: its owner subscribes, reason %v", rec, rec.Reason)
			}
		}
	}
}
