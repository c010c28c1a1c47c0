package assign

// The engine numbers members, classes of topics and partitions with small
// integers (see state and topicClasses). Each kind gets its own type, all
// int32 underneath (conversions between them cost nothing), so that a
// member cannot be passed where a class is meant: the balance repair in
// particular juggles all of them in one expression. The types spread from
// the repair's own tables outwards; code that still holds plain int32
// converts where it meets them.

// memberIdx is a member's index in state.members (ascending member id).
type memberIdx int32

// partIdx is a global partition: start[t] plus the partition's number in
// topic t (see state).
type partIdx int32

// classIdx is a class's index in topicClasses (topics with the same
// subscribers).
type classIdx int32
