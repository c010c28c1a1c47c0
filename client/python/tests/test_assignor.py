"""The assignd assignors against a real assignd (conftest.assignd_addr)."""

import importlib.metadata
import logging
import socket
import time
from concurrent import futures

import grpc
import pytest
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor as BuiltinCooperativeSticky
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

import assignd
from assignd.v1 import assignment_pb2 as pb
from assignd.v1 import assignment_pb2_grpc as pb_grpc
from conftest import Cluster, member, partitions

BUILTINS = {
    assignd.RangeAssignor: RangePartitionAssignor,
    assignd.RoundRobinAssignor: RoundRobinPartitionAssignor,
    assignd.StickyAssignor: StickyPartitionAssignor,
    assignd.CooperativeStickyAssignor: BuiltinCooperativeSticky,
}

COUNTS = {"orders": 7, "audit": 3, "payments": 5}


def group(cls, subscriptions, owned=None, generation=4):
    """kafka-python members of cls's protocol: subscriptions {id: topics},
    owned {id: [(topic, [partitions])]} given to each member's own assignor
    through on_assignment, as a rejoining member would have it."""
    out = []
    for mid, topics in sorted(subscriptions.items()):
        own = BUILTINS[cls]()
        if owned and mid in owned:
            own.on_assignment(ConsumerProtocolAssignment(own.version, owned[mid], b""), generation)
        out.append(member(mid, own.metadata(set(topics))))
    return out


def check_exactly_once(plan, members, counts):
    seen = {}
    for mid, tps in partitions(plan).items():
        subs = next(m.metadata.topics for m in members if m.member_id == mid)
        for t, p in tps:
            assert t in subs, "%s got %s-%d without subscribing" % (mid, t, p)
            assert (t, p) not in seen, "%s-%d given to %s and %s" % (t, p, seen[(t, p)], mid)
            seen[(t, p)] = mid
    subscribed = {t for m in members for t in m.metadata.topics}
    want = {(t, p) for t in subscribed for p in range(counts[t])}
    return want - set(seen)  # unassigned: only partitions still owned elsewhere (cooperative)


def direct(addr, req):
    with grpc.insecure_channel(addr) as ch:
        return pb_grpc.AssignmentServiceStub(ch).Assign(req, timeout=5)


SUBS = {"m-a": ["orders", "audit"], "m-b": ["orders", "payments"], "m-c": ["orders", "audit", "payments"]}
# kafka-python 3.0.12's own roundrobin fails (KeyError) when members
# subscribe to different topics, and its sticky needs cluster.topics(): the
# fallback tests use one subscription and a fuller cluster.
SAME = {"m-a": ["orders", "audit"], "m-b": ["orders", "audit"], "m-c": ["orders", "audit"]}


@pytest.mark.parametrize("cls", list(BUILTINS), ids=lambda c: c.name)
def test_plan_is_assignds(assignd_addr, cls):
    members = group(cls, SUBS)
    a = cls(assignd_addr, group_id="py-plan")
    try:
        plan = a.assign(Cluster(COUNTS), members)
    finally:
        a.close()
    assert a.stats == {"assignd": 1}
    assert check_exactly_once(plan, members, COUNTS) == set()
    # The same members in the explicit form, asked directly.
    req = pb.AssignRequest(group_id="py-plan", protocol_name=cls.name, view=pb.ASSIGNMENT_VIEW_FULL,
                           topics=[pb.Topic(name=t, partition_count=n) for t, n in sorted(COUNTS.items())])
    for m in members:
        req.members.add(member_id=m.member_id, topics=m.metadata.topics, user_data=m.metadata.user_data or b"")
    resp = direct(assignd_addr, req)
    want = {ma.member_id: sorted((tp.topic, p) for tp in ma.partitions for p in tp.partitions)
            for ma in resp.assignments}
    assert partitions(plan) == want
    for a_ in plan.values():
        assert a_.version == cls.version


def test_range_equals_kafkas_range(assignd_addr):
    """range is fully specified by Kafka: assignd's plan through the leader
    must equal kafka-python's own range assignor's."""
    members = group(assignd.RangeAssignor, SUBS)
    a = assignd.RangeAssignor(assignd_addr, group_id="py-range")
    plan = a.assign(Cluster(COUNTS), members)
    a.close()
    assert a.stats == {"assignd": 1}
    assert partitions(plan) == partitions(RangePartitionAssignor.assign(Cluster(COUNTS), members))


def test_cooperative_newcomer_gets_nothing_still_owned(assignd_addr):
    counts = {"orders": 6}
    owned = {"m-a": [("orders", [0, 1, 2])], "m-b": [("orders", [3, 4, 5])]}
    members = group(assignd.CooperativeStickyAssignor, {"m-a": ["orders"], "m-b": ["orders"], "m-c": ["orders"]}, owned)
    assert members[0].metadata.version == 1 and members[0].metadata.owned_partitions
    a = assignd.CooperativeStickyAssignor(assignd_addr, group_id="py-coop")
    plan = partitions(a.assign(Cluster(counts), members))
    a.close()
    assert a.stats == {"assignd": 1}
    assert plan["m-c"] == [], "the newcomer got partitions another member still owns: %s" % plan["m-c"]
    # The owners keep two each and revoke one each (by leaving it out).
    assert len(plan["m-a"]) == 2 and set(plan["m-a"]) <= {("orders", p) for p in (0, 1, 2)}
    assert len(plan["m-b"]) == 2 and set(plan["m-b"]) <= {("orders", p) for p in (3, 4, 5)}


