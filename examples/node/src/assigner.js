'use strict'

// The KafkaJS partition assigner backed by assignd.
//
// KafkaJS calls protocol() on every member when it joins the group and, on
// the leader only, assign() with the JoinGroup metadata of every member.
// protocol() must return synchronously, so the subscription is encoded here
// (version 0, the form KafkaJS itself writes). assign() forwards each
// member's raw metadata untouched, whatever client wrote it, together with
// the partition count of every subscribed topic; assignd decodes them,
// computes the plan and returns each member's assignment already encoded
// for SyncGroup, which KafkaJS sends as it is.
//
// KafkaJS implements only the eager rebalance protocol (every member gives
// up everything on each rebalance): there is no cooperative-sticky here.

const { encodeSubscription, decodeSubscription, encodeAssignment } = require('./protocol')
const { FALLBACKS } = require('./fallback')

/** The protocol names offered: Kafka's standard eager assignors. */
const PROTOCOLS = Object.freeze(['sticky', 'range', 'roundrobin'])

/**
 * The partition count of each topic, from the leader's cluster metadata.
 * Topics other members subscribe to are added to the metadata first, as
 * the Java leader does; a topic the cluster does not know is left out and
 * its subscribers get nothing of it (assignd warns about it).
 */
async function partitionCounts(cluster, topics) {
  await cluster.addMultipleTargetTopics(topics)
  const counts = new Map()
  for (const topic of topics) {
    const parts = cluster.findTopicPartitionMetadata(topic)
    if (parts.length > 0) counts.set(topic, Math.max(...parts.map((p) => p.partitionId)) + 1)
  }
  return counts
}

/**
 * Every member's subscription as far as this leader can read it. A member
 * whose metadata cannot be read subscribes to nothing here; assignd, which
 * reads the same bytes, rejects the request naming that member, and the
 * fallback then gives it no partitions rather than stopping the group.
 */
function readMembers(members, log) {
  return members
    .map(({ memberId, memberMetadata }) => {
      try {
        const sub = decodeSubscription(memberMetadata)
        return { memberId, topics: new Set(sub.topics), userData: sub.userData }
      } catch (err) {
        log.error('cannot read member subscription', { memberId, error: err.message })
        return { memberId, topics: new Set(), userData: Buffer.alloc(0) }
      }
    })
    .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
}

/**
 * Checks that assignd answered for exactly the members asked about, so that
 * no member is left without an assignment.
 */
function assignmentsOf(resp, members) {
  const byId = new Map(resp.assignments.map((a) => [a.memberId, a.assignment]))
  for (const { memberId } of members) {
    if (!byId.has(memberId)) throw new Error(`assignd returned no assignment for member ${memberId}`)
  }
  return members.map(({ memberId }) => ({ memberId, memberAssignment: Buffer.from(byId.get(memberId)) }))
}

/**
 * Returns a KafkaJS PartitionAssigner (a factory of assigners) offered
 * under the given protocol name.
 *
 * @param {object} opts
 * @param {'sticky'|'range'|'roundrobin'} opts.name the protocol name
 * @param {import('./client').AssigndClient} opts.client
 * @param {import('./member').MemberState} opts.member this consumer's state (sticky history)
 * @param {(event: object) => void} [opts.onAssign] called after each assign() on the leader with
 *   {groupId, protocol, source: 'assignd'|'fallback', members, error?, assignor?, policy?}
 * @returns {import('kafkajs').PartitionAssigner}
 */
function assigndAssigner({ name, client, member, onAssign = () => {} }) {
  if (!FALLBACKS[name]) throw new Error(`unknown protocol name ${JSON.stringify(name)}; offer one of ${PROTOCOLS.join(', ')}`)
  return ({ cluster, groupId, logger }) => {
    const log = logger.namespace(`AssigndAssigner:${name}`)
    return {
      name,
      version: 0,

      protocol({ topics }) {
        const userData = name === 'sticky' ? member.stickyUserData() : Buffer.alloc(0)
        // Sorted, as the Java client and franz-go write them.
        return { name, metadata: encodeSubscription([...topics].sort(), userData) }
      },

      async assign({ members }) {
        const readable = readMembers(members, log)
        const topics = [...new Set(readable.flatMap((m) => [...m.topics]))].sort()
        const counts = await partitionCounts(cluster, topics)
        const request = {
          groupId,
          // KafkaJS does not tell assigners the generation being formed;
          // assignd uses it for logs only.
          generationId: 0,
          protocolName: name,
          rebalanceProtocol: 'REBALANCE_PROTOCOL_EAGER',
          members: members.map(({ memberId, memberMetadata }) => ({ memberId, metadata: memberMetadata })),
          topics: [...counts].map(([topic, n]) => ({ name: topic, partitionCount: n })),
          leaderId: member.memberId || '',
          // KafkaJS sends the encoded assignments as they are.
          view: 'ASSIGNMENT_VIEW_ENCODED',
        }
        try {
          const resp = await client.assign(request)
          const out = assignmentsOf(resp, members)
          log.info('assigned by assignd', { groupId, members: members.length, assignor: `${resp.assignor}@${resp.assignorVersion}`, policy: resp.policy, warnings: resp.warnings })
          onAssign({ groupId, protocol: name, source: 'assignd', members: members.length, assignor: resp.assignor, policy: resp.policy })
          return out
        } catch (err) {
          // The group must not stall because assignd is down, slow or
          // rejects the request: assign locally and say so.
          log.warn('assignd failed; assigning locally with the fallback', { groupId, protocol: name, code: err.code, error: err.message })
          const plan = FALLBACKS[name](readable, counts)
          onAssign({ groupId, protocol: name, source: 'fallback', members: members.length, error: err.message })
          return readable.map(({ memberId }) => ({ memberId, memberAssignment: encodeAssignment(plan.get(memberId)) }))
        }
      },
    }
  }
}

module.exports = { assigndAssigner, PROTOCOLS }
