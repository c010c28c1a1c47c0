'use strict'

// The Kafka consumer protocol bytes this package writes and reads itself:
// the JoinGroup subscription of a KafkaJS member, the eager sticky
// assignor's user data, and the SyncGroup assignment. All of it is the
// classic (non-flexible) Kafka encoding: big-endian integers, strings with
// an int16 length, arrays and byte arrays with an int32 length.
//
// Schemas (Kafka's ConsumerProtocolSubscription / ConsumerProtocolAssignment
// and StickyAssignorUserData; assign/wire is the Go implementation assignd
// decodes them with):
//
//   Subscription v0: version int16, topics []string, user_data bytes
//                    (v1+ append owned partitions, v2 generation, v3 rack:
//                    we read only the v0 prefix, which every version shares)
//   Assignment v0:   version int16, []{topic string, partitions []int32},
//                    user_data bytes
//   StickyAssignorUserData V1 (KIP-341): []{topic string, partitions []int32},
//                    generation int32 (V0 stops before the generation)

/** The generation a member reports when it does not know one (Java's -1). */
const NO_GENERATION = -1

class Writer {
  constructor() {
    this.chunks = []
  }

  int16(v) {
    const b = Buffer.alloc(2)
    b.writeInt16BE(v)
    this.chunks.push(b)
    return this
  }

  int32(v) {
    const b = Buffer.alloc(4)
    b.writeInt32BE(v)
    this.chunks.push(b)
    return this
  }

  string(s) {
    const bytes = Buffer.from(s, 'utf8')
    if (bytes.length > 0x7fff) throw new RangeError(`string of ${bytes.length} bytes is too long for an int16 length`)
    this.int16(bytes.length)
    this.chunks.push(bytes)
    return this
  }

  bytes(b) {
    this.int32(b.length)
    this.chunks.push(Buffer.from(b))
    return this
  }

  array(items, writeOne) {
    this.int32(items.length)
    for (const item of items) writeOne(this, item)
    return this
  }

  topicPartitions(tps) {
    return this.array(tps, (w, { topic, partitions }) => {
      w.string(topic)
      w.array(partitions, (w2, p) => w2.int32(p))
    })
  }

  buffer() {
    return Buffer.concat(this.chunks)
  }
}

/** Thrown for bytes that do not follow the schema being read. */
class MalformedError extends Error {
  constructor(what, message) {
    super(`malformed ${what}: ${message}`)
    this.name = 'MalformedError'
  }
}

class Reader {
  constructor(buf, what) {
    this.buf = buf
    this.off = 0
    this.what = what
  }

  left() {
    return this.buf.length - this.off
  }

  need(n, field) {
    if (this.left() < n) {
      throw new MalformedError(this.what, `${field} needs ${n} bytes at offset ${this.off}, ${this.left()} left`)
    }
  }

  int16(field) {
    this.need(2, field)
    const v = this.buf.readInt16BE(this.off)
    this.off += 2
    return v
  }

  int32(field) {
    this.need(4, field)
    const v = this.buf.readInt32BE(this.off)
    this.off += 4
    return v
  }

  string(field) {
    const n = this.int16(field)
    if (n < 0) throw new MalformedError(this.what, `${field} has negative length ${n}`)
    this.need(n, field)
    const s = this.buf.toString('utf8', this.off, this.off + n)
    this.off += n
    return s
  }

  // Null (negative length) and empty both read as an empty buffer.
  nullableBytes(field) {
    const n = this.int32(field)
    if (n < 0) return Buffer.alloc(0)
    this.need(n, field)
    const b = this.buf.subarray(this.off, this.off + n)
    this.off += n
    return b
  }

  // minElem is the smallest encoding of one element: a count the
  // remaining bytes cannot hold is rejected before anything is allocated.
  array(field, minElem, readOne) {
    const n = this.int32(field)
    if (n < 0) throw new MalformedError(this.what, `${field} has negative count ${n}`)
    if (n * minElem > this.left()) {
      throw new MalformedError(this.what, `${field} claims ${n} elements but only ${this.left()} bytes are left`)
    }
    const out = new Array(n)
    for (let i = 0; i < n; i++) out[i] = readOne(this, i)
    return out
  }