def test_sticky_leave_moves_only_the_leavers_partitions(assignd_addr):
    counts = {"orders": 9}
    owned = {"m-a": [("orders", [0, 4, 8])], "m-b": [("orders", [1, 3, 6])], "m-c": [("orders", [2, 5, 7])]}
    members = group(assignd.StickyAssignor, {"m-a": ["orders"], "m-c": ["orders"]}, owned)
    a = assignd.StickyAssignor(assignd_addr, group_id="py-sticky")
    plan = partitions(a.assign(Cluster(counts), members))
    a.close()
    assert a.stats == {"assignd": 1}
    for mid in ("m-a", "m-c"):
        had = {("orders", p) for _, ps in owned[mid] for p in ps}
        assert had <= set(plan[mid]), "%s lost some of %s: now %s" % (mid, had, plan[mid])
    assert sorted(set(plan["m-a"]) | set(plan["m-c"])) == [("orders", p) for p in range(9)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("cls", list(BUILTINS), ids=lambda c: c.name)
def test_falls_back_when_assignd_is_down(cls, caplog):
    members = group(cls, SAME)
    a = cls("127.0.0.1:%d" % free_port(), group_id="py-down", timeout=1.0)
    start = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="assignd"):
        plan = a.assign(Cluster(COUNTS), members)
    elapsed = time.monotonic() - start
    a.close()
    assert a.stats == {assignd.REASON_UNAVAILABLE: 1}
    assert elapsed < 1.0 + 2.0, "the fallback took %.1fs, past the 1 s bound" % elapsed
    assert partitions(plan) == partitions(BUILTINS[cls]().assign(Cluster(COUNTS), members))
    assert any("using the built-in" in r.getMessage() for r in caplog.records)


class Hung(pb_grpc.AssignmentServiceServicer):
    def Assign(self, request, context):
        end = time.monotonic() + 5
        while context.is_active() and time.monotonic() < end:
            time.sleep(0.01)
        context.abort(grpc.StatusCode.INTERNAL, "hung")


