'use strict'

// Local assignments for when assignd cannot answer. They exist so that the
// group keeps consuming, not to match assignd's quality: range and
// roundrobin follow the Java assignors of those names exactly (without rack
// awareness); the sticky fallback keeps what members owned as far as an even
// count allows and hands out the rest to the least-loaded subscriber.
//
// Every function takes the members sorted by member id, each as
// {memberId, topics: Set<string>, userData: Buffer}, and a Map of topic →
// partition count, and returns a Map of member id → Map(topic → partitions).

const { decodeStickyUserData } = require('./protocol')

function emptyPlan(members) {
  return new Map(members.map((m) => [m.memberId, new Map()]))
}

function give(plan, memberId, topic, partition) {
  const byTopic = plan.get(memberId)
  if (!byTopic.has(topic)) byTopic.set(topic, [])
  byTopic.get(topic).push(partition)
}

// Topics anyone subscribes to that exist in the metadata, sorted by name.
function subscribedTopics(members, partitionCounts) {
  const all = new Set()
  for (const m of members) for (const t of m.topics) if ((partitionCounts.get(t) || 0) > 0) all.add(t)
  return [...all].sort()
}

/**
 * Java's RangeAssignor: per topic, the subscribers in member id order each
 * take a contiguous range; the first (count mod subscribers) take one more.
 */
function range(members, partitionCounts) {
  const plan = emptyPlan(members)
  for (const topic of subscribedTopics(members, partitionCounts)) {
    const subs = members.filter((m) => m.topics.has(topic))
    const n = partitionCounts.get(topic)
    const per = Math.floor(n / subs.length)
    const extra = n % subs.length
    subs.forEach((m, i) => {
      const start = per * i + Math.min(i, extra)
      const len = per + (i < extra ? 1 : 0)
      for (let p = start; p < start + len; p++) give(plan, m.memberId, topic, p)
    })
  }
  return plan
}

/**
 * Java's RoundRobinAssignor: every partition of every subscribed topic in
 * (topic, partition) order goes to the next member, in a circle of the
 * members in id order, that subscribes to its topic.
 */
function roundRobin(members, partitionCounts) {
  const plan = emptyPlan(members)
  let next = 0
  for (const topic of subscribedTopics(members, partitionCounts)) {
    for (let p = 0; p < partitionCounts.get(topic); p++) {
      while (!members[next % members.length].topics.has(topic)) next++
      give(plan, members[next % members.length].memberId, topic, p)
      next++
    }
  }
  return plan
}

// previousOwners settles the sticky claims: a partition belongs to the
// claimant with the highest generation; a tie at the highest generation
// leaves it unowned (two members cannot both keep it). Claims on partitions
// the claimant no longer subscribes to, or that no longer exist, are void.
function previousOwners(members, partitionCounts) {
  const best = new Map() // "topic\0partition" → {memberId, generation, tied}
  for (const m of members) {
    let data
    try {
      data = decodeStickyUserData(m.userData)
    } catch {
      continue // unreadable history: the member starts afresh
    }
    for (const { topic, partitions } of data.previous) {
      if (!m.topics.has(topic)) continue
      const count = partitionCounts.get(topic) || 0
      for (const p of partitions) {
        if (p < 0 || p >= count) continue
        const key = `${topic}\0${p}`
        const cur = best.get(key)
        if (!cur || data.generation > cur.generation) {
          best.set(key, { memberId: m.memberId, generation: data.generation, tied: false })
        } else if (data.generation === cur.generation && cur.memberId !== m.memberId) {
          cur.tied = true
        }
      }
    }
  }
  const owners = new Map()
  for (const [key, c] of best) if (!c.tied) owners.set(key, c.memberId)
  return owners
}

/**
 * A sticky assignment good enough to keep the group alive: every member
 * first keeps up to floor(P/N) of its previous partitions (P partitions, N
 * members), then the first (P mod N) members in id order that have more
 * may keep one extra, then every partition left goes to the subscriber
 * holding the fewest partitions (ties by member id). Balanced within one
 * partition when every member subscribes to the same topics.
 */
function sticky(members, partitionCounts) {
  const plan = emptyPlan(members)
  const topics = subscribedTopics(members, partitionCounts)
  const owners = previousOwners(members, partitionCounts)
  const claims = new Map(members.map((m) => [m.memberId, []]))
  const free = []
  for (const topic of topics) {
    for (let p = 0; p < partitionCounts.get(topic); p++) {
      const owner = owners.get(`${topic}\0${p}`)
      if (owner !== undefined) claims.get(owner).push({ topic, p })
      else free.push({ topic, p })
    }
  }
  const total = free.length + [...claims.values()].reduce((n, c) => n + c.length, 0)
  const base = Math.floor(total / members.length)
  let extra = total % members.length
  const load = new Map(members.map((m) => [m.memberId, 0]))
  for (const m of members) {
    const mine = claims.get(m.memberId)
    let keep = Math.min(base, mine.length)
    if (mine.length > keep && extra > 0) {
      keep++
      extra--
    }
    for (const { topic, p } of mine.slice(0, keep)) give(plan, m.memberId, topic, p)
    load.set(m.memberId, keep)
    free.push(...mine.slice(keep))
  }
  free.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.p - b.p))
  for (const { topic, p } of free) {
    let to = null
    for (const m of members) {
      if (!m.topics.has(topic)) continue
      if (to === null || load.get(m.memberId) < load.get(to)) to = m.memberId
    }
    give(plan, to, topic, p)
    load.set(to, load.get(to) + 1)
  }
  return plan
}

/** The fallback of each protocol name this package offers. */
const FALLBACKS = { range, roundrobin: roundRobin, sticky }

module.exports = { FALLBACKS, range, roundRobin, sticky }
