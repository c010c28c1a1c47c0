// Package interop proves, end to end, that group members and leaders that
// were not written in Go, nor by this project, work with assignd:
//
//   - KafkaJS (Node.js) consumers whose leader asks assignd through the
//     example assigner in examples/node, in one eager group with franz-go
//     members;
//   - kafka-python 3.x consumers (client/python's venv): a leader on
//     assignd.CooperativeStickyAssignor with kgoassign members, and a plain
//     member in a group the shim leads;
//   - librdkafka consumers (kcat, Debian's build) in cooperative-sticky
//     groups led by the franz-go shim (client/kgoassign), and led by
//     librdkafka's own assignor, with the shim keeping its plan sticky.
//
// Everything runs on one machine on 127.0.0.1: franz-go's in-process Kafka
// broker (kfake), or with ASSIGND_BROKER=kafka a real Apache Kafka broker
// (grouplab.StartBroker), assignd in-process, and the foreign clients as
// subprocesses in their own process groups, killed when a test ends. The
// package holds tests only. They need `node` with `npm ci` run in
// examples/node, `kcat`, and client/python's venv (ASSIGND_PYTHON, made by
// scripts/test.sh); a test whose prerequisite is missing is skipped with a
// message saying what to install, unless ASSIGND_INTEROP is "require" (CI
// sets it), in which case it fails.
//
// How ownership is observed, member by member:
//   - franz-go: the OnPartitionsAssigned/Revoked/Lost callbacks;
//   - KafkaJS: consumer.js prints "rebalancing" (KafkaJS has stopped
//     fetching and is about to rejoin: under the eager protocol it owns
//     nothing from then on) and "joined" (its new assignment);
//   - kafka-python: testdata/kafka_python_member.py prints its rebalance
//     listener's calls (only the partitions that changed) as JSON lines;
//   - kcat: its rebalance callback lines on stderr ("assigned",
//     "incrementally assigned", "incrementally revoked", "revoked").
//
// Every line is stamped when the test reads it; a partition moves only
// after its previous owner gave it up and the group went through a JoinGroup
// and SyncGroup round, so reading order is causal order with a wide margin.
// Beside this client-side view the broker-side view is checked too: every
// JoinGroup and SyncGroup request is observed through kfake's control hooks
// (on Kafka, through the broker's tap: a proxy every client connects through),
// so each leader's plan can be compared with what the members said they
// owned when they joined (KIP-429's rule: nothing is given to one member
// while another still owns it).
package interop
