"""A kafka-python consumer for the interop tests (interop/kafkapython_test.go).

Run with the interpreter of the venv scripts/test.sh makes. Configured by
the environment; prints one JSON event per line on stdout (nothing else
goes there) and logs on stderr:

  {"ev": "ready"}                      metadata of every topic known, subscribing
  {"ev": "assigned", "partitions": {...}, "memberId": ..., "generation": ..., "leader": bool, "stats": {...}}
  {"ev": "revoked", "partitions": {...}, ...}
  {"ev": "state", "memberId": ..., "generation": ..., "leader": bool, "stats": {...}}
                                       after every rebalance, and when stats change
  {"ev": "record", "topic": ..., "partition": ..., "offset": ..., "value": ...}
  {"ev": "stopped"}                    closed: LeaveGroup sent

stats are the assignd assignor's counters (assignd.AssigndMixin.stats);
absent without ASSIGND_TARGET, when the member runs kafka-python's built-in
assignor. On SIGTERM the consumer closes (leaving the group) and exits 0.
"""

import json
import logging
import os
import signal
import sys
import time

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

import assignd

BUILTIN = {
    "range": RangePartitionAssignor,
    "roundrobin": RoundRobinPartitionAssignor,
    "sticky": StickyPartitionAssignor,
    "cooperative-sticky": CooperativeStickyAssignor,
}
ASSIGND = {
    "range": assignd.RangeAssignor,
    "roundrobin": assignd.RoundRobinAssignor,
    "sticky": assignd.StickyAssignor,
    "cooperative-sticky": assignd.CooperativeStickyAssignor,
}


def emit(**ev):
    sys.stdout.write(json.dumps(ev, sort_keys=True) + "\n")
    sys.stdout.flush()


def by_topic(tps):
    out = {}
    for tp in sorted(tps):
        out.setdefault(tp.topic, []).append(tp.partition)
    return out


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # Its warnings about slow event-loop tasks come by the dozen on a busy
    # machine and would push everything else out of a failed test's tail.
    logging.getLogger("kafka.net.selector").setLevel(logging.ERROR)
    env = os.environ
    brokers = env["KAFKA_BROKERS"].split(",")
    group = env["GROUP_ID"]
    topics = env["TOPICS"].split(",")
    protocol = env.get("PROTOCOL", "cooperative-sticky")
    target = env.get("ASSIGND_TARGET", "")
    if target:
        assignor = ASSIGND[protocol](target, group_id=group, timeout=float(env.get("ASSIGND_TIMEOUT_MS", "2000")) / 1000)
    else:
        assignor = BUILTIN[protocol]()

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))

    consumer = KafkaConsumer(
        bootstrap_servers=brokers,
        client_id=env.get("CLIENT_ID", "kafka-python"),
        group_id=group,
        auto_offset_reset="earliest",
        partition_assignment_strategy=[assignor],
        session_timeout_ms=int(env.get("SESSION_TIMEOUT_MS", "10000")),
        heartbeat_interval_ms=int(env.get("HEARTBEAT_INTERVAL_MS", "1000")),
        max_poll_interval_ms=int(env.get("REBALANCE_TIMEOUT_MS", "20000")),
        fetch_max_wait_ms=100,
    )

    # kafka-python 3.0 may lead a rebalance before its metadata holds the
    # subscribed topics, and then assigns them to nobody until the next
    # metadata refresh: know every topic before joining (bounded).
    deadline = time.monotonic() + 30
    while any(not consumer.partitions_for_topic(t) for t in topics):
        if time.monotonic() > deadline or stop:
            emit(ev="error", error="no metadata for %s within 30 s" % topics)
            consumer.close(autocommit=False)
            return 1
        time.sleep(0.1)
    emit(ev="ready")

    coordinator = consumer._coordinator  # member id, generation, leadership: not public in kafka-python

    def state(partitions):
        gen = coordinator._generation
        ev = {"partitions": by_topic(partitions), "memberId": gen.member_id,
              "generation": gen.generation_id, "leader": bool(coordinator._is_leader)}
        if target:
            ev["stats"] = dict(assignor.stats)
        return ev

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            emit(ev="revoked", **state(revoked))

        def on_partitions_assigned(self, assigned):
            emit(ev="assigned", **state(assigned))

    consumer.subscribe(topics, listener=Listener())
    seen = None
    while not stop:
        batch = consumer.poll(timeout_ms=100)
        # The listener runs only for partitions that changed (cooperative):
        # report every new generation and every change of the leader's
        # counters on their own.
        now = state(())
        key = (now["memberId"], now["generation"], now["leader"], json.dumps(now.get("stats"), sort_keys=True))
        if key != seen and now["generation"] >= 0:
            seen = key
            del now["partitions"]
            emit(ev="state", **now)
        for tp, records in batch.items():
            for r in records:
                emit(ev="record", topic=tp.topic, partition=tp.partition, offset=r.offset,
                     value=r.value.decode() if r.value is not None else None)
    consumer.close()
    emit(ev="stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
