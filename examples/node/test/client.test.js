'use strict'

const test = require('node:test')
const assert = require('node:assert/strict')
const grpc = require('@grpc/grpc-js')
const protoLoader = require('@grpc/proto-loader')
const { AssigndClient, DEFAULT_PROTO, USER_AGENT, loadOptions } = require('../src/client')

// The client's Assign calls carry the user agent "assignd-node/<version>"
// first, as the Go client sends "assignd-go/<version>": assignd's group
// history shows it for each rebalance.
test('Assign calls carry the assignd-node user agent', async () => {
  const def = protoLoader.loadSync(DEFAULT_PROTO, loadOptions(DEFAULT_PROTO))
  const { AssignmentService } = grpc.loadPackageDefinition(def).assignd.v1
  const seen = []
  const server = new grpc.Server()
  server.addService(AssignmentService.service, {
    assign(call, callback) {
      seen.push(call.metadata.get('user-agent').join(' '))
      callback({ code: grpc.status.UNAVAILABLE, details: 'only the headers matter here' })
    },
  })
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))))
  const client = new AssigndClient({ target: `127.0.0.1:${port}`, timeoutMs: 10000 })
  try {
    await assert.rejects(client.assign({ groupId: 'g', protocolName: 'range' }), (err) => err.code === grpc.status.UNAVAILABLE)
  } finally {
    client.close()
    server.forceShutdown()
  }
  const { version } = require('../package.json')
  assert.equal(USER_AGENT, `assignd-node/${version}`)
  assert.equal(seen.length, 1)
  assert.ok(seen[0].startsWith(`${USER_AGENT} `), `user agent ${seen[0]}`)
  assert.match(seen[0], /grpc-node-js\//, "grpc-js's own part is kept")
})
