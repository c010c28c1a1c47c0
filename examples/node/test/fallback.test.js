'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const { range, roundRobin, sticky } = require('../src/fallback')
const { encodeStickyUserData, NO_GENERATION } = require('../src/protocol')

// member builds a fallback input member; history is [{topic, partitions}].
function member(memberId, topics, history, generation = 1) {
  const userData = history ? encodeStickyUserData(history, generation) : Buffer.alloc(0)
  return { memberId, topics: new Set(topics), userData }
}

function sorted(members) {
  return [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : 1))
}

// plain turns a plan into {member: {topic: [partitions sorted]}} for deepEqual.
function plain(plan) {
  const out = {}
  for (const [m, byTopic] of plan) {
    out[m] = {}
    for (const [t, ps] of byTopic) out[m][t] = [...ps].sort((a, b) => a - b)
  }
  return out
}

// checkPlan is the invariant every fallback keeps: each partition of every
// subscribed topic goes to exactly one member, and only to a subscriber.
function checkPlan(members, counts, plan) {
  const owner = new Map()
  for (const m of members) {
    assert.ok(plan.has(m.memberId), `${m.memberId} has no entry`)
    for (const [topic, ps] of plan.get(m.memberId)) {
      assert.ok(m.topics.has(topic), `${m.memberId} got ${topic} it does not subscribe to`)
      for (const p of ps) {
        const key = `${topic}/${p}`
        assert.ok(p >= 0 && p < counts.get(topic), `${key} does not exist`)
        assert.ok(!owner.has(key), `${key} given to ${owner.get(key)} and ${m.memberId}`)
        owner.set(key, m.memberId)
      }
    }
  }
  for (const [topic, n] of counts) {
    if (!members.some((m) => m.topics.has(topic))) continue
    for (let p = 0; p < n; p++) assert.ok(owner.has(`${topic}/${p}`), `${topic}/${p} is unassigned`)
  }
}

function sizes(plan) {
  return [...plan.values()].map((byTopic) => [...byTopic.values()].reduce((n, ps) => n + ps.length, 0))
}

test('range: the Java RangeAssignor example', () => {
  const members = sorted([member('C0', ['t0', 't1']), member('C1', ['t0', 't1'])])
  const counts = new Map([['t0', 3], ['t1', 3]])
  const plan = range(members, counts)
  checkPlan(members, counts, plan)
  assert.deepEqual(plain(plan), { C0: { t0: [0, 1], t1: [0, 1] }, C1: { t0: [2], t1: [2] } })
})

