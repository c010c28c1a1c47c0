#!/usr/bin/env node
'use strict'

// A KafkaJS consumer whose group leader asks assignd for the assignment.
// It prints one JSON object per line on stdout for every event worth
// watching (the interop tests read them): "rebalancing" (KafkaJS stopped
// fetching to rejoin: under the eager protocol it owns nothing from now
// on), "assign" (this member led a rebalance; source "assignd" or
// "fallback"), "joined" (the rebalance ended; the member's assignment),
// "generation" (the coordinator accepted the member in a generation),
// "record" (one consumed record), "stopping" (leaving the group) and
// "stopped".
// KafkaJS's own log goes to stderr.
//
// Configuration, from the environment:
//   KAFKA_BROKERS      comma-separated bootstrap brokers   (default 127.0.0.1:9092)
//   ASSIGND_TARGET     assignd's gRPC target               (default 127.0.0.1:7070)
//   GROUP_ID           consumer group                      (default assignd-example)
//   TOPICS             comma-separated topics              (required)
//   PROTOCOLS          comma-separated protocol names, preferred first
//                      (default sticky,range,roundrobin)
//   CLIENT_ID          KafkaJS client id                   (default assignd-kafkajs)
//   SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS, REBALANCE_TIMEOUT_MS,
//   MAX_WAIT_MS, ASSIGND_TIMEOUT_MS                        (KafkaJS / assigner defaults)
//
// SIGTERM or SIGINT leaves the group cleanly and exits 0.
//
//   TOPICS=orders KAFKA_BROKERS=127.0.0.1:9092 node consumer.js

const { Kafka, logLevel } = require('kafkajs')
const { Assignd } = require('./src')

const env = (name, fallback) => process.env[name] || fallback
const num = (name) => (process.env[name] ? Number(process.env[name]) : undefined)
const emit = (ev) => process.stdout.write(`${JSON.stringify({ ...ev, at: Date.now() })}\n`)

const topics = env('TOPICS', '').split(',').filter(Boolean)
if (topics.length === 0) {
  process.stderr.write('consumer.js: set TOPICS to the comma-separated topics to consume\n')
  process.exit(2)
}

const kafka = new Kafka({
  clientId: env('CLIENT_ID', 'assignd-kafkajs'),
  brokers: env('KAFKA_BROKERS', '127.0.0.1:9092').split(','),
  logLevel: logLevel.WARN,
  logCreator: () => ({ namespace, level, log }) => {
    const { message, ...extra } = log
    process.stderr.write(`${new Date().toISOString()} ${level} ${namespace} ${message} ${JSON.stringify(extra)}\n`)
  },
})

const assignd = new Assignd({
  target: env('ASSIGND_TARGET', '127.0.0.1:7070'),
  timeoutMs: num('ASSIGND_TIMEOUT_MS'),
  onAssign: (ev) => emit({ ev: 'assign', ...ev }),
})
const member = assignd.member()
const protocols = env('PROTOCOLS', 'sticky,range,roundrobin').split(',').filter(Boolean)

const consumer = kafka.consumer({
  groupId: env('GROUP_ID', 'assignd-example'),
  partitionAssigners: member.assigners(...protocols),
  sessionTimeout: num('SESSION_TIMEOUT_MS'),
  heartbeatInterval: num('HEARTBEAT_INTERVAL_MS'),
  rebalanceTimeout: num('REBALANCE_TIMEOUT_MS'),
  maxWaitTimeInMs: num('MAX_WAIT_MS'),
})
member.track(consumer)

let lastGeneration = -1
consumer.on(consumer.events.REBALANCING, ({ payload }) => emit({ ev: 'rebalancing', memberId: payload.memberId }))
consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
  emit({
    ev: 'joined',
    memberId: payload.memberId,
    leaderId: payload.leaderId,
    isLeader: payload.isLeader,
    protocol: payload.groupProtocol,
    assignment: payload.memberAssignment,
  }),
)
consumer.on(consumer.events.HEARTBEAT, ({ payload }) => {
  if (payload.groupGenerationId !== lastGeneration) {
    lastGeneration = payload.groupGenerationId
    emit({ ev: 'generation', memberId: payload.memberId, generation: payload.groupGenerationId })
  }
})

let stopping = false
async function stop(code) {
  if (stopping) return
  stopping = true
  emit({ ev: 'stopping' })
  try {
    await consumer.disconnect()
  } finally {
    assignd.close()
    emit({ ev: 'stopped' })
    process.exit(code)
  }
}
process.on('SIGTERM', () => stop(0))
process.on('SIGINT', () => stop(0))
consumer.on(consumer.events.CRASH, ({ payload }) => {
  process.stderr.write(`consumer crashed: ${payload.error && payload.error.stack}\n`)
  if (!payload.restart) stop(1)
})

async function main() {
  await consumer.connect()
  for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) =>
      emit({ ev: 'record', topic, partition, offset: Number(message.offset), value: message.value.toString() }),
  })
}

main().catch((err) => {
  process.stderr.write(`consumer.js: ${err.stack}\n`)
  stop(1)
})
