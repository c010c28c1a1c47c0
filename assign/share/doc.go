// Package share computes share-group assignments (KIP-932): which members
// of a share group consume from which partitions. Unlike a consumer
// group's, a share group's partition may go to several members at once,
// since the broker hands out its records one by one under acquisition
// locks rather than giving the partition to one consumer.
//
// Like package assign it is pure: plain Go types in and out, no I/O, no
// clocks, no state between calls, and the same [Group], with its members
// and topics in any order, always gives the same [Result].
//
// Each topic is planned alone, over its subscribers. A topic with p
// assignable partitions and n subscribers has max(n, p) slots, a slot
// being one (partition, member) pair:
//
//   - n ≤ p: every partition has exactly one member, and members hold
//     ⌊p/n⌋ or ⌈p/n⌉ of them, as in a consumer group.
//   - n > p: every member holds exactly one partition, and partitions
//     have ⌊n/p⌋ or ⌈n/p⌉ members, so no subscriber sits idle while a
//     partition is shared by many.
//
// Either way every assignable partition has a member and every subscriber
// has a partition, and counts differ by at most one on both sides. Within
// those counts the plan is sticky: a pair the member already has stays
// where the counts allow, and the pairs that must go are the fewest the
// counts force. A worked example: topic t of 4 partitions, members a and
// b holding t-0,t-1 and t-2,t-3. c joins: one member may keep two, so a
// keeps t-0,t-1, b keeps t-2 and c takes t-3 from b (one pair removed).
// Were there 4 members holding one partition each, a fifth would share
// t-0, and nothing would be removed.
//
// [Check] is the invariant checker every test uses; [Run] is the one entry
// point, selected by name and version with [Lookup] as the partition
// assignors are.
package share
