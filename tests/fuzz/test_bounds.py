"""The fuzz suite's own checks can fail: a read past the time bound, a refusal over two lines."""
from __future__ import annotations

import os
import signal
import time

import pytest

from tests.fuzz.bounds import OverBound, bounded, outcome


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX interval timers")
def test_a_read_past_the_time_bound_fails() -> None:
    with pytest.raises(OverBound):
        with bounded(0.2):
            time.sleep(3)


@pytest.mark.skipif(not hasattr(signal, "pthread_kill") or not os.path.exists("/proc/self/statm"),
                    reason="reads the resident size from /proc")
def test_a_read_past_the_memory_bound_is_stopped_while_it_runs() -> None:
    hold = []
    with pytest.raises(OverBound, match="resident memory grew by"):
        with bounded(seconds=20, memory_mb=50):
            while True:  # grows until the watchdog stops it, well before the time bound
                hold.append(bytearray(4 * 1024 * 1024))
                time.sleep(0.005)
    assert len(hold) * 4 < 200
    hold.clear()


def test_a_refusal_over_two_lines_or_of_another_type_fails() -> None:
    def two_lines() -> None:
        raise ValueError("first\nsecond")

    with pytest.raises(AssertionError, match="not one line"):
        outcome(two_lines, ValueError)
    with pytest.raises(KeyError):
        outcome(lambda: {}["x"], ValueError)
