"""kafka-python assignors that ask assignd, falling back to the built-in."""

import importlib.metadata
import logging
import threading
from collections import Counter

import grpc
from kafka.coordinator.assignors.abstract import RebalanceProtocol
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor as _CooperativeSticky
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment, ConsumerProtocolSubscription

from assignd._codec import decode_assignment, encode_subscription
from assignd.v1 import assignment_pb2 as pb
from assignd.v1 import assignment_pb2_grpc as pb_grpc

log = logging.getLogger("assignd")


def _version():
    try:
        return importlib.metadata.version("assignd")
    except importlib.metadata.PackageNotFoundError:
        return "devel"


USER_AGENT = "assignd-python/" + _version()
"""The gRPC user agent of the assignors' channels (grpcio appends its own),
so that assignd's group history shows which client software led each
rebalance, as the Go client's "assignd-go/<version>" does. "devel" when
the package is not installed."""

CHANNEL_OPTIONS = (("grpc.primary_user_agent", USER_AGENT),)
"""Options for a channel made by the caller (TLS), so that it sends
USER_AGENT too: grpc.secure_channel(target, creds, options=CHANNEL_OPTIONS)."""

DEFAULT_TIMEOUT = 2.0
"""Seconds one Assign call may take; keep it well under the group's
rebalance timeout (max_poll_interval_ms), during which the leader blocks."""

FALLBACK = "fallback"
RAISE = "raise"

# Fallback reasons, the keys of AssigndMixin.stats beside "assignd".
REASON_MISCONFIGURED = "misconfigured"
REASON_INVALID_ARGUMENT = "invalid_argument"
REASON_DEADLINE = "deadline_exceeded"
REASON_UNAVAILABLE = "unavailable"
REASON_OVERLOADED = "overloaded"
REASON_RPC_ERROR = "rpc_error"
REASON_BAD_RESPONSE = "bad_response"


