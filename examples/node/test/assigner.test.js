'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { assigndAssigner } = require('../src/assigner')
const { MemberState } = require('../src/member')
const p = require('../src/protocol')
const { AssigndClient } = require('../src/client')

// A KafkaJS cluster with fixed metadata that records the topics it was
// asked to add.
function fakeCluster(counts) {
  const added = []
  return {
    added,
    async addMultipleTargetTopics(topics) {
      added.push(...topics)
    },
    findTopicPartitionMetadata(topic) {
      return Array.from({ length: counts[topic] || 0 }, (_, i) => ({ partitionId: i }))
    },
  }
}

function fakeLogger() {
  const lines = []
  const log = (level) => (message, extra) => lines.push({ level, message, extra })
  const logger = { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') }
  logger.namespace = () => logger
  return { logger, lines }
}

function setup({ name = 'sticky', client, counts = { orders: 4, audit: 2 } }) {
  const member = new MemberState()
  const events = []
  const cluster = fakeCluster(counts)
  const { logger, lines } = fakeLogger()
  const assigner = assigndAssigner({ name, client, member, onAssign: (e) => events.push(e) })({ cluster, groupId: 'g', logger })
  return { assigner, member, events, cluster, lines }
}

const members = [
  { memberId: 'b', memberMetadata: p.encodeSubscription(['orders']) },
  { memberId: 'a', memberMetadata: p.encodeSubscription(['orders', 'audit']) },
]

test('protocol() encodes the subscription and, for sticky, the history', () => {
  const { assigner, member } = setup({ client: {} })
  member.joined('m', { orders: [1] })
  member.confirmedIn('m', 2)
  const { name, metadata } = assigner.protocol({ topics: ['orders'] })
  assert.equal(name, 'sticky')
  const sub = p.decodeSubscription(metadata)
  assert.deepEqual(sub.topics, ['orders'])
  assert.deepEqual(p.decodeStickyUserData(sub.userData), { previous: [{ topic: 'orders', partitions: [1] }], generation: 2 })

  const { assigner: ranged } = setup({ name: 'range', client: {} })
  assert.deepEqual(p.decodeSubscription(ranged.protocol({ topics: ['orders'] }).metadata).userData, Buffer.alloc(0))
})

test('assign() forwards raw metadata and partition counts and returns assignd\'s bytes', async () => {
  let request
  const client = {
    async assign(req) {
      request = req
      return {
        assignor: 'sticky',
        assignorVersion: 1,
        policy: 'default/x',
        warnings: [],
        assignments: [
          { memberId: 'a', assignment: Buffer.from('aaaa', 'hex') },
          { memberId: 'b', assignment: Buffer.from('bbbb', 'hex') },
        ],
      }
    },
  }
  const { assigner, events, cluster } = setup({ client })
  const out = await assigner.assign({ members, topics: ['orders'] })
  assert.deepEqual(out, [
    { memberId: 'b', memberAssignment: Buffer.from('bbbb', 'hex') },
    { memberId: 'a', memberAssignment: Buffer.from('aaaa', 'hex') },
  ])
  assert.equal(request.protocolName, 'sticky')
  assert.equal(request.rebalanceProtocol, 'REBALANCE_PROTOCOL_EAGER')
  assert.deepEqual(request.members, members.map((m) => ({ memberId: m.memberId, metadata: m.memberMetadata })))
  // "audit" only a follower subscribes to: the leader fetched its metadata too.
  assert.deepEqual(request.topics, [{ name: 'audit', partitionCount: 2 }, { name: 'orders', partitionCount: 4 }])
  assert.deepEqual(cluster.added, ['audit', 'orders'])
  assert.equal(events[0].source, 'assignd')
})

test('assign() falls back locally when assignd fails, and says so', async () => {
  const err = Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 })
  const { assigner, events, lines } = setup({ name: 'range', client: { assign: async () => { throw err } } })
  const out = await assigner.assign({ members, topics: ['orders'] })
  const plan = Object.fromEntries(out.map(({ memberId, memberAssignment }) => [memberId, p.decodeAssignment(memberAssignment)]))
  // Java's range: orders split a:[0,1], b:[2,3]; audit only to a.
  assert.deepEqual(plan, {
    a: [{ topic: 'audit', partitions: [0, 1] }, { topic: 'orders', partitions: [0, 1] }],
    b: [{ topic: 'orders', partitions: [2, 3] }],
  })
  assert.equal(events[0].source, 'fallback')
  assert.ok(lines.some((l) => l.level === 'warn' && l.extra.code === 14))
})

test('assign() falls back when assignd leaves a member out', async () => {
  const client = { assign: async () => ({ assignments: [{ memberId: 'a', assignment: Buffer.alloc(0) }], warnings: [] }) }
  const { assigner, events } = setup({ name: 'roundrobin', client })
  const out = await assigner.assign({ members, topics: ['orders'] })
  assert.deepEqual(out.map((o) => o.memberId), ['a', 'b'])
  assert.equal(events[0].source, 'fallback')
  assert.match(events[0].error, /no assignment for member b/)
})

test('an unknown protocol name is refused up front', () => {
  assert.throws(() => assigndAssigner({ name: 'cooperative-sticky', client: {}, member: new MemberState() }), /unknown protocol name/)
})

test('AssigndClient gives up at its deadline when nothing listens', async () => {
  const client = new AssigndClient({ target: '127.0.0.1:1', timeoutMs: 300 })
  const start = Date.now()
  await assert.rejects(client.assign({ groupId: 'g', protocolName: 'range' }), (e) => e.code === 4 || e.code === 14)
  assert.ok(Date.now() - start < 3000, 'the call outlived its deadline')
  client.close()
})
