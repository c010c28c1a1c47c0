"""kafka-python partition assignors backed by assignd.

Each class is kafka-python's built-in assignor of the same protocol name
(range, roundrobin, sticky, cooperative-sticky) whose assign() -- run only by
the group leader -- asks assignd for the plan, within a bound (2 s by
default), and falls back to the built-in on any failure::

    from kafka import KafkaConsumer
    import assignd

    consumer = KafkaConsumer(
        "orders", group_id="checkout",
        partition_assignment_strategy=[
            assignd.CooperativeStickyAssignor("dns:///assignd:7070", group_id="checkout")],
    )

See docs/python.md in the assignd repository.
"""

from assignd._assignor import (
    CHANNEL_OPTIONS,
    DEFAULT_TIMEOUT,
    FALLBACK,
    RAISE,
    REASON_BAD_RESPONSE,
    REASON_DEADLINE,
    REASON_INVALID_ARGUMENT,
    REASON_MISCONFIGURED,
    REASON_OVERLOADED,
    REASON_RPC_ERROR,
    REASON_UNAVAILABLE,
    USER_AGENT,
    AssigndError,
    AssigndMixin,
    CooperativeStickyAssignor,
    RangeAssignor,
    RoundRobinAssignor,
    StickyAssignor,
)

__all__ = [
    "CHANNEL_OPTIONS", "DEFAULT_TIMEOUT", "FALLBACK", "RAISE",
    "REASON_BAD_RESPONSE", "REASON_DEADLINE", "REASON_INVALID_ARGUMENT", "REASON_MISCONFIGURED", "REASON_OVERLOADED",
    "REASON_RPC_ERROR", "REASON_UNAVAILABLE", "USER_AGENT",
    "AssigndError", "AssigndMixin",
    "CooperativeStickyAssignor", "RangeAssignor", "RoundRobinAssignor", "StickyAssignor",
]
