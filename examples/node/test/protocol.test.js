'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { AssignerProtocol } = require('kafkajs')
const p = require('../src/protocol')

test('encodeSubscription writes version 0 exactly as KafkaJS does', () => {
  const userData = Buffer.from([1, 2, 3])
  const ours = p.encodeSubscription(['orders', 'audit'], userData)
  const kafkajs = AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['orders', 'audit'], userData })
  assert.deepEqual(ours, kafkajs)
  // version 0, 2 topics, "orders", "audit", 3 bytes of user data
  assert.equal(ours.toString('hex'), '0000' + '00000002' + '0006' + Buffer.from('orders').toString('hex') + '0005' + Buffer.from('audit').toString('hex') + '00000003' + '010203')
})

test('decodeSubscription reads the shared prefix of every version', () => {
  const v0 = p.encodeSubscription(['a', 'b'], Buffer.from('ud'))
  assert.deepEqual(p.decodeSubscription(v0), { version: 0, topics: ['a', 'b'], userData: Buffer.from('ud') })

  // A v1 subscription: the owned partitions follow the user data.
  const owned = Buffer.from('00000001000161000000010000000' + '7', 'hex')
  const v1 = Buffer.concat([Buffer.from([0, 1]), v0.subarray(2), owned])
  assert.deepEqual(p.decodeSubscription(v1), { version: 1, topics: ['a', 'b'], userData: Buffer.from('ud') })

  // Null user data (-1) and absent user data both read as empty.
  const nullUD = Buffer.concat([v0.subarray(0, v0.length - 6), Buffer.from('ffffffff', 'hex')])
  assert.deepEqual(p.decodeSubscription(nullUD).userData, Buffer.alloc(0))
  assert.deepEqual(p.decodeSubscription(v0.subarray(0, v0.length - 6)).userData, Buffer.alloc(0))
})

test('decodeSubscription rejects malformed input without allocating for it', () => {
  const cases = {
    empty: Buffer.alloc(0),
    'negative version': Buffer.from('ffff00000000', 'hex'),
    'huge topic count': Buffer.from('00007fffffff', 'hex'),
    'negative topic count': Buffer.from('0000ffffffff', 'hex'),
    'truncated topic name': Buffer.from('000000000001000561', 'hex'),
    'truncated user data': Buffer.from('00000000000000000005aa', 'hex'),
  }
  for (const [name, buf] of Object.entries(cases)) {
    assert.throws(() => p.decodeSubscription(buf), p.MalformedError, name)
  }
})

test('sticky user data: V1 with a generation, V0 without', () => {
  const prev = [
    { topic: 'audit', partitions: [1] },
    { topic: 'orders', partitions: [0, 4] },
  ]
  const v1 = p.encodeStickyUserData(prev, 7)
  assert.deepEqual(p.decodeStickyUserData(v1), { previous: prev, generation: 7 })
  assert.equal(v1.readInt32BE(v1.length - 4), 7)

  const v0 = p.encodeStickyUserData(prev, p.NO_GENERATION)
  assert.equal(v0.length, v1.length - 4)
  assert.deepEqual(p.decodeStickyUserData(v0), { previous: prev, generation: p.NO_GENERATION })

  assert.deepEqual(p.decodeStickyUserData(Buffer.alloc(0)), { previous: [], generation: p.NO_GENERATION })
  assert.throws(() => p.decodeStickyUserData(Buffer.from('00000005', 'hex')), p.MalformedError)
})

test('encodeAssignment is canonical and KafkaJS reads it', () => {
  const a = p.encodeAssignment({ orders: [5, 1, 3], audit: [2], empty: [] })
  const b = p.encodeAssignment(new Map([['audit', [2]], ['orders', [1, 3, 5]]]))
  assert.deepEqual(a, b)
  assert.deepEqual(AssignerProtocol.MemberAssignment.decode(a), {
    version: 0,
    assignment: { audit: [2], orders: [1, 3, 5] },
    userData: Buffer.alloc(0),
  })
  assert.deepEqual(p.decodeAssignment(a), [
    { topic: 'audit', partitions: [2] },
    { topic: 'orders', partitions: [1, 3, 5] },
  ])
  assert.deepEqual(p.decodeAssignment(Buffer.alloc(0)), [])
})
