package saramaassign

import (
	"fmt"
	"time"

	"github.com/IBM/sarama"
)

// meterName is the instrumentation scope of the adapter's metrics. The
// instruments have the same names as the franz-go shim's, so one
// dashboard covers both.
const meterName = "github.com/assignd/assignd/client/saramaassign"

// Stats counts this strategy's plans as group leader, by source.
type Stats struct {
	// Served plans were answered by assignd.
	Served uint64
	// Fallbacks were computed in-process because assignd was unavailable,
	// slow, failed or answered with something that did not fit the group.
	Fallbacks uint64
	// Failures could be computed neither way (e.g. a subscription names an
	// empty topic) or had unusable input; sarama then fails the rebalance
	// and Consume returns the error.
	Failures uint64
}

// Stats returns the strategy's counters since it was created.
func (s *Strategy) Stats() Stats {
	return Stats{Served: s.served.Load(), Fallbacks: s.fallbacks.Load(), Failures: s.failures.Load()}
}

// Source says who computed a plan.
type Source int8

const (
	// SourceService: assignd answered.
	SourceService Source = iota + 1
	// SourceFallback: the leader computed the plan in-process.
	SourceFallback
	// SourceNone: the plan failed.
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

// Report describes one plan this member computed as group leader. sarama
// tells a strategy neither the generation being formed nor the leader's
// member id, so unlike the franz-go shim's report it has neither.
type Report struct {
	// Group is the id given to WithGroupID.
	Group string
	// Protocol is the group's protocol name.
	Protocol string
	Members  int
	// Partitions is the number of partitions of the topics sarama listed.
	Partitions int
	Source     Source
	// Reason says why the plan fell back: a gRPC code name ("Unavailable",
	// "DeadlineExceeded", ...), "InvalidResponse" or "NoClient"; "" when
	// assignd answered.
	Reason string
	// Check names the setting to check when the fallback means a setting
	// is wrong (a size limit, TLS, the target, the policy), which makes
	// every plan fall back until it is fixed; "" otherwise.
	Check string
	// Err is assignd's error for a fallback, or the final error when the
	// plan failed.
	Err error
	// Warnings is input that was ignored rather than rejected, e.g.
	// subscribed topics sarama has no partitions for.
	Warnings []string
	// Plan is what the leader returned to sarama. Read it only: sarama
	// encodes it into SyncGroup.
	Plan sarama.BalanceStrategyPlan
	Took time.Duration
}
