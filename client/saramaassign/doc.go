// Package saramaassign lets sarama (github.com/IBM/sarama) consumer-group
// leaders take their plans from assignd by changing one setting:
//
//	c, _ := client.New("dns:///assignd.internal:7070")
//	cfg := sarama.NewConfig()
//	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
//		saramaassign.Sticky(c, saramaassign.WithGroupID("orders")),
//	}
//	group, _ := sarama.NewConsumerGroup(brokers, "orders", cfg)
//
// A Strategy speaks one of sarama's eager protocol names ("range",
// "roundrobin", "sticky") and is a sarama.BalanceStrategy in every
// respect, so adapter members and members using sarama's own strategy of
// the same name (or any other client's) can share a group:
//
//   - a member joins with the subscription sarama builds for every
//     strategy; the adapter adds nothing to it;
//   - for "sticky", AssignmentData writes the user data sarama's own
//     sticky strategy writes (StickyAssignorUserData V1: the member's new
//     assignment and the generation). sarama members echo it back in their
//     next subscription, which is how the next leader, of either kind,
//     knows who had what; "range" and "roundrobin" write none;
//   - when the member leads, Plan sends every member's decoded
//     subscription (sarama keeps no raw metadata bytes, so in assignd's
//     explicit member form) and the topics' partition counts to assignd,
//     and returns assignd's plan to sarama unchanged.
//
// sarama tells a strategy neither the group id, nor the generation being
// formed, nor static members' instance ids: pass the group id with
// WithGroupID so that assignd's policy can match on it; every member is
// planned as a dynamic one, ordered by member id, as sarama's own
// strategies do.
//
// # Eager only
//
// The adapter serves eager groups: every member gives up all its
// partitions before a rebalance, and the plan is handed out in one round.
// It declares the eager protocol only (SupportedProtocols), so that sarama
// keeps a group eager even beside its own "cooperative-sticky", which
// supports both; New refuses "cooperative-sticky". Groups that need
// incremental (KIP-429) rebalancing use franz-go with the kgoassign shim.
//
// # Fallback
//
// sarama gives a strategy no context and the whole group waits while the
// leader plans, so the call to assignd is bounded (by WithTimeout and the
// client's timeout, 2 s by default). When assignd is unreachable, slow,
// answers with an error or with a plan that does not fit the group (a
// member missing or unknown, a topic or partition the group does not
// have, a partition given twice, a protocol other than eager), the leader
// plans in-process with the same engine (package assign) and the default
// policy, logs it and counts the fallback: the assignd.client.fallbacks
// OpenTelemetry counter and Strategy.Stats. With the default policy on the
// server, the fallback's plan is the service's plan for the same input, so
// a group never stalls because assignd is down and ends up where it would
// have with assignd. The fallback is bounded too (WithFallbackTimeout, 5 s
// by default): past the bound the engine returns the valid plan it has,
// every partition placed, with a warning in the Report. A fallback that
// will recur until a setting changes (a size limit, TLS, the target, a
// caller or request assignd refuses) is logged at ERROR with the setting
// to check (also in Report.Check); outages, slowness and overload at WARN.
//
// # Partition ids
//
// sarama lists each topic's partition ids as its metadata gives them:
// 0..n-1, which assignd reads as a partition count of n. Should a list
// have gaps, the topic is assigned as highest id + 1 partitions, the ids
// sarama did not list are left out of the plan and the Report carries a
// warning; a list so sparse that this would cost memory out of proportion
// (highest id above 2n+1024) fails the plan instead.
package saramaassign
