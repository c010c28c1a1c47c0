"""A confluent-kafka (librdkafka) consumer for the interop tests
(interop/kafkapython_test.go), with librdkafka's own assignor: it cannot take
a custom one, so it is a member of groups others lead. With
GROUP_PROTOCOL=consumer it joins on the KIP-848 protocol instead, naming the
broker's assignor REMOTE_ASSIGNOR (client/java/broker-plugin's tests).

Run with the interpreter of the venv scripts/test.sh makes. Configured by
the environment like kafka_python_member.py, and prints the same JSON
events on stdout (assigned and revoked carry only the partitions that
changed, as librdkafka's cooperative callbacks do; state carries the member
id); logs go to stderr. On SIGTERM it closes (leaving the group), exits 0.
"""

import json
import signal
import sys

from confluent_kafka import Consumer


def emit(**ev):
    sys.stdout.write(json.dumps(ev, sort_keys=True) + "\n")
    sys.stdout.flush()


def by_topic(tps):
    out = {}
    for tp in sorted(tps, key=lambda tp: (tp.topic, tp.partition)):
        out.setdefault(tp.topic, []).append(tp.partition)
    return out


def main():
    import os
    env = os.environ
    topics = env["TOPICS"].split(",")
    protocol = env.get("PROTOCOL", "cooperative-sticky")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    conf = {
        "bootstrap.servers": env["KAFKA_BROKERS"],
        "client.id": env.get("CLIENT_ID", "confluent-kafka"),
        "group.id": env["GROUP_ID"],
        "auto.offset.reset": "earliest",
        "max.poll.interval.ms": int(env.get("REBALANCE_TIMEOUT_MS", "20000")),
        "fetch.wait.max.ms": 100,
        "topic.metadata.refresh.interval.ms": 1000,
    }
    if env.get("GROUP_PROTOCOL") == "consumer":
        # KIP-848 (librdkafka 2.12+): the broker assigns, with the assignor
        # this names; librdkafka refuses the classic protocol's settings here.
        conf["group.protocol"] = "consumer"
        conf["group.remote.assignor"] = env.get("REMOTE_ASSIGNOR", "uniform")
    else:
        conf["partition.assignment.strategy"] = protocol
        conf["session.timeout.ms"] = int(env.get("SESSION_TIMEOUT_MS", "10000"))
        conf["heartbeat.interval.ms"] = int(env.get("HEARTBEAT_INTERVAL_MS", "1000"))
    consumer = Consumer(conf)

    def state():
        return {"memberId": consumer.memberid() or "", "generation": 0, "leader": False}

    def on_assign(c, partitions):
        emit(ev="assigned", partitions=by_topic(partitions), **state())

    def on_revoke(c, partitions):
        emit(ev="revoked", partitions=by_topic(partitions), **state())

    consumer.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
    seen = None
    while not stop:
        msg = consumer.poll(0.1)
        now = state()
        if now["memberId"] and now["memberId"] != seen:
            seen = now["memberId"]
            emit(ev="state", **now)
        if msg is None:
            continue
        if msg.error():
            sys.stderr.write("consumer error: %s\n" % msg.error())
            continue
        emit(ev="record", topic=msg.topic(), partition=msg.partition(), offset=msg.offset(),
             value=msg.value().decode() if msg.value() is not None else None)
    consumer.close()
    emit(ev="stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
