// Package rollout drives staged rollouts: the policy rules whose
// rollout lists steps (server/policy). It decides when a rule's step
// advances, halts or rolls back, and makes every replica serve the same
// step at the same instant.
//
// # Agreement
//
// A rollout is identified by (policy revision, rule). Replicas agree on it
// through a totally ordered log of [assigndv1.RolloutEvent] records: with
// a Kafka history topic, its records of kind "rollout" ([BusLog]), all
// keyed "rollout" (one partition); embedded, a [LocalLog] in the process.
// Every replica applies the records in log order to the same [Machine],
// so every replica reaches the same state:
//
//   - A replica serving a revision publishes SERVING; the first SERVING of
//     a revision in the log starts its rollouts (step 0 from its
//     effective_at). Until a replica has read the log up to its own
//     SERVING, it serves the state it has read so far (step 0 at worst)
//     and makes no verdict.
//   - When a step's hold has passed, any replica may evaluate the gate and
//     publish ADVANCE, HALT or ROLLBACK for that step. The first verdict
//     for (revision, rule, step) in the log wins; later ones are ignored.
//     A verdict takes effect at its effective_at, a few seconds after it
//     was made ([WithSwitchDelay]), so that replicas reading it switch at
//     the same instant and no group flips between assignors.
//   - Halts are terminal for the revision: resuming is a file change (a
//     new revision is a new rollout). The agreed state of every rule of
//     the serving revision is re-published as a STATE record
//     ([WithRepublish]), so that it outlives the topic's retention; STATE
//     records merge monotonically (a later step, or a halt, wins).
//
// # Gates
//
// A gate reads the history's decisions of the groups the rule served in
// the current step (the step each decision records, see [Step.Served];
// by time for decisions without it), counting only trusted decisions:
// those whose caller the policy's bindings allow to lead the group (see
// [policy.Policy.Trusted]; without bindings every caller counts, and the
// status warns). It compares each decision with the shadow run on the same
// input where there is one, else with the group's decisions before the
// switch: a measure fails when a decision exceeds the gate's limit and
// its baseline. min_groups only holds a step back; a failed measure halts
// (or rolls back) the rule, during the hold or at its end.
package rollout
