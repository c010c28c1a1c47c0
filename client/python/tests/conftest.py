"""Fixtures: a real assignd process (ASSIGND_BINARY, built by
scripts/test.sh), kafka-python members and cluster metadata."""

import time

import pytest

from harness import Cluster, member, running_assignd  # noqa: F401 (re-exported for the tests)


@pytest.fixture(scope="session")
def assignd_addr():
    """Starts ASSIGND_BINARY on a free port for the session; its address."""
    try:
        with running_assignd() as addr:
            yield addr
    except RuntimeError as e:
        pytest.fail(str(e))


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
