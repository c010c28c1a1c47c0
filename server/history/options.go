package history

import (
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// DefaultDecisionsPerGroup is how many decisions a Store keeps per group
// without WithDecisionsPerGroup: 8, a cooperative rebalance and its
// follow-up several times over.
const DefaultDecisionsPerGroup = 8

// DefaultMaxGroups is how many groups a Store remembers without
// WithMaxGroups: 10,000. At the default decisions per group and a
// 10-member group, that is about 256 MiB as [WithMaxBytes] counts it
// (BenchmarkStoreMemory).
const DefaultMaxGroups = 10_000

// DefaultInputsPerGroup is how many inputs (AssignRequests) a Store keeps
// per group without WithInputs: 4, for replaying a group's latest input
// and simulating a policy over its recent ones.
const DefaultInputsPerGroup = 4

// DefaultInputBytes is the most the inputs of all groups take without
// WithInputs: 64 MiB. A 10-member group over 60 partitions sends about
// 1.5 KB; a 1,000-member group over 10,000 partitions about 150 KB.
const DefaultInputBytes = 64 << 20

// DefaultMaxBytes is the most a Store holds without WithMaxBytes: 512
// MiB of heap, its decisions, its groups' state and its inputs together.
// 10,000 groups of 10 members take about 300 MiB of it at the other
// defaults; a fleet of larger groups (a decision lists up to 32 members
// and 32 moves, about 17 KB) keeps fewer groups rather than more memory.
const DefaultMaxBytes = 512 << 20

// Thresholds say when the signals fire. The zero value of a field means
// its default.
type Thresholds struct {
	// At least StormRebalances decisions, and at least StormPerMember per
	// member of the group, within StormWindow are a rebalance storm: a
	// rolling restart costs each member a leave and a join, each with
	// its cooperative follow-up (4 rebalances, sometimes 5), and stays
	// below it. The count is capped at StormCap (64) decisions: more is a
	// storm whatever the group's size. Default 10, 8 per member, within 5
	// minutes.
	StormRebalances int
	StormPerMember  int
	StormWindow     time.Duration
	// FlapJoins: the same member joining this many times within
	// StormWindow is a storm too (a flapping member), however few the
	// rebalances. Default 3. A rolling restart, where each member leaves
	// and joins once, stays below it.
	FlapJoins int
	// GapWindow is how long a generation gap stays signalled after the
	// decision that revealed it (while that decision is kept). Default 1
	// hour.
	GapWindow time.Duration
	// StuckAfter is how long a decision that required a follow-up may stay
	// the latest before the group is stuck. Default 2 minutes (a Java
	// client rejoins as soon as it has revoked).
	StuckAfter time.Duration
	// Imbalance: a latest decision whose imbalance is above it fires the
	// imbalance signal. Default 2 (1 is what an uneven division leaves).
	Imbalance int
	// TopicImbalance: a latest decision whose worst per-topic imbalance
	// (Decision.worst_topic_imbalance) is above it fires the imbalance
	// signal too: the group may be balanced in total while one member holds
	// all of a busy topic. Default 4: the sticky assignors trade per-topic
	// spread for stickiness when subscriptions differ, so small skews are
	// expected.
	TopicImbalance int
	// RebalancesPerHour: more decisions than this in the last hour fire
	// frequent-rebalances, the sustained churn a storm's short window
	// misses. Default 60 (one a minute); a rolling restart of a 10-member
	// group costs about 40.
	RebalancesPerHour int
	// Unowned: partitions withheld in one decision and assigned by the
	// next that long after or later fire long-unowned. Default 30 seconds
	// (a cooperative follow-up normally comes within seconds).
	Unowned time.Duration
}

// StormCap is the most recent decision times a group keeps to count
// rebalances in the storm window.
const StormCap = 64

// DefaultThresholds are the thresholds of a Store without WithThresholds.
func DefaultThresholds() Thresholds {
	return Thresholds{StormRebalances: 10, StormPerMember: 8, StormWindow: 5 * time.Minute, FlapJoins: 3, GapWindow: time.Hour, StuckAfter: 2 * time.Minute, Imbalance: 2,
		TopicImbalance: 4, RebalancesPerHour: 60, Unowned: 30 * time.Second}
}

func (t Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds()
	orDefault([2]*int{&t.StormRebalances, &d.StormRebalances}, [2]*int{&t.StormPerMember, &d.StormPerMember},
		[2]*int{&t.FlapJoins, &d.FlapJoins}, [2]*int{&t.Imbalance, &d.Imbalance},
		[2]*int{&t.TopicImbalance, &d.TopicImbalance}, [2]*int{&t.RebalancesPerHour, &d.RebalancesPerHour})
	orDefault([2]*time.Duration{&t.StormWindow, &d.StormWindow}, [2]*time.Duration{&t.GapWindow, &d.GapWindow},
		[2]*time.Duration{&t.StuckAfter, &d.StuckAfter}, [2]*time.Duration{&t.Unowned, &d.Unowned})
	return t
}

// orDefault sets each threshold that is not positive to its default:
// each pair is the threshold and its default.
func orDefault[T int | time.Duration](pairs ...[2]*T) {
	for _, p := range pairs {
		if *p[0] <= 0 {
			*p[0] = *p[1]
		}
	}
}

// Option configures a Store. Options are sealed: only this package defines
// them.
type Option interface{ apply(*config) }

type config struct {
	decisions, groups int
	thresholds        Thresholds
	now               func() time.Time
	inputsPerGroup    int
	inputBytes        int64
	maxBytes          int64
	replica           string
	incarnation       uint64
	publisher         Publisher
}

// Publisher shares this replica's records with the fleet (the Kafka log
// of package kafkalog). Publish is called on the Assign path, after the
// response: it must not block, and it drops (and counts) what it cannot
// take. d and input must not be modified.
type Publisher interface {
	Publish(d *assigndv1.Decision, input []byte)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithDecisionsPerGroup keeps the last n decisions of each group (n ≥ 1).
// Default: DefaultDecisionsPerGroup.
func WithDecisionsPerGroup(n int) Option { return optionFunc(func(c *config) { c.decisions = n }) }

// WithMaxGroups remembers at most n groups (n ≥ 1); recording a new group
// beyond that forgets the least recently seen one. Default: DefaultMaxGroups.
func WithMaxGroups(n int) Option { return optionFunc(func(c *config) { c.groups = n }) }

// WithThresholds sets when the signals fire; zero fields keep their
// defaults. Default: DefaultThresholds().
func WithThresholds(t Thresholds) Option { return optionFunc(func(c *config) { c.thresholds = t }) }

// WithClock replaces time.Now, for tests of the time-based signals.
func WithClock(now func() time.Time) Option { return optionFunc(func(c *config) { c.now = now }) }

// WithInputs keeps the last perGroup inputs (AssignRequests) of each
// group, all of them together within totalBytes (the oldest are forgotten
// first); 0 for either keeps none. Defaults: DefaultInputsPerGroup,
// DefaultInputBytes.
func WithInputs(perGroup int, totalBytes int64) Option {
	return optionFunc(func(c *config) { c.inputsPerGroup, c.inputBytes = perGroup, totalBytes })
}

// WithMaxBytes bounds the heap a Store holds, counted as it records:
// its decisions, its groups' own state and its inputs. Recording beyond
// it forgets the least recently seen groups, as WithMaxGroups does.
// Default: DefaultMaxBytes.
func WithMaxBytes(n int64) Option { return optionFunc(func(c *config) { c.maxBytes = n }) }

// WithReplica names this replica on its records (Decision.replica), e.g.
// its host name; a replica's records are told apart across restarts by a
// random incarnation drawn by New. Default: "" (a single replica).
func WithReplica(name string) Option { return optionFunc(func(c *config) { c.replica = name }) }

// WithIncarnation fixes the incarnation instead of drawing it, for tests.
func WithIncarnation(n uint64) Option { return optionFunc(func(c *config) { c.incarnation = n }) }

// WithPublisher shares every record this replica makes through p.
// Default: none (the history is this process's own).
func WithPublisher(p Publisher) Option { return optionFunc(func(c *config) { c.publisher = p }) }
