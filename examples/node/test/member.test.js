'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { EventEmitter } = require('node:events')
const { MemberState } = require('../src/member')
const { decodeStickyUserData, NO_GENERATION } = require('../src/protocol')

test('a new member sends no history', () => {
  assert.deepEqual(new MemberState().stickyUserData(), Buffer.alloc(0))
})

test('the assignment is sent with the generation a heartbeat confirmed', () => {
  const s = new MemberState()
  s.joined('m1', { orders: [3, 1], audit: [0] })
  // Not yet confirmed: V0, no generation.
  assert.deepEqual(decodeStickyUserData(s.stickyUserData()), {
    previous: [
      { topic: 'audit', partitions: [0] },
      { topic: 'orders', partitions: [1, 3] },
    ],
    generation: NO_GENERATION,
  })
  s.confirmedIn('m1', 4)
  assert.equal(decodeStickyUserData(s.stickyUserData()).generation, 4)
})

test('a heartbeat from before the rebalance does not date the new assignment', () => {
  const s = new MemberState()
  s.joined('m1', { t: [0] })
  s.confirmedIn('m1', 4)
  s.joined('m1', { t: [1] })
  s.confirmedIn('m1', 4) // sent before the rejoin
  s.confirmedIn('other', 9) // another member id
  assert.equal(decodeStickyUserData(s.stickyUserData()).generation, NO_GENERATION)
  s.confirmedIn('m1', 5)
  s.confirmedIn('m1', 6) // the first confirmation stands
  assert.deepEqual(decodeStickyUserData(s.stickyUserData()), { previous: [{ topic: 't', partitions: [1] }], generation: 5 })
})

test('track follows GROUP_JOIN, HEARTBEAT and COMMIT_OFFSETS', () => {
  const consumer = new EventEmitter()
  consumer.events = { GROUP_JOIN: 'join', HEARTBEAT: 'hb', COMMIT_OFFSETS: 'commit' }
  // KafkaJS's consumer.on returns a function that removes the listener.
  const on = consumer.on.bind(consumer)
  consumer.on = (ev, fn) => {
    on(ev, fn)
    return () => consumer.off(ev, fn)
  }
  const s = new MemberState()
  const stop = s.track(consumer)
  consumer.emit('join', { payload: { memberId: 'm1', memberAssignment: { t: [2] } } })
  consumer.emit('commit', { payload: { memberId: 'm1', groupGenerationId: 3 } })
  assert.deepEqual(decodeStickyUserData(s.stickyUserData()), { previous: [{ topic: 't', partitions: [2] }], generation: 3 })
  stop()
  consumer.emit('join', { payload: { memberId: 'm1', memberAssignment: { t: [5] } } })
  assert.deepEqual(decodeStickyUserData(s.stickyUserData()).previous, [{ topic: 't', partitions: [2] }])
})
