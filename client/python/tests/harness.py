"""What the tests and the benchmark (bench/) share: a real assignd process,
kafka-python members as the coordinator hands them to assign(), and
cluster metadata. No pytest here, so that bench/ runs without it."""

import contextlib
import json
import os
import subprocess
import threading
from types import SimpleNamespace

from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription


@contextlib.contextmanager
def running_assignd(binary=None, calls=None):
    """Runs assignd (binary, else ASSIGND_BINARY) on a free loopback port;
    yields its address. RuntimeError if it cannot be started. calls, a
    list, gets the call log's record (a dict) of every Assign call."""
    binary = binary or os.environ.get("ASSIGND_BINARY")
    if not binary or not os.access(binary, os.X_OK):
        raise RuntimeError("ASSIGND_BINARY must name a built assignd (go build -o DIR/assignd ./cmd/assignd); "
                           "scripts/test.sh sets it")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASSIGND_")}
    proc = subprocess.Popen(
        [binary, "--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-format", "json"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = {}
    ready = threading.Event()

    def read():
        for line in proc.stderr:  # read to the end, so assignd never blocks on a full pipe
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if calls is not None and rec.get("msg") == "finished call" and rec.get("grpc.method") == "Assign":
                calls.append(rec)
            if rec.get("msg") == "assignd serving":
                found["addr"] = rec["grpc_addr"]
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not ready.wait(30) or "addr" not in found:
            raise RuntimeError("assignd did not log its serving line within 30 s (exit: %r)" % proc.poll())
        yield found["addr"]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Cluster:
    """The ClusterMetadata methods assignors use."""

    def __init__(self, counts):
        self.counts = counts

    def topics(self, exclude_internal_topics=True):
        return set(self.counts)

    def partitions_for_topic(self, topic):
        n = self.counts.get(topic)
        return None if n is None else set(range(n))


def joined(member_id, raw, instance_id=None):
    """A JoinGroup response member as kafka-python's coordinator hands it to
    assign(): its subscription bytes decoded (_perform_assignment)."""
    return SimpleNamespace(member_id=member_id, group_instance_id=instance_id,
                           metadata=ConsumerProtocolSubscription.decode(raw))


def member(member_id, subscription, instance_id=None):
    """joined() of subscription, encoded as the member sends it."""
    return joined(member_id, subscription.encode(), instance_id)
