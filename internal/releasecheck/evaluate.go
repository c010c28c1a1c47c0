package releasecheck

import (
	"fmt"
	"slices"
	"strings"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Check names one of the check's checks, as reports and JSON show it.
type Check string

// The checks, in the order a report lists them.
const (
	CheckProtocol Check = "protocol"       // a protocol name other than Config.Expect
	CheckEager    Check = "eager"          // an EAGER round
	CheckFollowup Check = "followup"       // a follow-up chain that did not complete in time
	CheckUnowned  Check = "unowned"        // a partition unowned longer than Config.MaxUnowned
	CheckIdle     Check = "idle"           // no decision within Config.Idle of the start, or of a round short of members
	CheckGap      Check = "generation-gap" // a generation formed without assignd
	CheckMissed   Check = "missed"         // decisions the history dropped before the check saw them
	CheckMembers  Check = "members"        // fewer members than Config.MinMembers at the end, with no Config.Idle to wait
	CheckOpen     Check = "open"           // still open when the check stopped waiting
)

var checkOrder = []Check{CheckProtocol, CheckEager, CheckFollowup, CheckUnowned, CheckIdle, CheckGap, CheckMissed, CheckMembers}

// GapGrace is how long a gap in the generations may wait for the missing
// decision's record before the check calls it a generation formed without
// assignd.
const GapGrace = 5 * time.Second

// Failure is one check that failed, at the first decision that failed it.
type Failure struct {
	Check Check `json:"check"`
	// Generation is the generation that failed it; 0 when none did (idle,
	// members at the end).
	Generation int32 `json:"generation,omitempty"`
	// Reason says what happened, for a person.
	Reason string `json:"reason"`
}

// Observation is what the check knows at one moment.
type Observation struct {
	// Before is the group's latest decision from before the start, if
	// any: a chain or revocation it opened counts, its protocol does not.
	Before *assigndv1.Decision
	// Decisions are the decisions made since the start, oldest first.
	Decisions []*assigndv1.Decision
	// Missed is how many decisions the history recorded since the start
	// that are not in Decisions (it keeps only the latest few per group).
	Missed int64
	// Start is when the check started; Now is the time of evaluation.
	Start, Now time.Time
	// Ended: the window is over (checks that hold at the end apply).
	Ended bool
}

// Result is the check's verdict on an Observation, with the figures behind
// it.
type Result struct {
	// Failures, at most one per check, in the order of checkOrder.
	Failures []Failure `json:"failures"`
	// Pending: a follow-up chain or an unowned partition is open and still
	// within its bound; a check at the end of its window waits for it.
	Pending bool `json:"pending,omitempty"`
	// Decisions is how many decisions since the start were seen.
	Decisions int `json:"decisions"`
	// FirstGeneration and LastGeneration span the decisions seen.
	FirstGeneration int32 `json:"first_generation,omitempty"`
	LastGeneration  int32 `json:"last_generation,omitempty"`
	// Protocols are the protocol names seen, as "name/REBALANCE".
	Protocols []string `json:"protocols,omitempty"`
	// Members is the latest decision's member count.
	Members int32 `json:"members"`
	// FollowupChains is how many follow-up chains completed, and
	// LongestChain the longest of them.
	FollowupChains int      `json:"followup_chains"`
	LongestChain   Duration `json:"longest_followup_chain"`
	// LongestUnowned is the longest a partition stayed unowned (or has
	// been, if it still is), and UnownedPartition which one.
	LongestUnowned   Duration `json:"longest_unowned"`
	UnownedPartition string   `json:"longest_unowned_partition,omitempty"`
}

// Passed reports whether no check failed.
func (r Result) Passed() bool { return len(r.Failures) == 0 }

// Duration is a time.Duration that marshals as its string, rounded to the
// millisecond, e.g. "1.5s".
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// tp is one partition, as the unowned clock tracks it.
type tp struct {
	topic     string
	partition int32
}

func (p tp) String() string { return fmt.Sprintf("%s[%d]", p.topic, p.partition) }

// evaluation accumulates a Result over the decisions, oldest first.
type evaluation struct {
	cfg    Config
	res    Result
	failed map[Check]Failure

	prev       *assigndv1.Decision
	chainStart *assigndv1.Decision        // the round that opened the current follow-up chain
	unowned    map[tp]*assigndv1.Decision // partition → the round that revoked or withheld it
	missed     int64                      // decisions not seen: a generation gap may be one of them
	now        time.Time
}

// Evaluate applies cfg to o.
func Evaluate(cfg Config, o Observation) Result {
	e := &evaluation{cfg: cfg, failed: map[Check]Failure{}, unowned: map[tp]*assigndv1.Decision{}, missed: o.Missed, now: o.Now}
	e.res.Failures = []Failure{} // JSON: [], which a pipeline can iterate, rather than null
	if o.Before != nil {
		// What the last round before the start left open is still open.
		e.prev = o.Before
		e.res.Members = o.Before.GetMemberCount()
		if o.Before.GetFollowupRequired() {
			e.chainStart = o.Before
			e.startClocks(o.Before)
		}
	}
	for _, d := range o.Decisions {
		e.decision(d)
	}
	e.end(o)
	if o.Missed > 0 {
		e.fail(CheckMissed, 0, fmt.Sprintf("%d decision(s) were recorded and dropped before the check saw them; poll faster (--interval) or keep more (assignd --history-decisions)", o.Missed))
	}
	for _, c := range checkOrder {
		if f, ok := e.failed[c]; ok {
			e.res.Failures = append(e.res.Failures, f)
		}
	}
	return e.res
}

func (e *evaluation) fail(c Check, gen int32, reason string) {
	if _, ok := e.failed[c]; !ok {
		e.failed[c] = Failure{Check: c, Generation: gen, Reason: reason}
	}
}

// decision takes the next decision since the start.
func (e *evaluation) decision(d *assigndv1.Decision) {
	gen, at := d.GetGenerationId(), d.GetTime().AsTime()
	if e.res.Decisions == 0 {
		e.res.FirstGeneration = gen
	}
	e.res.Decisions++
	e.res.LastGeneration = gen
	e.res.Members = d.GetMemberCount()
	proto := d.GetProtocolName() + "/" + rebalanceName(d.GetRebalanceProtocol())
	if !slices.Contains(e.res.Protocols, proto) {
		e.res.Protocols = append(e.res.Protocols, proto)
	}

	if e.cfg.Expect != "" && d.GetProtocolName() != e.cfg.Expect {
		e.fail(CheckProtocol, gen, fmt.Sprintf("generation %d negotiated %q, want %q: a member does not offer %s",
			gen, d.GetProtocolName(), e.cfg.Expect, e.cfg.Expect))
	}
	if !e.cfg.AllowEager && d.GetRebalanceProtocol() == assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER {
		e.fail(CheckEager, gen, fmt.Sprintf("generation %d ran an EAGER rebalance (protocol %q): every member revoked all its partitions and the whole group stopped",
			gen, d.GetProtocolName()))
	}
	// Consecutive rebalances form consecutive generations; a jump means
	// rounds whose leader did not call assignd (KIP-429 follow-ups
	// included). A lower generation is a group that was deleted and
	// recreated: nothing was skipped. A record may reach the history after
	// the next one's (it is stored once the response is written, or shared
	// from another replica), so a fresh gap is only pending.
	if e.prev != nil && gen > e.prev.GetGenerationId()+1 && e.missed == 0 {
		if e.now.Sub(at) < GapGrace {
			e.res.Pending = true
		} else {
			e.fail(CheckGap, gen, fmt.Sprintf("generations %d to %d were formed without assignd: the leader fell back to its own assignor or did not call",
				e.prev.GetGenerationId()+1, gen-1))
		}
	}

	// Follow-up chains: a round that withholds partitions needs another
	// round (KIP-429); the chain completes at the first round that
	// withholds nothing.
	if e.chainStart != nil && !d.GetFollowupRequired() {
		took := at.Sub(e.chainStart.GetTime().AsTime())
		e.res.FollowupChains++
		e.res.LongestChain = max(e.res.LongestChain, Duration(took))
		if e.cfg.FollowupWithin > 0 && took > e.cfg.FollowupWithin {
			e.fail(CheckFollowup, e.chainStart.GetGenerationId(), fmt.Sprintf("the follow-up chain from generation %d took %s, until generation %d (bound %s)",
				e.chainStart.GetGenerationId(), took.Round(time.Millisecond), gen, e.cfg.FollowupWithin))
		}
		e.chainStart = nil
	} else if e.chainStart == nil && d.GetFollowupRequired() {
		e.chainStart = d
	}

	e.stopClocks(d)
	e.startClocks(d)
	e.prev = d
}

// stopClocks ends the unowned time of every partition d hands out: one
// that d no longer withholds. When d's withheld list is cut short, a
// partition absent from it may still be withheld, so its clock runs on.
func (e *evaluation) stopClocks(d *assigndv1.Decision) {
	withheld := partitions(d.GetWithheldPartitions())
	complete := int32(len(withheld)) >= d.GetWithheld()
	at := d.GetTime().AsTime()
	for _, p := range e.open() {
		since := e.unowned[p]
		if _, still := withheld[p]; still || !complete {
			continue
		}
		e.unownedFor(p, since, at.Sub(since.GetTime().AsTime()), d.GetGenerationId())
		delete(e.unowned, p)
	}
}

// startClocks starts the unowned time of every partition d revokes or
// withholds: its owner gives it up after this round and its new owner
// gets it in a later one.
func (e *evaluation) startClocks(d *assigndv1.Decision) {
	for _, list := range [][]*assigndv1.TopicPartitions{d.GetRevokedPartitions(), d.GetWithheldPartitions()} {
		for p := range partitions(list) {
			if _, ok := e.unowned[p]; !ok {
				e.unowned[p] = d
			}
		}
	}
}

// open are the partitions whose unowned clock runs, in order: a report
// names the same partition on every run.
func (e *evaluation) open() []tp {
	ps := make([]tp, 0, len(e.unowned))
	for p := range e.unowned {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b tp) int {
		if a.topic != b.topic {
			return strings.Compare(a.topic, b.topic)
		}
		return int(a.partition - b.partition)
	})
	return ps
}