def test_falls_back_at_the_deadline():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_AssignmentServiceServicer_to_server(Hung(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        members = group(assignd.RangeAssignor, SUBS)
        a = assignd.RangeAssignor("127.0.0.1:%d" % port, group_id="py-hung", timeout=0.3)
        start = time.monotonic()
        plan = a.assign(Cluster(COUNTS), members)
        elapsed = time.monotonic() - start
        a.close()
    finally:
        server.stop(0)
    assert a.stats == {assignd.REASON_DEADLINE: 1}
    assert 0.3 <= elapsed < 0.3 + 2.0, "the call ended after %.2fs, not at its 0.3 s deadline" % elapsed
    assert partitions(plan) == partitions(RangePartitionAssignor.assign(Cluster(COUNTS), members))


class Failing(pb_grpc.AssignmentServiceServicer):
    def __init__(self, code):
        self.code = code

    def Assign(self, request, context):
        context.abort(self.code, "failing on purpose")


@pytest.mark.parametrize("code,reason,level", [
    (grpc.StatusCode.RESOURCE_EXHAUSTED, assignd.REASON_OVERLOADED, logging.WARNING),
    (grpc.StatusCode.INTERNAL, assignd.REASON_RPC_ERROR, logging.WARNING),
    (grpc.StatusCode.UNIMPLEMENTED, assignd.REASON_MISCONFIGURED, logging.ERROR),
    (grpc.StatusCode.PERMISSION_DENIED, assignd.REASON_MISCONFIGURED, logging.ERROR),
], ids=lambda x: getattr(x, "name", x))
def test_status_codes_fall_back_by_reason(code, reason, level, caplog):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    pb_grpc.add_AssignmentServiceServicer_to_server(Failing(code), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        members = group(assignd.RangeAssignor, SUBS)
        a = assignd.RangeAssignor("127.0.0.1:%d" % port, group_id="py-codes")
        with caplog.at_level(logging.WARNING, logger="assignd"):
            plan = a.assign(Cluster(COUNTS), members)
        a.close()
    finally:
        server.stop(0)
    assert a.stats == {reason: 1}
    assert [r.levelno for r in caplog.records if code.name in r.getMessage()] == [level]
    assert partitions(plan) == partitions(RangePartitionAssignor.assign(Cluster(COUNTS), members))


def duplicated(cls):
    """Two members with the same id: assignd answers INVALID_ARGUMENT."""
    members = group(cls, {"m-a": ["orders"], "m-b": ["orders"]})
    members[1].member_id = "m-a"
    return members


def test_invalid_argument_logs_and_falls_back(assignd_addr, caplog):
    a = assignd.RangeAssignor(assignd_addr, group_id="py-invalid")
    members = duplicated(assignd.RangeAssignor)
    with caplog.at_level(logging.ERROR, logger="assignd"):
        plan = a.assign(Cluster(COUNTS), members)
    a.close()
    assert a.stats == {assignd.REASON_INVALID_ARGUMENT: 1}
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any("INVALID_ARGUMENT" in m and "m-a" in m for m in errors), errors
    assert partitions(plan) == partitions(RangePartitionAssignor.assign(Cluster(COUNTS), members))


def test_invalid_argument_raises_when_asked(assignd_addr):
    a = assignd.RangeAssignor(assignd_addr, group_id="py-invalid", on_invalid_argument=assignd.RAISE)
    with pytest.raises(assignd.AssigndError, match="m-a"):
        a.assign(Cluster(COUNTS), duplicated(assignd.RangeAssignor))
    a.close()
    assert a.stats == {assignd.REASON_INVALID_ARGUMENT: 1}


@pytest.mark.parametrize("kwargs,why", [
    ({}, "no target"),
    ({"target": "127.0.0.1:1", "timeout": 0}, "timeout"),
    ({"target": "127.0.0.1:1", "on_invalid_argument": "ignore"}, "on_invalid_argument"),
])
def test_misconfiguration_is_an_error_and_falls_back(kwargs, why, caplog):
    with caplog.at_level(logging.ERROR, logger="assignd"):
        a = assignd.RoundRobinAssignor(group_id="py-conf", **kwargs)
    assert any(why in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR)
    members = group(assignd.RoundRobinAssignor, SAME)
    plan = a.assign(Cluster(COUNTS), members)
    assert a.stats == {assignd.REASON_MISCONFIGURED: 1}
    assert partitions(plan) == partitions(RoundRobinPartitionAssignor.assign(Cluster(COUNTS), members))


@pytest.mark.parametrize("cls", list(BUILTINS), ids=lambda c: c.name)
def test_member_side_is_the_builtins(cls):
    """What the group sees of a member is the built-in's, byte for byte, so
    members can move to assignd one at a time."""
    ours, theirs = cls("127.0.0.1:1", group_id="g"), BUILTINS[cls]()
    assert ours.name == theirs.name and ours.version == theirs.version
    assert ours.supported_protocols() == theirs.supported_protocols()
    given = ConsumerProtocolAssignment(theirs.version, [("orders", [1, 2])], b"")
    for x in (ours, theirs):
        x.on_assignment(given, 6)
    assert ours.metadata({"orders", "audit"}).encode() == theirs.metadata({"orders", "audit"}).encode()
    ours.close()


def test_sticky_user_data_is_sent_as_java_writes_it():
    """kafka-python prefixes StickyAssignorUserData with a version; the
    leader strips it, and leaves other clients' (Java's) bytes alone."""
    own = StickyPartitionAssignor()
    own.on_assignment(ConsumerProtocolAssignment(0, [("orders", [0, 4])], b""), 4)
    raw = bytes(member("m", own.metadata({"orders"})).metadata.user_data)
    java = (b"\x00\x00\x00\x01" + b"\x00\x06orders" + b"\x00\x00\x00\x02" + b"\x00\x00\x00\x00"
            + b"\x00\x00\x00\x04" + b"\x00\x00\x00\x04")
    assert raw == b"\x00\x01" + java
    assert assignd._assignor.java_sticky_user_data(raw) == java
    assert assignd._assignor.java_sticky_user_data(java) == java


def test_topic_without_metadata_gets_nothing(assignd_addr):
    members = group(assignd.RangeAssignor, {"m-a": ["orders", "missing"]})
    a = assignd.RangeAssignor(assignd_addr, group_id="py-missing")
    plan = partitions(a.assign(Cluster({"orders": 2}), members))
    a.close()
    assert a.stats == {"assignd": 1}
    assert plan == {"m-a": [("orders", 0), ("orders", 1)]}


class Recording(pb_grpc.AssignmentServiceServicer):
    """Records each Assign call's user agent, then fails it."""

    def __init__(self):
        self.user_agents = []

    def Assign(self, request, context):
        self.user_agents.append(dict(context.invocation_metadata()).get("user-agent", ""))
        context.abort(grpc.StatusCode.UNAVAILABLE, "only the headers matter here")


def test_calls_carry_the_assignd_python_user_agent():
    """assignd-python/VERSION first, as the Go client sends assignd-go/VERSION;
    assignd's group history shows it for each rebalance."""
    rec = Recording()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    pb_grpc.add_AssignmentServiceServicer_to_server(rec, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        a = assignd.RangeAssignor("127.0.0.1:%d" % port, group_id="py-agent", timeout=10)
        a.assign(Cluster(COUNTS), group(assignd.RangeAssignor, SAME))
        a.close()
    finally:
        server.stop(0)
    assert assignd.USER_AGENT == "assignd-python/" + importlib.metadata.version("assignd")
    assert len(rec.user_agents) == 1
    assert rec.user_agents[0].startswith(assignd.USER_AGENT + " "), rec.user_agents[0]
    assert "grpc-python/" in rec.user_agents[0], "grpcio's own part is kept: " + rec.user_agents[0]
