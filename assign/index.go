package assign

// The engine numbers members, classes of topics and partitions with small
// integers (see state and topicClasses). Each kind gets its own type, all
// int32 underneath (conversions between them cost nothing, and the arena
// hands them out typed: takeAs), so that a member cannot be passed where
// a class is meant: the balance repair in particular juggles all of them
// in one expression.
//
// Typed so far: the plan (target) and the previous owners (state.prev,
// staleLoser) hold memberIdx, and every function that reads them takes
// one; topicClasses' classOf and memberClasses hold classIdx; the repair
// holds partitions as partIdx and its slots as slotIdx. Still int32: the
// member lists (state.subscribers, topicClasses.subscribers, which the
// KIP-848 and rank-ordered assignors read as ranks too), partitions
// outside the repair, and topics. Code holding one of those converts where
// it meets a typed table (target[p] = memberIdx(m)).

// memberIdx is a member's index in state.members (ascending member id).
type memberIdx int32

// partIdx is a global partition: start[t] plus the partition's number in
// topic t (see state).
type partIdx int32

// classIdx is a class's index in topicClasses (topics with the same
// subscribers).
type classIdx int32