class AssigndMixin:
    """The assignd side of the assignors below; not used on its own.

    Everything the group sees of a member (its protocol name, supported
    rebalance protocols, subscription metadata and user data, on_assignment)
    is the built-in assignor's, inherited unchanged; only assign(), which
    runs on the leader, asks assignd first.

    Arguments:
        target: assignd's gRPC target ("host:port", "dns:///host:port").
            None or empty: every rebalance uses the built-in (logged at
            ERROR).
        group_id: the consumer group id, sent to assignd for its policy,
            logs and metrics (kafka-python does not hand it to assignors).
        timeout: seconds one Assign call may take (default 2.0).
        channel: a grpc.Channel to use instead of an insecure one to target
            (TLS: grpc.secure_channel(..., options=CHANNEL_OPTIONS)); the
            caller owns it.
        on_invalid_argument: "fallback" (default): log at ERROR and use the
            built-in; "raise": raise, failing this rebalance (kafka-python
            then rejoins), for groups that prefer a stalled rebalance to a
            plan assignd did not make.
    """

    def __init__(self, target=None, group_id="", timeout=DEFAULT_TIMEOUT, channel=None,
                 on_invalid_argument=FALLBACK):
        super().__init__()
        self._target = target or ""
        self._group_id = group_id or ""
        self._timeout = timeout
        self._on_invalid_argument = on_invalid_argument
        self._lock = threading.Lock()
        self.stats = Counter()
        """Rebalances this leader led: "assignd" for plans from assignd, one
        key per fallback reason (REASON_*) otherwise."""
        self._misconfigured = self._check_config(channel)
        if self._misconfigured:
            log.error("assignd assignor %s misconfigured: %s; every rebalance it leads uses kafka-python's built-in %s",
                      self.name, self._misconfigured, self.name)
            self._channel = None
            self._stub = None
            return
        self._own_channel = channel is None
        self._channel = channel if channel is not None else grpc.insecure_channel(self._target, options=CHANNEL_OPTIONS)
        self._stub = pb_grpc.AssignmentServiceStub(self._channel)

    def _check_config(self, channel):
        if channel is None and not self._target:
            return "no target"
        if not isinstance(self._timeout, (int, float)) or isinstance(self._timeout, bool) or not self._timeout > 0:
            return "timeout %r is not a positive number of seconds" % (self._timeout,)
        if self._on_invalid_argument not in (FALLBACK, RAISE):
            return "on_invalid_argument %r is neither %r nor %r" % (self._on_invalid_argument, FALLBACK, RAISE)
        return None

    def close(self):
        """Closes the channel the assignor opened (not one passed in)."""
        if self._channel is not None and self._own_channel:
            self._channel.close()

    def assign(self, cluster, members):
        if self._misconfigured:
            return self._fallback(REASON_MISCONFIGURED, cluster, members)
        try:
            req = self._request(cluster, members)
        except Exception as e:  # a member kafka-python decoded but we cannot describe
            log.error("assignd: group %r: cannot build the request (%s); using the built-in %s",
                      self._group_id, e, self.name)
            return self._fallback(REASON_BAD_RESPONSE, cluster, members)
        try:
            resp = self._stub.Assign(req, timeout=self._timeout)
        except grpc.RpcError as e:
            return self._rpc_failed(e, cluster, members)
        try:
            plan = self._plan(resp, req, members)
        except ValueError as e:
            log.warning("assignd: group %r: unusable response (%s); using the built-in %s",
                        self._group_id, e, self.name)
            return self._fallback(REASON_BAD_RESPONSE, cluster, members)
        self._count("assignd")
        log.info("assignd: group %r: %d members assigned by %s@%d (%s)%s", self._group_id, len(members),
                 resp.assignor, resp.assignor_version, resp.policy,
                 "; follow-up rebalance required" if resp.followup_required else "")
        for w in resp.warnings:
            log.warning("assignd: group %r: %s", self._group_id, w)
        return plan

    def _rpc_failed(self, e, cluster, members):
        code = e.code()
        if code == grpc.StatusCode.INVALID_ARGUMENT:
            # assignd rejected what this leader sent: a bug on one side, and
            # a retry would get the same answer. Loud, and by default the
            # group still gets a plan.
            log.error("assignd: group %r: INVALID_ARGUMENT: %s", self._group_id, e.details())
            if self._on_invalid_argument == RAISE:
                self._count(REASON_INVALID_ARGUMENT)
                raise AssigndError("assignd rejected the request: %s" % e.details()) from e
            return self._fallback(REASON_INVALID_ARGUMENT, cluster, members)
        if code in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
            # Not assignd at that target, or not allowed to call it: only a
            # change of configuration helps.
            log.error("assignd: group %r: Assign failed (%s: %s): check the assignor's target and channel "
                      "credentials; using the built-in %s", self._group_id, code.name, e.details(), self.name)
            return self._fallback(REASON_MISCONFIGURED, cluster, members)
        reason = {
            grpc.StatusCode.DEADLINE_EXCEEDED: REASON_DEADLINE,
            grpc.StatusCode.UNAVAILABLE: REASON_UNAVAILABLE,
            grpc.StatusCode.RESOURCE_EXHAUSTED: REASON_OVERLOADED,
        }.get(code, REASON_RPC_ERROR)
        log.warning("assignd: group %r: Assign failed (%s: %s); using the built-in %s",
                    self._group_id, code.name, e.details(), self.name)
        return self._fallback(reason, cluster, members)

    def _fallback(self, reason, cluster, members):
        self._count(reason)
        return super().assign(cluster, members)

    def _count(self, key):
        with self._lock:
            self.stats[key] += 1

    def _rebalance_protocol(self):
        if self.supported_protocols()[0] == RebalanceProtocol.COOPERATIVE:
            return pb.REBALANCE_PROTOCOL_COOPERATIVE
        return pb.REBALANCE_PROTOCOL_EAGER

    def _request(self, cluster, members):
        """The raw member form, asking for the encoded view: each member's
        ConsumerProtocolSubscription bytes, which assignd decodes itself,
        and back the ConsumerProtocolAssignment bytes SyncGroup carries.
        Neither side builds or parses each partition twice, which on a
        large group is most of the call.

        kafka-python's coordinator decodes every member's JoinGroup bytes
        before it calls assign() and hands over only the decoded object, so
        the bytes are written again from it (at the version it was decoded
        at: the member's own, capped at 3, which kafka-python reads).
        """
        req = pb.AssignRequest(
            group_id=self._group_id,
            protocol_name=self.name,
            rebalance_protocol=self._rebalance_protocol(),
            view=pb.ASSIGNMENT_VIEW_ENCODED,
        )
        topics = set()
        for m in members:
            md = m.metadata
            pm = req.members.add(member_id=m.member_id, metadata=encode_subscription(self._subscription(md)))
            if getattr(m, "group_instance_id", None):
                pm.group_instance_id = m.group_instance_id
            topics.update(md.topics)
        for t in sorted(topics):
            parts = cluster.partitions_for_topic(t)
            if parts is None:
                # Like the built-in: a topic the leader has no metadata for
                # gets no partitions (assignd adds a warning). kafka-python
                # rejoins when its metadata changes.
                continue
            req.topics.add(name=t, partition_count=max(parts) + 1 if parts else 0)
        return req

    def _subscription(self, md):
        """The subscription to send for a member: its own, unless this
        assignor rewrites its user data (StickyAssignor)."""
        return md

    def _plan(self, resp, req, members):
        """The plan for kafka-python: each member's encoded assignment
        decoded back into the ConsumerProtocolAssignment that assign()
        returns (kafka-python's SyncGroup encodes it again, to the same
        bytes). ValueError if resp does not fit the group."""
        if resp.rebalance_protocol != req.rebalance_protocol:
            # An eager plan for a cooperative group could have a partition
            # consumed by two members at once.
            raise ValueError("assignd ran %s for a group running %s" % (
                pb.RebalanceProtocol.Name(resp.rebalance_protocol),
                pb.RebalanceProtocol.Name(req.rebalance_protocol)))
        by_id = {a.member_id: a for a in resp.assignments}
        if len(by_id) != len(resp.assignments):
            raise ValueError("assignments name a member twice")
        plan = {}
        for m in members:
            a = by_id.get(m.member_id)
            if a is None:
                raise ValueError("no assignment for member %r" % m.member_id)
            if not a.assignment:
                raise ValueError("no encoded assignment for member %r" % m.member_id)
            try:
                plan[m.member_id] = decode_assignment(a.assignment)
            except Exception as e:
                raise ValueError("member %r: undecodable assignment (%s)" % (m.member_id, e)) from e
        if len(by_id) != len(plan):
            raise ValueError("assignments for members not in the group: %s" % sorted(set(by_id) - set(plan)))
        return plan


