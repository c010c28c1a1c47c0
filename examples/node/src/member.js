'use strict'

// What one KafkaJS consumer remembers between rebalances for the eager
// "sticky" protocol: the partitions it was last assigned and the generation
// they belong to, sent back in its next JoinGroup as StickyAssignorUserData
// V1 so that the leader (assignd) can keep them where they are.
//
// KafkaJS tells a partition assigner neither its own assignment nor the
// generation, so both are learned from the consumer's instrumentation
// events: GROUP_JOIN carries the assignment just received; the next
// HEARTBEAT or COMMIT_OFFSETS carries the generation it belongs to. Until
// one of those arrives the generation is unknown and the data is written as
// V0 (no generation), which a leader reads as a claim weaker than any claim
// with a generation (KIP-341).

const { NO_GENERATION, encodeStickyUserData } = require('./protocol')

class MemberState {
  constructor() {
    /** @type {{topic: string, partitions: number[]}[]} */
    this.assignment = []
    this.generation = NO_GENERATION
    this.memberId = null
    // The generation of the assignment before the current one: a heartbeat
    // reporting it (or anything older) predates the current assignment.
    this.previousGeneration = NO_GENERATION
    this.confirmed = true
  }

  /**
   * Records the assignment a consumer just received (GROUP_JOIN).
   * @param {string} memberId
   * @param {Object<string, number[]>} memberAssignment topic → partitions
   */
  joined(memberId, memberAssignment) {
    this.memberId = memberId
    this.assignment = Object.keys(memberAssignment)
      .sort()
      .map((topic) => ({ topic, partitions: [...memberAssignment[topic]].sort((a, b) => a - b) }))
    if (this.confirmed) this.previousGeneration = this.generation
    this.generation = NO_GENERATION
    this.confirmed = false
  }

  /**
   * Records a generation the group coordinator accepted for this member
   * (HEARTBEAT, COMMIT_OFFSETS). Only a generation newer than the previous
   * assignment's can be the current assignment's: an older one comes from
   * a request sent before the rebalance, and is ignored.
   * @param {string} memberId
   * @param {number} generation
   */
  confirmedIn(memberId, generation) {
    if (this.confirmed || memberId !== this.memberId || generation <= this.previousGeneration) return
    this.generation = generation
    this.confirmed = true
  }

  /** The StickyAssignorUserData for the next JoinGroup. */
  stickyUserData() {
    if (this.memberId === null) return Buffer.alloc(0)
    return encodeStickyUserData(this.assignment, this.generation)
  }

  /**
   * Follows a KafkaJS consumer's instrumentation events. Call it once per
   * consumer, before consumer.run().
   * @param {import('kafkajs').Consumer} consumer
   * @returns {() => void} removes the listeners
   */
  track(consumer) {
    const { GROUP_JOIN, HEARTBEAT, COMMIT_OFFSETS } = consumer.events
    const offs = [
      consumer.on(GROUP_JOIN, ({ payload }) => this.joined(payload.memberId, payload.memberAssignment)),
      consumer.on(HEARTBEAT, ({ payload }) => this.confirmedIn(payload.memberId, payload.groupGenerationId)),
      consumer.on(COMMIT_OFFSETS, ({ payload }) => this.confirmedIn(payload.memberId, payload.groupGenerationId)),
    ]
    return () => offs.forEach((off) => off())
  }
}

module.exports = { MemberState }
