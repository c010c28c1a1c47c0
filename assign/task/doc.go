// Package task computes Kafka Streams task assignments: which member (a
// stream thread) runs each task as its active, which members keep
// standby replicas of its state, and which warm up a replica before an
// active moves to them (KIP-441's warm-up tasks; the broker-side
// assignment of KIP-1071, with custom assignors by KIP-1357).
//
// Like package assign it is pure: plain Go types in and out, no I/O, no
// clocks, no state between calls, and the same [Group], with its members
// in any order, always gives the same [Result].
//
// A task is a subtopology and a partition of its input ([TaskID]). Every
// member belongs to a process (a KafkaStreams instance, whose threads
// share one state directory), and state is kept per process, so the rules
// that are about state speak of processes:
//
//   - Every task is active on exactly one member; members' active counts
//     differ by at most one, so a process's share follows its threads,
//     except where a warm-up holds a task back (below).
//   - Active tasks stay with their current member while it is within its
//     share ([ReasonBalance] for the ones it gives up). An owner over its
//     share gives up stateless tasks first (they move without restoring),
//     then stateful ones another process has state of, and keeps those
//     only its process has. A task whose owner
//     left goes first to a process that already has its state (a standby
//     or warm-up that is caught up, then the least lag), then to the least
//     loaded member ([ReasonNoOwner]).
//   - A stateful task that would move from a caught-up owner to a process
//     that is not caught up stays with its owner this round, and the
//     destination gets a warm-up replica instead ([ReasonWarmup]), up to
//     [Group].NumWarmups for the group, and the tasks beyond that wait
//     with their owner for a later round ([ReasonWaiting]);
//     [Result].FollowupRequired then
//     asks for another rebalance once it has caught up. A process is
//     caught up on a task when its lag is known and at most
//     [Group].AcceptableLag.
//   - Each stateful task gets up to [Group].NumStandbys standby replicas,
//     never on the process of its active, never two on one process, and,
//     with [Group].RackTags, on members whose tag values differ from those
//     the task already has where such a member exists ([ReasonRackTags]).
//     Standbys stay with their member when these rules allow
//     ([ReasonActiveProcess] when the active came to its process), and
//     spread evenly over members: a member over its share of standbys
//     gives one up only to a member under its share that could hold it
//     ([ReasonBalance]), so a group that rebalances again with what it was
//     given moves nothing.
//
// [Check] is the invariant checker every test uses; [Run] is the one entry
// point, selected by name and version with [Lookup] as the partition
// assignors are.
package task
