package client

import (
	"fmt"
	"time"
)

// BalanceStats counts a Kafka-client adapter's balances as group leader
// (kgoassign's Balancer.Stats, saramaassign's Strategy.Stats), by
// [BalanceSource].
type BalanceStats struct {
	// Served balances were answered by assignd.
	Served uint64
	// Fallbacks were computed in-process because assignd was unavailable,
	// slow, failed or answered with something that did not fit the group.
	Fallbacks uint64
	// Failures could be computed neither way (e.g. a member's metadata or
	// subscription is unusable); the Kafka client then fails the rebalance.
	Failures uint64
}

// BalanceSource says who computed a leader's balance in a Kafka-client
// adapter: assignd, the fallback in-process, or neither.
type BalanceSource int8

const (
	// SourceService: assignd answered.
	SourceService BalanceSource = iota + 1
	// SourceFallback: the leader computed the assignment in-process.
	SourceFallback
	// SourceNone: the balance failed.
	SourceNone
)

// String returns "service", "fallback" or "none", the source label of
// the assignd.client.balance.duration histogram.
func (s BalanceSource) String() string {
	switch s {
	case SourceService:
		return "service"
	case SourceFallback:
		return "fallback"
	case SourceNone:
		return "none"
	}
	return fmt.Sprintf("BalanceSource(%d)", int8(s))
}

// BalanceReport is what every Kafka-client adapter reports about one
// balance its member ran as group leader; each adapter's Report embeds it
// beside what only its Kafka client knows.
type BalanceReport struct {
	// Group is the group's id.
	Group string
	// Protocol is the group's protocol name.
	Protocol string
	Members  int
	// Partitions is the number of partitions of the subscribed topics.
	Partitions int
	Source     BalanceSource
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
	Err  error
	Took time.Duration
}
