'use strict'

// @assignd/kafkajs-assigner: KafkaJS group leaders that let assignd compute
// the assignment.
//
//   const { Assignd } = require('@assignd/kafkajs-assigner')
//   const assignd = new Assignd({ target: '127.0.0.1:7070' })
//   const member = assignd.member()
//   const consumer = kafka.consumer({ groupId: 'orders', partitionAssigners: member.assigners() })
//   member.track(consumer)
//
// See README.md for the protocol names, the fallback and what KafkaJS
// cannot do (cooperative rebalancing).

const { AssigndClient, DEFAULT_PROTO, DEFAULT_TIMEOUT_MS } = require('./client')
const { MemberState } = require('./member')
const { assigndAssigner, PROTOCOLS } = require('./assigner')
const protocol = require('./protocol')
const fallback = require('./fallback')

/** One consumer's view: its sticky history and its assigners. */
class Member {
  constructor(assignd) {
    this.assignd = assignd
    this.state = new MemberState()
  }

  /**
   * The KafkaJS partitionAssigners for this consumer, in preference order.
   * @param {...('sticky'|'range'|'roundrobin')} names default: sticky, range, roundrobin
   */
  assigners(...names) {
    const list = names.length > 0 ? names : PROTOCOLS
    return list.map((name) =>
      assigndAssigner({ name, client: this.assignd.client, member: this.state, onAssign: this.assignd.onAssign }),
    )
  }

  /**
   * Follows the consumer's events to learn its assignment and generation;
   * without it, "sticky" members join as if new every time.
   * @param {import('kafkajs').Consumer} consumer
   */
  track(consumer) {
    return this.state.track(consumer)
  }
}

/** A connection to assignd shared by any number of consumers. */
class Assignd {
  /**
   * @param {object} opts
   * @param {string} opts.target gRPC target of assignd, e.g. "127.0.0.1:7070".
   * @param {number} [opts.timeoutMs] deadline of one Assign call before the fallback runs; default 3000.
   *   Keep it well under the group's rebalance timeout.
   * @param {import('@grpc/grpc-js').ChannelCredentials} [opts.credentials] default: plaintext.
   * @param {string} [opts.protoPath] default: the repository's proto/assignd/v1/assignment.proto.
   * @param {(event: object) => void} [opts.onAssign] observes every assignment a leader made.
   */
  constructor({ target, timeoutMs = DEFAULT_TIMEOUT_MS, credentials, protoPath = DEFAULT_PROTO, onAssign = () => {} }) {
    this.client = new AssigndClient({ target, timeoutMs, credentials, protoPath })
    this.onAssign = onAssign
  }

  /** State and assigners for one consumer; call once per consumer. */
  member() {
    return new Member(this)
  }

  /** Closes the gRPC channel. */
  close() {
    this.client.close()
  }
}

module.exports = { Assignd, Member, AssigndClient, assigndAssigner, MemberState, PROTOCOLS, protocol, fallback }
