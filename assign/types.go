package assign

import "fmt"

// RebalanceProtocol is the group's rebalance protocol (KIP-429).
type RebalanceProtocol int8

const (
	// ProtocolUnspecified lets the assignor choose its default protocol.
	ProtocolUnspecified RebalanceProtocol = 0
	// Eager: every member revokes everything before it rejoins.
	Eager RebalanceProtocol = 1
	// Cooperative: members keep what they own across a rebalance and revoke
	// only what the leader takes away (KIP-429).
	Cooperative RebalanceProtocol = 2
)

// String returns "EAGER", "COOPERATIVE" or "UNSPECIFIED".
func (p RebalanceProtocol) String() string {
	switch p {
	case Eager:
		return "EAGER"
	case Cooperative:
		return "COOPERATIVE"
	case ProtocolUnspecified:
		return "UNSPECIFIED"
	}
	return fmt.Sprintf("RebalanceProtocol(%d)", int8(p))
}

// NoGeneration marks an absent generation, as the Kafka client's
// DEFAULT_GENERATION (-1) does.
const NoGeneration int32 = -1

// Member is one group member as the leader sees it after decoding its
// JoinGroup metadata.
type Member struct {
	// ID is the member id the coordinator gave the member. Required, unique.
	ID string
	// InstanceID is the group.instance.id of a static member, "" for a
	// dynamic member. Static members sort before dynamic ones in range and
	// roundrobin (KIP-345).
	InstanceID string
	// Topics the member subscribes to.
	Topics []string
	// Owned is what the member reports owning (ConsumerProtocolSubscription
	// v1+ OwnedPartitions). Cooperative members keep owning these until the
	// leader takes them away.
	Owned []TopicPartitions
	// UserData is the assignor's opaque data from the subscription.
	UserData []byte
	// Generation is the generation in which the member last received an
	// assignment (KIP-792, subscription v2+), or NoGeneration when absent.
	Generation int32
	// Rack is the member's client.rack (KIP-881), "" when absent.
	Rack string
}

// Topic is the leader's metadata for one topic.
type Topic struct {
	Name string
	// Partitions is the partition count. Partitions 0..Partitions-1 exist.
	Partitions int32
	// Racks optionally lists, for each partition, the racks of all its
	// replicas (KIP-881). Either nil, or one entry per partition.
	Racks [][]string
}

// Group is the input of an assignment.
type Group struct {
	// Generation is the generation being formed.
	Generation int32
	// Protocol is the rebalance protocol the group runs. ProtocolUnspecified
	// selects the assignor's default.
	Protocol RebalanceProtocol
	Members  []Member
	// Topics is the leader's topic metadata. Subscribed topics missing from
	// it get no partitions (and a warning).
	Topics []Topic
	// Weights optionally gives the load of partitions (for example bytes
	// or records per second), at most one entry per topic of Topics. Only
	// load-aware assignors ([LoadSticky]) plan with them; every assignor
	// rejects invalid ones (negative, NaN or infinite weights, a topic
	// missing from Topics, more weights than partitions). See
	// [TopicWeights] for partitions without a weight.
	Weights []TopicWeights
}

// TopicWeights is the load of each partition of one topic, in any unit,
// the same for every topic of a group.
type TopicWeights struct {
	Topic string
	// Weights[i] is the load of partition i. A shorter list leaves the
	// remaining partitions without a weight: they get the mean of the
	// topic's given weights, or, for a topic without any, the mean of all
	// given weights (1 when no weight is given at all, which is planning
	// by counts).
	Weights []float64
}

// MemberAssignment is what one member receives.
type MemberAssignment struct {
	ID string
	// Assigned is what the member may consume from now on, topics sorted by
	// name and partitions ascending. Under COOPERATIVE it never contains a
	// partition that another member still owns.
	Assigned []TopicPartitions
	// UserData for the ConsumerProtocolAssignment (nil for the standard
	// assignors, as in the Java client).
	UserData []byte
	// Revoked lists what the member reported owning and must give up now.
	Revoked []TopicPartitions
}

// Stats summarises the quality of a result.
type Stats struct {
	// Partitions is the number of partitions assigned this round.
	Partitions int
	// Moved counts partitions whose target owner differs from their
	// previous owner (partitions nobody owned are not moves).
	Moved int
	// Revoked counts partitions that members must revoke this round.
	Revoked int
	// Pending counts partitions withheld until their owner revokes them.
	Pending int
	// Imbalance is the largest minus the smallest number of partitions a
	// member targets (the plan, pending partitions included).
	Imbalance int
	// Reasons counts, by [MoveReason], every partition that changes owner
	// (from nobody too: ReasonNoOwner), is withheld, or is held back this
	// round; each is counted once. The ones with an owner that leaves it
	// are Moved; withheld ones are Pending as well.
	Reasons ReasonCounts
}

// Result is the outcome of an assignment.
type Result struct {
	// Assignor and Version identify the assignor that ran.
	Assignor string
	Version  int
	// Protocol is the protocol the group runs (never ProtocolUnspecified).
	Protocol RebalanceProtocol
	// Members holds one entry per member, sorted by member id.
	Members []MemberAssignment
	// Pending lists partitions withheld this round because a member other
	// than their target still owns them (KIP-429).
	Pending []TopicPartitions
	// FollowupRequired tells the group that another rebalance follows:
	// under COOPERATIVE, one is needed to hand out the pending partitions,
	// and one happens whenever a member loses a partition it reported
	// owning (a stale or contested claim too), since such a member revokes
	// it and rejoins (the Java client, franz-go). A COOPERATIVE plan cut
	// short (by the repair's work limit or a best-effort stop, see
	// Warnings) withholds one partition for that reason: a member that
	// revokes one rejoins.
	FollowupRequired bool
	Stats            Stats
	// Moves lists, with their reasons, the partitions that change owner,
	// are withheld or are held back, in (topic, partition) order, up to the
	// limit given by [WithMoveDetail]; nil without it.
	Moves []Move
	// Warnings describe input that was ignored rather than rejected, e.g.
	// subscribed topics missing from metadata or stale ownership claims.
	Warnings []string
	// Load describes the plan's member loads when the assignor planned
	// with partition weights ([LoadSticky] given [Group.Weights]); nil
	// otherwise.
	Load *LoadStats
}

// LoadStats measures a load-aware plan in the unit of the group's weights.
type LoadStats struct {
	// Total is the load of all assigned and pending partitions.
	Total float64
	// Max and Mean are the largest and the mean member load of the plan
	// (pending partitions counted with their target).
	Max, Mean float64
	// Bound is the lower bound no plan can beat: the mean, the heaviest
	// partition, and the load of topics only a few members subscribe to
	// shared among them.
	Bound float64
	// Snapshot names the weights planned with: "sha256:" and the first 16
	// hex digits of the SHA-256 of every subscribed partition's weight,
	// defaults filled in, in (topic name, partition) order, as IEEE 754
	// big-endian doubles. Equal snapshots mean equal weights.
	Snapshot string
}