  topicPartitions(field) {
    return this.array(field, 6, (r, i) => ({
      topic: r.string(`${field}[${i}].topic`),
      partitions: r.array(`${field}[${i}].partitions`, 4, (r2) => r2.int32(`${field}[${i}].partitions`)),
    }))
  }
}

/**
 * Encodes a version 0 ConsumerProtocolSubscription: the form KafkaJS itself
 * sends, which every Kafka client and assignd can read.
 * @param {string[]} topics
 * @param {Buffer} [userData]
 * @returns {Buffer}
 */
function encodeSubscription(topics, userData = Buffer.alloc(0)) {
  return new Writer()
    .int16(0)
    .array(topics, (w, t) => w.string(t))
    .bytes(userData)
    .buffer()
}

/**
 * Reads the part of a ConsumerProtocolSubscription that every version
 * shares: version, topics, user data. Later fields (owned partitions,
 * generation, rack) are left unread; the leader forwards the raw bytes to
 * assignd, which reads them all.
 * @param {Buffer} buf
 * @returns {{version: number, topics: string[], userData: Buffer}}
 */
function decodeSubscription(buf) {
  const r = new Reader(buf, 'ConsumerProtocolSubscription')
  const version = r.int16('version')
  if (version < 0) throw new MalformedError('ConsumerProtocolSubscription', `negative version ${version}`)
  const topics = r.array('topics', 2, (r2, i) => r2.string(`topics[${i}]`))
  // A v0 writer may stop after the topics (user data absent): Java reads
  // that as null user data.
  const userData = r.left() === 0 ? Buffer.alloc(0) : r.nullableBytes('user_data')
  return { version, topics, userData }
}

/**
 * Encodes StickyAssignorUserData V1: the member's previous assignment and
 * the generation it was received in. With an unknown generation it writes
 * V0, as the Java client does for data without one.
 * @param {{topic: string, partitions: number[]}[]} previous
 * @param {number} generation
 * @returns {Buffer}
 */
function encodeStickyUserData(previous, generation) {
  const w = new Writer().topicPartitions(previous)
  if (generation !== NO_GENERATION) w.int32(generation)
  return w.buffer()
}

/**
 * Decodes StickyAssignorUserData V0 or V1 (told apart by whether a
 * generation follows). Empty input is a member without history.
 * @param {Buffer} buf
 * @returns {{previous: {topic: string, partitions: number[]}[], generation: number}}
 */
function decodeStickyUserData(buf) {
  if (buf.length === 0) return { previous: [], generation: NO_GENERATION }
  const r = new Reader(buf, 'StickyAssignorUserData')
  const previous = r.topicPartitions('previous_assignment')
  const generation = r.left() >= 4 ? r.int32('generation') : NO_GENERATION
  return { previous, generation }
}

/**
 * Encodes a version 0 ConsumerProtocolAssignment, readable by every client.
 * Topics are written sorted by name and partitions ascending, so equal
 * assignments give equal bytes.
 * @param {Map<string, number[]>|Object<string, number[]>} assignment topic → partitions
 * @returns {Buffer}
 */
function encodeAssignment(assignment) {
  const entries = assignment instanceof Map ? [...assignment.entries()] : Object.entries(assignment)
  const tps = entries
    .filter(([, ps]) => ps.length > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([topic, ps]) => ({ topic, partitions: [...ps].sort((x, y) => x - y) }))
  return new Writer().int16(0).topicPartitions(tps).bytes(Buffer.alloc(0)).buffer()
}

/**
 * Decodes a ConsumerProtocolAssignment of any version (every version starts
 * with the same fields). Empty input is the empty assignment.
 * @param {Buffer} buf
 * @returns {{topic: string, partitions: number[]}[]}
 */
function decodeAssignment(buf) {
  if (buf.length === 0) return []
  const r = new Reader(buf, 'ConsumerProtocolAssignment')
  const version = r.int16('version')
  if (version < 0) throw new MalformedError('ConsumerProtocolAssignment', `negative version ${version}`)
  return r.topicPartitions('assigned_partitions')
}

module.exports = {
  NO_GENERATION,
  MalformedError,
  encodeSubscription,
  decodeSubscription,
  encodeStickyUserData,
  decodeStickyUserData,
  encodeAssignment,
  decodeAssignment,
}
