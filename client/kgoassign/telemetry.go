package kgoassign

import (
	"fmt"
	"time"
)

// meterName is the instrumentation scope of the shim's metrics.
const meterName = "github.com/assignd/assignd/client/kgoassign"

// Stats counts this balancer's balances as group leader, by source.
type Stats struct {
	// Served balances were answered by assignd.
	Served uint64
	// Fallbacks were computed in-process because assignd was unavailable,
	// slow, failed or answered with something that did not fit the group.
	Fallbacks uint64
	// Failures could be computed neither way (e.g. a member's metadata does
	// not decode); kgo then fails the rebalance and the group retries it.
	Failures uint64
}

// Stats returns the balancer's counters since it was created.
func (b *Balancer) Stats() Stats {
	return Stats{Served: b.served.Load(), Fallbacks: b.fallbacks.Load(), Failures: b.failures.Load()}
}

// Source says who computed a balance.
type Source int8

const (
	// SourceService: assignd answered.
	SourceService Source = iota + 1
	// SourceFallback: the leader computed the assignment in-process.
	SourceFallback
	// SourceNone: the balance failed.
	SourceNone
)

// String returns "service", "fallback" or "none".
func (s Source) String() string {
	switch s {
	case SourceService:
		return "service"
	case SourceFallback:
		return "fallback"
	case SourceNone:
		return "none"
	}
	return fmt.Sprintf("Source(%d)", int8(s))
}

// Report describes one balance this member ran as group leader.
type Report struct {
	Group string
	// Generation is the generation being formed.
	Generation int32
	Leader     string
	// Protocol is the group's protocol name.
	Protocol string
	Members  int
	// Partitions is the number of partitions of the subscribed topics.
	Partitions int
	Source     Source
	// Reason says why the balance fell back: a gRPC code name
	// ("Unavailable", "DeadlineExceeded", ...), "InvalidResponse" or
	// "NoClient"; "" when assignd answered.
	Reason string
	// Check names the setting to check when the fallback means a setting
	// is wrong (a size limit, TLS, the target, the policy), which makes
	// every rebalance fall back until it is fixed; "" otherwise.
	Check string
	// Err is assignd's error for a fallback, or the final error when the
	// balance failed.
	Err error
	// FollowupRequired: partitions were withheld until their owners revoke
	// them; the group rebalances again once they have (KIP-429).
	FollowupRequired bool
	// Assignments are the bytes sent in SyncGroup, by member id.
	Assignments map[string][]byte
	Took        time.Duration
}
