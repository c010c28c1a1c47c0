"""A kafka-python group leader's rebalance, with kafka-python's own sticky
assignor and with the assignd one of the same protocol name, on the same
groups, side by side in one run.

What is timed is the leader's whole path, as kafka-python's coordinator
runs it: the JoinGroup response's subscription bytes decoded (what
_perform_assignment does before it calls the assignor), assign(), and every
member's assignment encoded for SyncGroup. The assignd path is also split
into its parts: writing the request (each subscription written back to
bytes), the Assign call, assignd's own time for it (its call log's
grpc.duration) and decoding the answer into ConsumerProtocolAssignment.

    ASSIGND_BINARY=.cache/bin/assignd .cache/python/venv/bin/python client/python/bench/leader.py

Groups (partitions: topics x partitions each, members): 10 (1 x 10, 5),
1k (10 x 100, 20), 100k (100 x 1,000, 200). Cases: the first assignment
(nobody owns anything), one member leaves and one joins (the others own a
balanced share). Prints a Markdown table of medians.
"""

import argparse
import contextlib
import os
import signal
import statistics
import sys
import time
from collections import defaultdict

from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor as KafkaCooperativeSticky
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor as KafkaSticky
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import assignd  # noqa: E402
from assignd.v1 import assignment_pb2 as pb  # noqa: E402
from harness import Cluster, joined, running_assignd  # noqa: E402

SIZES = {"10": (1, 10, 5), "1k": (10, 100, 20), "100k": (100, 1000, 200)}
CASES = ("first", "leave", "join")
PROTOCOLS = {
    "cooperative-sticky": (KafkaCooperativeSticky, assignd.CooperativeStickyAssignor),
    "sticky": (KafkaSticky, assignd.StickyAssignor),
}
GENERATION = 7


def group(builtin, size, case):
    """The JoinGroup response's members, [(member_id, subscription bytes)],
    each written by kafka-python's built-in assignor as a real member
    writes it, and the cluster."""
    topics, per_topic, n = SIZES[size]
    counts = {"topic-%03d" % t: per_topic for t in range(topics)}
    ids = ["member-%04d" % i for i in range(n)]
    owned = defaultdict(lambda: defaultdict(list))
    if case != "first":
        every = [(t, p) for t in sorted(counts) for p in range(per_topic)]
        for i, (t, p) in enumerate(every):
            owned[ids[i % n]][t].append(p)
    if case == "leave":
        ids = ids[:-1]
    elif case == "join":
        ids.append("member-%04d" % n)
    out = []
    for mid in ids:
        a = builtin()
        if owned.get(mid):
            a.on_assignment(ConsumerProtocolAssignment(a.version, sorted(owned[mid].items()), b""), GENERATION)
        out.append((mid, a.metadata(set(counts)).encode()))
    return out, Cluster(counts)


def lead(assignor, raw_members, cluster):
    """One rebalance as kafka-python's leader runs it; its plan."""
    members = [joined(mid, raw) for mid, raw in raw_members]
    plan = assignor.assign(cluster, members)
    for a in plan.values():
        a.encode()  # what SyncGroupRequest does with each assignment
    return plan


class Phases:
    """Times the assignd assignor's parts of assign()."""

    def __init__(self, a):
        self.took = defaultdict(list)
        request, plan, stub = a._request, a._plan, a._stub
        a._request = self._timed("request", request)
        a._plan = self._timed("answer decoded", plan)
        a._stub = type("TimedStub", (), {"Assign": staticmethod(self._timed("Assign call", stub.Assign))})()

    def _timed(self, name, f):
        def timed(*args, **kw):
            start = time.perf_counter()
            try:
                return f(*args, **kw)
            finally:
                self.took[name].append(time.perf_counter() - start)
        return timed


def revoked(builtin, raw_members, plan):
    """Partitions members report owning that their plan leaves out."""
    n = 0
    for mid, raw in raw_members:
        had = {(tp.topic, tp.partition) for tp in builtin.parse_member_metadata(joined(mid, raw).metadata).partitions}
        n += len(had - {(t, p) for t, ps in plan[mid].assigned_partitions for p in ps})
    return n