test('roundrobin: the Java RoundRobinAssignor examples', () => {
  const counts = new Map([['t0', 3], ['t1', 3]])
  const same = sorted([member('C0', ['t0', 't1']), member('C1', ['t0', 't1'])])
  assert.deepEqual(plain(roundRobin(same, counts)), { C0: { t0: [0, 2], t1: [1] }, C1: { t0: [1], t1: [0, 2] } })

  const counts2 = new Map([['t0', 1], ['t1', 2], ['t2', 3]])
  const mixed = sorted([member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t0', 't1', 't2'])])
  const plan = roundRobin(mixed, counts2)
  checkPlan(mixed, counts2, plan)
  assert.deepEqual(plain(plan), { C0: { t0: [0] }, C1: { t1: [0] }, C2: { t1: [1], t2: [0, 1, 2] } })
})

test('sticky: members keep their partitions and the newcomer takes the surplus', () => {
  const counts = new Map([['t', 6]])
  const members = sorted([
    member('a', ['t'], [{ topic: 't', partitions: [0, 1, 2] }]),
    member('b', ['t'], [{ topic: 't', partitions: [3, 4, 5] }]),
    member('c', ['t']),
  ])
  const plan = sticky(members, counts)
  checkPlan(members, counts, plan)
  const p = plain(plan)
  assert.deepEqual(sizes(plan), [2, 2, 2])
  assert.ok(p.a.t.every((x) => [0, 1, 2].includes(x)), 'a keeps only its own')
  assert.ok(p.b.t.every((x) => [3, 4, 5].includes(x)), 'b keeps only its own')
})

test('sticky: conflicting claims go to the newer generation, ties to nobody', () => {
  const counts = new Map([['t', 2]])
  const newer = sorted([
    member('a', ['t'], [{ topic: 't', partitions: [0] }], 5),
    member('b', ['t'], [{ topic: 't', partitions: [0] }], 4),
  ])
  assert.deepEqual(plain(sticky(newer, counts)), { a: { t: [0] }, b: { t: [1] } })

  const tied = sorted([
    member('a', ['t'], [{ topic: 't', partitions: [1] }], 4),
    member('b', ['t'], [{ topic: 't', partitions: [1] }], 4),
  ])
  // Neither keeps partition 1: it is handed out like a free partition.
  assert.deepEqual(plain(sticky(tied, counts)), { a: { t: [0] }, b: { t: [1] } })

  const stale = sorted([
    member('a', ['t'], [{ topic: 't', partitions: [0, 1] }], NO_GENERATION),
    member('b', ['t'], [{ topic: 't', partitions: [1] }], 3),
  ])
  assert.deepEqual(plain(sticky(stale, counts)), { a: { t: [0] }, b: { t: [1] } })
})

test('sticky: unreadable history and claims on unsubscribed or missing partitions are ignored', () => {
  const counts = new Map([['t', 2], ['u', 1]])
  const members = sorted([
    { memberId: 'a', topics: new Set(['t']), userData: Buffer.from('garbage') },
    member('b', ['t'], [{ topic: 'u', partitions: [0] }, { topic: 't', partitions: [7] }]),
  ])
  const plan = sticky(members, counts)
  checkPlan(members, counts, plan)
  assert.deepEqual(sizes(plan), [1, 1])
})

// A small seeded generator, so that failures reproduce.
function rng(seed) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

test('property: every fallback keeps the invariant on random groups; sticky balances and keeps', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed)
    const topics = ['t0', 't1', 't2'].slice(0, 1 + Math.floor(r() * 3))
    const counts = new Map(topics.map((t) => [t, Math.floor(r() * 12)]))
    const n = 1 + Math.floor(r() * 6)
    const uniform = r() < 0.5
    // Previous owners: a random valid assignment among some of the members.
    const history = new Map()
    for (const [t, c] of counts) {
      for (let p = 0; p < c; p++) {
        if (r() < 0.7) {
          const m = `m${Math.floor(r() * n)}`
          if (!history.has(m)) history.set(m, new Map())
          if (!history.get(m).has(t)) history.get(m).set(t, [])
          history.get(m).get(t).push(p)
        }
      }
    }
    const members = sorted(
      Array.from({ length: n }, (_, i) => {
        const subs = uniform ? topics : topics.filter(() => r() < 0.7)
        const h = history.get(`m${i}`)
        const prev = h ? [...h].map(([topic, partitions]) => ({ topic, partitions })) : null
        return member(`m${i}`, subs.length ? subs : [topics[0]], prev, 3)
      }),
    )
    for (const fn of [range, roundRobin, sticky]) checkPlan(members, counts, fn(members, counts))

    if (!uniform) continue
    const plan = sticky(members, counts)
    const s = sizes(plan)
    assert.ok(Math.max(...s) - Math.min(...s) <= 1, `seed ${seed}: sticky sizes ${s}`)
    // Every member keeps min(its history, floor(total / n)) of what it had.
    const total = [...counts.values()].reduce((a, b) => a + b, 0)
    for (const m of members) {
      const had = history.get(m.memberId)
      if (!had) continue
      const hadCount = [...had.values()].reduce((a, ps) => a + ps.length, 0)
      const mine = plan.get(m.memberId)
      let kept = 0
      for (const [t, ps] of had) for (const p of ps) if ((mine.get(t) || []).includes(p)) kept++
      assert.ok(kept >= Math.min(hadCount, Math.floor(total / n)), `seed ${seed}: ${m.memberId} kept ${kept} of ${hadCount}`)
    }
  }
})
