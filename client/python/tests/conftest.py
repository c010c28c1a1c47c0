"""Fixtures: a real assignd process (ASSIGND_BINARY, built by
scripts/test.sh), kafka-python members and cluster metadata."""

import json
import os
import subprocess
import threading
import time
from types import SimpleNamespace

import pytest
from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription


@pytest.fixture(scope="session")
def assignd_addr():
    """Starts ASSIGND_BINARY on a free port for the session; its address."""
    binary = os.environ.get("ASSIGND_BINARY")
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail("ASSIGND_BINARY must name a built assignd (go build -o DIR/assignd ./cmd/assignd); "
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
            if rec.get("msg") == "assignd serving":
                found["addr"] = rec["grpc_addr"]
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not ready.wait(30) or "addr" not in found:
            pytest.fail("assignd did not log its serving line within 30 s (exit: %r)" % proc.poll())
        yield found["addr"]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Cluster:
    """The one ClusterMetadata method assignors use."""

    def __init__(self, counts):
        self.counts = counts

    def topics(self, exclude_internal_topics=True):
        return set(self.counts)

    def partitions_for_topic(self, topic):
        n = self.counts.get(topic)
        return None if n is None else set(range(n))


def member(member_id, subscription, instance_id=None):
    """A JoinGroup response member as kafka-python hands it to assign():
    its subscription encoded, then decoded, as the coordinator does."""
    decoded = ConsumerProtocolSubscription.decode(subscription.encode())
    return SimpleNamespace(member_id=member_id, group_instance_id=instance_id, metadata=decoded)


def partitions(plan):
    """{member_id: sorted [(topic, partition)]} of a kafka-python plan."""
    return {m: sorted((t, p) for t, ps in a.assigned_partitions for p in ps) for m, a in plan.items()}


def wait_until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True