// unownedFor records that p was unowned for took since the round since;
// until is the generation that handed it out, or 0 if none has yet.
func (e *evaluation) unownedFor(p tp, since *assigndv1.Decision, took time.Duration, until int32) {
	if Duration(took) > e.res.LongestUnowned || e.res.UnownedPartition == "" {
		e.res.LongestUnowned, e.res.UnownedPartition = Duration(took), p.String()
	}
	if e.cfg.MaxUnowned <= 0 || took <= e.cfg.MaxUnowned {
		return
	}
	if until == 0 {
		e.fail(CheckUnowned, since.GetGenerationId(), fmt.Sprintf("%s has been unowned for %s since generation %d revoked it, and no round has handed it out (bound %s)",
			p, took.Round(time.Millisecond), since.GetGenerationId(), e.cfg.MaxUnowned))
		return
	}
	e.fail(CheckUnowned, since.GetGenerationId(), fmt.Sprintf("%s was unowned for %s, from generation %d that revoked it to generation %d that handed it out (bound %s)",
		p, took.Round(time.Millisecond), since.GetGenerationId(), until, e.cfg.MaxUnowned))
}

// end judges what is still open at o.Now: a chain or a partition past
// its bound fails, one within it is pending.
func (e *evaluation) end(o Observation) {
	if c := e.chainStart; c != nil {
		age := o.Now.Sub(c.GetTime().AsTime())
		if e.cfg.FollowupWithin > 0 && age > e.cfg.FollowupWithin {
			e.fail(CheckFollowup, c.GetGenerationId(), fmt.Sprintf("generation %d withheld %d partitions for a follow-up rebalance %s ago and no round has completed the chain (bound %s): the partitions stay unowned",
				c.GetGenerationId(), c.GetWithheld(), age.Round(time.Millisecond), e.cfg.FollowupWithin))
		} else if e.cfg.FollowupWithin > 0 {
			e.res.Pending = true
		}
	}
	for _, p := range e.open() {
		since := e.unowned[p]
		age := o.Now.Sub(since.GetTime().AsTime())
		e.unownedFor(p, since, age, 0)
		if e.cfg.MaxUnowned > 0 && age <= e.cfg.MaxUnowned {
			e.res.Pending = true
		}
	}
	if e.cfg.Idle > 0 && e.res.Decisions == 0 && (o.Ended || o.Now.Sub(o.Start) > e.cfg.Idle) {
		e.fail(CheckIdle, 0, fmt.Sprintf("no decision for the group in %s since the check started: its leader does not call assignd, or the rollout did not start",
			o.Now.Sub(o.Start).Round(time.Second)))
	}
	// A group short of members is expected to call again: the member a
	// rollout took down comes back and joins, which is a rebalance.
	if last := e.prev; last != nil && e.cfg.MinMembers > 0 && int(last.GetMemberCount()) < e.cfg.MinMembers {
		since := o.Now.Sub(last.GetTime().AsTime())
		switch {
		case e.cfg.Idle > 0 && since > e.cfg.Idle:
			e.fail(CheckIdle, last.GetGenerationId(), fmt.Sprintf("the group has had %d members since generation %d, %s ago, fewer than the %d expected, and no decision since (bound %s): a member did not come back, or the leader stopped calling assignd",
				last.GetMemberCount(), last.GetGenerationId(), since.Round(time.Second), e.cfg.MinMembers, e.cfg.Idle))
		case e.cfg.Idle > 0:
			e.res.Pending = true
		case o.Ended:
			e.fail(CheckMembers, last.GetGenerationId(), fmt.Sprintf("the group ended with %d members, want at least %d", last.GetMemberCount(), e.cfg.MinMembers))
		}
	}
}

func partitions(list []*assigndv1.TopicPartitions) map[tp]struct{} {
	out := map[tp]struct{}{}
	for _, t := range list {
		for _, p := range t.GetPartitions() {
			out[tp{t.GetTopic(), p}] = struct{}{}
		}
	}
	return out
}

// rebalanceName is a rebalance protocol without its enum prefix.
func rebalanceName(p assigndv1.RebalanceProtocol) string {
	switch p {
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER:
		return "EAGER"
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE:
		return "COOPERATIVE"
	}
	return "UNSPECIFIED"
}
