package releasecheck

import "time"

// Defaults of [Config]'s bounds, as `assignctl release-check` documents them.
const (
	// DefaultMaxUnowned is how long a partition may stay unowned.
	DefaultMaxUnowned = 5 * time.Second
	// DefaultFollowupWithin is how long a follow-up chain may take, from
	// the round that withheld partitions to the round that withholds none.
	DefaultFollowupWithin = 30 * time.Second
	// DefaultIdle is how long the check waits for the group's first
	// decision.
	DefaultIdle = 2 * time.Minute
)

// Config is what a release must keep. A zero bound switches its check
// off.
type Config struct {
	// Expect is the protocol name every decision must carry, e.g.
	// "cooperative-sticky"; empty accepts any.
	Expect string
	// AllowEager accepts EAGER rounds. Off by default: an eager round
	// stops the whole group, which is what a cooperative release must not
	// do.
	AllowEager bool
	// MaxUnowned bounds how long a partition may stay unowned.
	MaxUnowned time.Duration
	// FollowupWithin bounds a follow-up chain.
	FollowupWithin time.Duration
	// Idle bounds the wait for the group's first decision after the start,
	// and, with MinMembers, for the next decision after a round with fewer
	// members than that: the round where a restarted member comes back.
	Idle time.Duration
	// MinMembers is how many members the group is expected to have; 0
	// does not check. A round with fewer must be followed by another
	// within Idle; at the end the group must have as many.
	MinMembers int
}

// DefaultConfig expects cooperative-sticky with the default bounds.
func DefaultConfig() Config {
	return Config{Expect: "cooperative-sticky", MaxUnowned: DefaultMaxUnowned, FollowupWithin: DefaultFollowupWithin, Idle: DefaultIdle}
}