def ms(xs):
    return statistics.median(xs) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--protocol", choices=sorted(PROTOCOLS), default="cooperative-sticky")
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated, of %s" % ", ".join(SIZES))
    ap.add_argument("--runs", default="20,5,3",
                    help="timed runs of each leader per case, per size (kafka-python's sticky takes minutes at 100k)")
    ap.add_argument("--builtin-runs-100k", type=int, default=1, help="of kafka-python's assignor at 100k")
    ap.add_argument("--builtin-limit", type=float, default=900,
                    help="seconds after which a run of kafka-python's assignor is stopped (the row says '>')")
    args = ap.parse_args()
    runs = dict(zip(SIZES, (int(n) for n in args.runs.split(","))))
    builtin_cls, assignd_cls = PROTOCOLS[args.protocol]
    calls = []
    print("| group | case | kafka-python %s | assignd leader path | ratio | JoinGroup decoded | request written "
          "| Assign call | of which in assignd | answer decoded | SyncGroup encoded | revoked (kafka-python / assignd) |"
          % args.protocol)
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with running_assignd(calls=calls) as addr:
        a = assignd_cls(addr, group_id="bench", timeout=300)
        floor = []
        for _ in range(101):
            start = time.perf_counter()
            a._stub.ListAssignors(pb.ListAssignorsRequest(), timeout=10)
            floor.append(time.perf_counter() - start)
        phases = Phases(a)
        for size in args.sizes.split(","):
            builtin_runs = args.builtin_runs_100k if size == "100k" else runs[size]
            for case in CASES:
                raw, cluster = group(builtin_cls, size, case)
                lead(a, raw, cluster)  # warm-up: the first call on a channel, encoders compiled
                phases.took.clear()
                took = defaultdict(list)
                builtin_plan, stopped = None, False
                for i in range(max(runs[size], builtin_runs)):  # alternating
                    if i < builtin_runs and not stopped:
                        start = time.perf_counter()
                        try:
                            with limit(args.builtin_limit):
                                builtin_plan = lead(builtin_cls(), raw, cluster)
                        except Stopped:
                            stopped = True
                        took["builtin"].append(time.perf_counter() - start)
                    if i >= runs[size]:
                        continue
                    del calls[:]
                    start = time.perf_counter()
                    members = [joined(mid, r) for mid, r in raw]
                    decoded = time.perf_counter()
                    plan = a.assign(cluster, members)
                    assigned = time.perf_counter()
                    for x in plan.values():
                        x.encode()
                    end = time.perf_counter()
                    if a.stats.get("assignd", 0) != sum(a.stats.values()):
                        sys.exit("the assignd leader fell back: %s" % dict(a.stats))
                    took["assignd"].append(end - start)
                    took["decode"].append(decoded - start)
                    took["encode"].append(end - assigned)
                    while not calls:  # the call log's line comes a moment after the answer
                        time.sleep(0.001)
                    took["server"].append(duration(calls[-1]["grpc.duration"]))
                p = phases.took
                bound = "> " if stopped else ""
                print("| %s | %s | %s%s | %s | %s%.4f× | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s / %d |" % (
                    size, case, bound, fmt(took["builtin"]), fmt(took["assignd"]), "< " if stopped else "",
                    ms(took["assignd"]) / ms(took["builtin"]) if took["builtin"] else float("nan"),
                    ms(took["decode"]), ms(p["request"]), ms(p["Assign call"]), ms(took["server"]),
                    ms(p["answer decoded"]), ms(took["encode"]),
                    "-" if builtin_plan is None else revoked(builtin_cls, raw, builtin_plan),
                    revoked(builtin_cls, raw, plan)), flush=True)
        a.close()
    print("\nMedians in ms; the parts are the assignd path's. The floor, an empty call from this process "
          "(ListAssignors): %.2f ms, median of 100." % ms(floor[1:]))


def fmt(xs):
    return "%.2f ms (%d)" % (ms(xs), len(xs)) if xs else "-"


class Stopped(Exception):
    """A run of kafka-python's assignor reached --builtin-limit."""


@contextlib.contextmanager
def limit(seconds):
    """Raises Stopped in this (the main) thread after seconds: kafka-python's
    sticky assignor is pure Python, so the signal handler runs between its
    bytecodes."""
    def stop(signum, frame):
        raise Stopped()
    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def duration(s):
    """Seconds of a Go time.Duration string ("1.5ms", "850µs", "2.1s")."""
    for unit, scale in (("ms", 1e-3), ("µs", 1e-6), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)):
        if s.endswith(unit):
            head = s[:-len(unit)]
            if unit == "s" and "m" in head:  # "1m2.5s"
                m, _, sec = head.partition("m")
                return int(m) * 60 + float(sec)
            return float(head) * scale
    raise ValueError("not a duration: %r" % s)


if __name__ == "__main__":
    main()
