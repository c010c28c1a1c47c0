"""The leader sends members in the raw form and takes encoded answers; on
random groups its plans are, byte for byte, the plans assignd makes from
the same members in the explicit form (what the leader sent before)."""

import random

import grpc
import pytest
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription
from kafka.structs import TopicPartition

import assignd
from assignd._assignor import java_sticky_user_data
from assignd._codec import decode_assignment, encode_subscription
from assignd.v1 import assignment_pb2 as pb
from assignd.v1 import assignment_pb2_grpc as pb_grpc
from conftest import Cluster, member

CLASSES = [assignd.RangeAssignor, assignd.RoundRobinAssignor, assignd.StickyAssignor,
           assignd.CooperativeStickyAssignor]
GROUPS = 60


def random_group(rng, cls):
    """Members (as kafka-python's coordinator hands them to assign()) and
    partition counts: kafka-python members and Java-like members with
    subscription versions up to 3, some static, with owned partitions
    (overlapping now and then, so generations decide), generations, racks
    and user data."""
    counts = {"t%d" % i: rng.randint(1, 12) for i in range(rng.randint(1, 4))}
    names = sorted(counts)
    ids = ["m-%02d" % i for i in rng.sample(range(40), rng.randint(1, 8))]
    everything = [(t, p) for t in names for p in range(counts[t])]
    owner = {tp: rng.choice(ids + [None]) for tp in everything}
    members = []
    for mid in ids:
        topics = rng.sample(names, rng.randint(1, len(names)))
        owned = sorted(tp for tp in everything if owner[tp] == mid or rng.random() < 0.05)
        generation = rng.choice([-1, 1, 2, 5])
        if cls is assignd.StickyAssignor and rng.random() < 0.5:
            # A kafka-python sticky member: its user data carries the
            # history, with kafka-python's version prefix.
            sub = StickyPartitionAssignor._metadata(topics, [TopicPartition(t, p) for t, p in owned] if owned else None,
                                                    generation)
        else:
            lowest = 1 if cls is assignd.CooperativeStickyAssignor else 0
            version = rng.randint(lowest, 3)
            user_data = rng.choice([b"", None, bytes(rng.randrange(256) for _ in range(rng.randint(1, 9)))])
            if cls is assignd.StickyAssignor and rng.random() < 0.5:
                user_data = java_sticky_user_data(bytes(StickyPartitionAssignor._metadata(
                    topics, [TopicPartition(t, p) for t, p in owned], generation).user_data.encode()))
            sub = ConsumerProtocolSubscription(
                version=version, topics=topics, user_data=user_data,
                owned_partitions=[ConsumerProtocolSubscription.TopicPartition(topic=t, partitions=ps)
                                  for t, ps in _by_topic(owned)],
                generation_id=generation, rack_id=rng.choice([None, "", "rack-a", "rack-b"]))
        instance = "static-" + mid if rng.random() < 0.3 else None
        members.append(member(mid, sub, instance))
    rng.shuffle(members)
    return members, counts


def _by_topic(tps):
    out = {}
    for t, p in tps:
        out.setdefault(t, []).append(p)
    return sorted(out.items())


def explicit_request(a, cluster, members):
    """The explicit member form and the full view, as the leader sent them
    before it sent the raw form."""
    req = pb.AssignRequest(group_id=a._group_id, protocol_name=a.name, rebalance_protocol=a._rebalance_protocol(),
                           view=pb.ASSIGNMENT_VIEW_FULL, topics=a._request(cluster, members).topics)
    for m in members:
        md = m.metadata
        pm = req.members.add(member_id=m.member_id, topics=list(md.topics))
        if m.group_instance_id:
            pm.group_instance_id = m.group_instance_id
        if md.user_data:
            pm.user_data = a._subscription(md).user_data
        for tp in md.owned_partitions or ():
            pm.owned_partitions.add(topic=tp.topic, partitions=list(tp.partitions))
        if md.version >= 2 and md.generation_id >= 0:
            pm.generation = md.generation_id
        if md.version >= 3 and md.rack_id:
            pm.rack_id = md.rack_id
    return req


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_raw_form_plans_equal_explicit_form_plans(assignd_addr, cls):
    a = cls(assignd_addr, group_id="py-raw")
    with grpc.insecure_channel(assignd_addr) as ch:
        stub = pb_grpc.AssignmentServiceStub(ch)
        for seed in range(GROUPS):
            members, counts = random_group(random.Random(seed), cls)
            cluster = Cluster(counts)
            plan = a.assign(cluster, members)
            assert a.stats == {"assignd": seed + 1}, "seed %d fell back: %s" % (seed, a.stats)

            raw = stub.Assign(a._request(cluster, members), timeout=5)
            explicit = stub.Assign(explicit_request(a, cluster, members), timeout=5)
            want = {x.member_id: x for x in explicit.assignments}
            assert sorted(plan) == sorted(want)
            for x in raw.assignments:
                got = plan[x.member_id]
                # What kafka-python's SyncGroup sends is assignd's bytes.
                assert got.encode() == x.assignment, "seed %d member %s" % (seed, x.member_id)
                # The explicit form's plan, encoded at the same (the
                # member's) version, is the same bytes.
                e = want[x.member_id]
                same = ConsumerProtocolAssignment(
                    version=got.version, assigned_partitions=[(tp.topic, list(tp.partitions)) for tp in e.partitions],
                    user_data=ConsumerProtocolAssignment.decode(e.assignment).user_data)
                assert got.encode() == same.encode(), "seed %d member %s" % (seed, x.member_id)
            assert (raw.followup_required, list(raw.pending)) == (explicit.followup_required, list(explicit.pending))
    a.close()


@pytest.mark.parametrize("version", [0, 1, 2, 3])
@pytest.mark.parametrize("user_data", [None, b"", b"\x01\x02"])
def test_codecs_equal_kafka_pythons_generic_ones(version, user_data):
    """The compiled codecs the leader uses give the bytes and objects
    kafka-python's ApiData.encode and decode give."""
    raw = ConsumerProtocolAssignment(version=version, assigned_partitions=[("a", [0, 2]), ("b", [])],
                                     user_data=user_data).encode()
    got, want = decode_assignment(raw), ConsumerProtocolAssignment.decode(raw)
    assert got == want and got.version == want.version == version and got.encode() == raw
    sub = ConsumerProtocolSubscription.decode(ConsumerProtocolSubscription(
        version=version, topics=["a", "b"], user_data=user_data,
        owned_partitions=[ConsumerProtocolSubscription.TopicPartition(topic="a", partitions=[1, 0])],
        generation_id=3, rack_id="r").encode())
    assert encode_subscription(sub) == sub.encode()


def test_subscription_larger_than_the_first_buffer():
    sub = ConsumerProtocolSubscription(version=1, topics=["topic-%04d" % i for i in range(300)], user_data=None,
                                       owned_partitions=[ConsumerProtocolSubscription.TopicPartition(
                                           topic="topic-%04d" % i, partitions=list(range(20))) for i in range(300)])
    assert len(sub.encode()) > 10000 and encode_subscription(sub) == sub.encode()


@pytest.mark.parametrize("raw", [b"", b"\x00", b"\xff\xff", b"\x00\x01\x00\x00\x00\x05"], ids=repr)
def test_assignment_decoder_refuses_what_kafka_python_refuses(raw):
    with pytest.raises(Exception):
        ConsumerProtocolAssignment.decode(raw)
    with pytest.raises(Exception):
        decode_assignment(raw)