class AssigndError(Exception):
    """assignd rejected a request and on_invalid_argument is "raise"."""


class RangeAssignor(AssigndMixin, RangePartitionAssignor):
    """kafka-python's "range" (eager), assigned by assignd."""


class RoundRobinAssignor(AssigndMixin, RoundRobinPartitionAssignor):
    """kafka-python's "roundrobin" (eager), assigned by assignd."""


class StickyAssignor(AssigndMixin, StickyPartitionAssignor):
    """kafka-python's "sticky" (eager, KIP-54 user data), assigned by assignd."""

    def _subscription(self, md):
        raw = bytes(md.user_data) if md.user_data else b""
        java = java_sticky_user_data(raw) if raw else raw
        if java == raw:
            return md
        # A copy: the fallback (the built-in) reads the member's own bytes.
        return ConsumerProtocolSubscription(
            version=md.version, topics=md.topics, user_data=java, owned_partitions=md.owned_partitions,
            generation_id=md.generation_id, rack_id=md.rack_id)


def java_sticky_user_data(raw):
    """StickyAssignorUserData in the format of Java's StickyAssignor, which
    assignd reads (and franz-go, librdkafka and sarama write).

    kafka-python 3.0 writes the same V1 structure with a two-byte version
    prefix in front (its generic ApiData encoding), which no other client
    reads: unchanged, assignd would see no history and the plan would not be
    sticky. Bytes that decode as kafka-python's format and re-encode to
    exactly themselves are rewritten without the prefix; anything else (a
    Java or franz-go member's user data) is passed on as it is.
    """
    try:
        ud = StickyAssignorUserData.decode(raw)
        if ud.encode() == raw:
            return raw[2:]  # the bytes after the Int16 version header
    except Exception:
        pass
    return raw


class CooperativeStickyAssignor(AssigndMixin, _CooperativeSticky):
    """kafka-python's "cooperative-sticky" (KIP-429), assigned by assignd."""
