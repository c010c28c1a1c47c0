// Package assign computes Kafka consumer-group partition assignments.
//
// It is the one code path that the assignd server, the client shim's local
// fallback and the benchmarks all run. The package is pure: plain Go types in,
// plain Go types out, no I/O, no clocks, no logging and no state kept between
// calls. The same Group, with its members in any order, always gives the same
// Result.
//
// An Assignor computes a target plan; Run wraps every assignor the same way:
// it validates and normalises the group, resolves conflicting ownership
// claims, asks the assignor for its plan and, when the group runs the
// COOPERATIVE protocol, applies the KIP-429 adjustment as a separate post-pass
// (see cooperative.go), so every assignor is cooperative-safe in the same way.
//
// # Where a partition's target is decided
//
// [Run] fills one slice, target[p] = member or -1, in a fixed order of
// steps. Every partition that changes owner, is withheld or is held back
// gets one [MoveReason], recorded (state.setReason) at the step that
// decides its target, never worked out afterwards; a later step may
// overrule an earlier one, and only the reason of the final decision is
// read. The sticky assignors' plan (stickyPlan) takes planEqual when every
// member subscribes to the same topics without racks (keep and trim, then
// place) and planGeneral otherwise (keep, place, repair, realign,
// lookahead):
//
//  1. Claims (newState calls state.resolveClaims): who owned what before
//     this round. [ReasonContested] for a partition claimed in the same
//     generation; [ReasonStaleClaim] for the member whose older claim lost.
//  2. Keep: an owner keeps what it still subscribes to (planEqual's and
//     planGeneral's first loops, state.keepable; a partition off its
//     owner's rack is kept here and left to step 6); planGeneral records
//     [ReasonUnsubscribed] for what its owner no longer subscribes to.
//  3. Trim (planEqual): an owner over its quota keeps only part of what it
//     owned (partitionTrimmer.keep, or topicTrimmer.keep for
//     cooperative-sticky@2), giving up no more of a topic than the
//     members below quota need of it while another topic has room
//     (trimRoom); [ReasonBalance] for the rest.
//  4. Place: free partitions go to subscribers (planEqual's round robin;
//     waterFill, or placeByRack in rack-aware groups). A partition nobody
//     owned needs no reason: [ReasonNoOwner] is implied.
//  5. Repair (planGeneral): repair moves partitions along chains of
//     subscribers until no member could pass one to a member with two
//     fewer (repairer.move, repair_chain.go); [ReasonBalance].
//  6. Realign (planGeneral, rack-aware groups, KIP-881): realign moves
//     partitions kept off their owner's rack to a member on a replica's
//     rack where balance allows (realigner, realign_moves.go);
//     [ReasonRack].
//     In a cooperative round, lookahead then plays the follow-up (a plan
//     from what this round assigns) and, when that would revoke
//     something, takes it as the plan, so that misaligned partitions
//     come home in one follow-up; the revoked ones get the replayed
//     plan's reasons.
//  7. Freeze and cap ([WithFreeze]: state.freeze; [WithMaxMoves]:
//     state.capMoves): partitions the plan moved stay with their owner;
//     [ReasonHeld].
//  8. Withhold (COOPERATIVE, KIP-429: state.cooperativeAdjust): a partition
//     whose target differs from a member that still owns it becomes -1
//     until that member has revoked it, and keeps the reason it left its
//     owner for. A plan cut short by its context or its work limit
//     (state.cutShort), with nothing else pending, withholds one partition
//     of its most loaded member, with [ReasonBalance], so that the group
//     rejoins and the next round carries the repair on.
//     [Result].FollowupRequired is set when something is withheld, and
//     when a member loses a partition it reported owning (a stale or
//     contested claim too): that member revokes it and rejoins (the Java
//     client, franz-go).
//
// Range, roundrobin and the KIP-848 assignors lay partitions out without
// looking at owners (steps 2 to 6 are one layout); state.layoutReasons
// then records [ReasonBalance], or [ReasonUnsubscribed], for what left its
// owner.
//
// [Stats] counts the reasons on every run; [WithMoveDetail] lists them as
// [Result].Moves.
//
// The Kafka consumer-protocol codec (ConsumerProtocolSubscription,
// ConsumerProtocolAssignment and the sticky assignors' user data) lives in the
// sub-package wire.
package assign
