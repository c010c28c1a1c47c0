'use strict'

// The gRPC client of assignd.v1.AssignmentService. The service definition is
// loaded at run time from the repository's own .proto file, so this example
// can never drift from the contract the server implements.

const path = require('node:path')
const grpc = require('@grpc/grpc-js')
const protoLoader = require('@grpc/proto-loader')

/** The repository's contract, relative to this file. */
const DEFAULT_PROTO = path.join(__dirname, '..', '..', '..', 'proto', 'assignd', 'v1', 'assignment.proto')

/**
 * The gRPC user agent, "assignd-node/<version of this package>" (grpc-js
 * appends its own), so that assignd's group history shows which client
 * software led each rebalance, as the Go client's "assignd-go/<version>"
 * does.
 */
const USER_AGENT = `assignd-node/${require('../package.json').version}`

/** How long one Assign call may take unless told otherwise (ms). */
const DEFAULT_TIMEOUT_MS = 3000

let cachedService = null

/**
 * How the contract is loaded: fields in lowerCamelCase (memberId,
 * partitionCount), and its imports ("assignd/v1/...") resolved from the
 * root of the proto tree, two directories above assignment.proto.
 * @param {string} protoPath the assignment.proto
 */
function loadOptions(protoPath) {
  return {
    includeDirs: [path.resolve(path.dirname(protoPath), '..', '..')],
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  }
}

function loadService(protoPath) {
  if (protoPath === DEFAULT_PROTO && cachedService) return cachedService
  const def = protoLoader.loadSync(protoPath, loadOptions(protoPath))
  const service = grpc.loadPackageDefinition(def).assignd.v1.AssignmentService
  if (protoPath === DEFAULT_PROTO) cachedService = service
  return service
}

/**
 * A small promise-based client of AssignmentService.
 *
 * Every call has a deadline (timeoutMs) and waits for a connection until
 * then (wait-for-ready): when assignd has just restarted, the channel may
 * still be backing off from its last failed attempt, and a fail-fast call
 * would fall back needlessly. The reconnect backoff is capped at one
 * second, so a restarted assignd is found well within the default
 * deadline; while assignd is down, each call costs the leader timeoutMs
 * before the fallback runs, which is why the deadline must stay well under
 * the group's rebalance timeout.
 */
class AssigndClient {
  /**
   * @param {object} opts
   * @param {string} opts.target gRPC target, e.g. "127.0.0.1:7070" or "dns:///assignd:7070".
   * @param {grpc.ChannelCredentials} [opts.credentials] default: plaintext.
   * @param {number} [opts.timeoutMs] per-call deadline; default 3000.
   * @param {string} [opts.protoPath] the assignment.proto to load; default: the repository's.
   */
  constructor({ target, credentials = grpc.credentials.createInsecure(), timeoutMs = DEFAULT_TIMEOUT_MS, protoPath = DEFAULT_PROTO }) {
    if (!target) throw new Error('AssigndClient needs a target, e.g. "127.0.0.1:7070"')
    const Service = loadService(protoPath)
    this.timeoutMs = timeoutMs
    this.stub = new Service(target, credentials, {
      // Reconnect quickly after assignd restarts: the default backoff can
      // reach two minutes, far longer than a rebalance.
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.primary_user_agent': USER_AGENT,
    })
  }

  /**
   * Calls Assign.
   * @param {object} request an assignd.v1.AssignRequest in lowerCamelCase
   * @returns {Promise<object>} the AssignResponse
   */
  assign(request) {
    return new Promise((resolve, reject) => {
      const md = new grpc.Metadata({ waitForReady: true })
      this.stub.assign(request, md, { deadline: Date.now() + this.timeoutMs }, (err, resp) => (err ? reject(err) : resolve(resp)))
    })
  }

  /** Closes the channel. */
  close() {
    this.stub.close()
  }
}

module.exports = { AssigndClient, DEFAULT_PROTO, DEFAULT_TIMEOUT_MS, USER_AGENT, loadOptions, status: grpc.status }
