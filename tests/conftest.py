"""Shared test set-up: Qt offscreen, and no test may leave a thread running."""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The machine is shared and noisy: a slow example is not a failure.
# In CI the examples are fixed (derandomize), so a landing never hangs on a lucky draw;
# locally each run explores new ones.
settings.register_profile("specledger", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          derandomize=bool(os.environ.get("CI")))
settings.load_profile("specledger")

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# a Ray the tests start listens on loopback only; Ray reads this when it is imported (see model/sampling/ray_connect.py)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _no_leftover_threads():
    before = set(threading.enumerate())
    yield
    leftover = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    for t in leftover:
        t.join(timeout=5)
    still = [t.name for t in leftover if t.is_alive()]
    assert not still, f"test left threads running: {still}"


@pytest.fixture(scope="module")
def ray_local():
    """One Ray for the Ray tests of a module, started on first use: 2 CPUs, loopback only, no dashboard.

    Ray takes seconds to start on a shared 2-core machine, so a module's tests share it; a run's own workers are
    killed at its end, so the tests leave it as they found it. It is shut down after the module, not the session:
    kept for the session, its threads ran through every later Qt test, and one full run (a helper's, on main at
    7ee99b2) went idle for good in a window test's chart setup with that Ray still up; pytest-timeout's signal
    did not end it.
    """
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        assert [n["NodeManagerAddress"] for n in ray.nodes()] == ["127.0.0.1"]  # no network address published
        yield ray
    finally:
        ray.shutdown()
