// Package kgoassign lets franz-go consumer-group leaders take their
// assignments from assignd by changing one option:
//
//	c, _ := client.New("dns:///assignd.internal:7070")
//	cl, _ := kgo.NewClient(
//		kgo.ConsumerGroup("orders"),
//		kgo.ConsumeTopics("orders"),
//		kgo.Balancers(kgoassign.CooperativeSticky(c)),
//	)
//
// A Balancer speaks one of the standard protocol names
// ("cooperative-sticky", "sticky", "range", "roundrobin") and is a
// kgo.GroupBalancer in every respect:
//
//   - JoinGroupMetadata produces the same bytes as franz-go's native
//     balancer of that name (topics, owned partitions, generation and the
//     sticky user data; kgo itself adds the rack of kgo.Rack), so shim
//     members, native franz-go members and Java or librdkafka members of the
//     same protocol can share a group, and a shim member that is not the
//     leader behaves exactly like a native one;
//   - cooperative-sticky stays cooperative (IsCooperative), the others are
//     eager;
//   - when the member is the group leader, it sends every member's raw
//     JoinGroup metadata, the topics' partition counts and, when members
//     report racks, the racks of each partition's replicas to assignd, and
//     passes assignd's encoded assignments to SyncGroup untouched.
//
// # Fallback
//
// kgo gives a balancer no context and the whole group waits while the
// leader balances, so the call to assignd is bounded (by the client's
// timeout, 2 s by default). When assignd is unreachable, slow, answers with
// an error or with a response that does not fit the group, the leader
// computes the assignment in-process with the same engine (package assign,
// through assign/leader, exactly as the server does) and the default
// policy, logs it and counts the fallback: the assignd.client.fallbacks
// OpenTelemetry counter and Balancer.Stats. With the default policy on the
// server, the fallback's bytes are identical to the service's for the same
// input, so a group whose leader falls back and a group whose leader does
// not end up in the same place. A group never stalls because assignd is
// down.
//
// The fallback is bounded too (WithFallbackTimeout, 5 s by default): past
// the bound the engine returns the valid plan it has, every partition
// placed, with a warning, so the leader is blocked at most the call's
// timeout, the fallback bound and one linear placement.
//
// A fallback that will recur on every rebalance until a setting changes
// is logged at ERROR with the setting to check (also in Report.Check): a
// response over the client's receive limit (client.WithMaxResponseBytes),
// a request or group over one of assignd's limits, a TLS handshake that
// fails, a target that resolves to nothing or does not serve assignd, a
// caller assignd refuses, a request assignd rejects as invalid. Outages,
// slowness and overload are logged at WARN.
package kgoassign
