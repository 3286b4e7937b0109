"""Bounds every fuzzed read must stay within, and the checks shared by the fuzz tests.

Time: each read runs under a POSIX interval timer; one that passes SECONDS fails the example
(a hang is a failure, not a stuck suite). Memory: a watchdog thread reads the resident size every
50 ms and stops the read as soon as it has grown by more than MEMORY_MB (a bomb fails the case
rather than the machine), and the process's peak may not have grown by more afterwards. Messages:
a refusal is one line, at most a few hundred characters.
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator

from model.workbook.rows import Workbook
from model.workbook.validation import SPECS, parse_field

SECONDS = 10.0
MEMORY_MB = 300
MESSAGE_CHARS = 2000


class OverBound(AssertionError):
    """A read went past the time bound."""


def _peak_mb() -> float:
    try:
        import resource
    except ImportError:  # not POSIX: no peak to read
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _resident_mb() -> float:
    """The resident size now (Linux /proc); 0 where it cannot be read."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


@contextlib.contextmanager
def bounded(seconds: float = SECONDS, memory_mb: float = MEMORY_MB) -> Iterator[None]:
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    before = _peak_mb()
    tripped: list[float] = []
    stop = threading.Event()

    def expire(signum: int, frame: Any) -> None:
        if tripped:
            raise OverBound(f"the resident memory grew by {tripped[0]:.0f} MB, over {memory_mb:.0f} MB")
        raise OverBound(f"took longer than {seconds} s")

    def watch(start: float, main: int) -> None:
        while not stop.wait(0.05):
            grown = _resident_mb() - start
            if grown > memory_mb:
                tripped.append(grown)
                signal.pthread_kill(main, signal.SIGALRM)  # handled by expire, in the main thread
                return

    if usable:
        # pytest-timeout may hold the same timer for the whole test: hand its rest back afterwards
        old_handler = signal.signal(signal.SIGALRM, expire)
        old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
        started = time.monotonic()
        if hasattr(signal, "pthread_kill") and _resident_mb():
            threading.Thread(target=watch, args=(_resident_mb(), threading.get_ident()), daemon=True).start()
    try:
        yield
    finally:
        stop.set()
        if usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)
            if old_delay > 0:
                signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - started), 0.001), old_interval)
    grown = _peak_mb() - before
    assert grown <= MEMORY_MB, f"the peak memory grew by {grown:.0f} MB"


def outcome(read: Callable[[], Any], refusal: type[BaseException] | tuple[type[BaseException], ...]) -> Any:
    """The result of `read`, or the refusal it raised (of the expected type, one short line), within bounds."""
    with bounded():
        try:
            return read()
        except refusal as exc:
            text = str(exc)
            assert text and "\n" not in text and "\r" not in text, f"not one line: {text!r}"
            assert len(text) <= MESSAGE_CHARS, f"a refusal of {len(text)} characters"
            assert "Traceback" not in text
            return exc


def typed_form(spec_kind: str, value: Any) -> Any:
    """What an analyst would type for a stored value (full precision, a point as decimal mark)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value) if spec_kind != "text" else value


def assert_accepted_as_typed(wb: Workbook) -> None:
    """Every stored value, typed back into the window, is accepted and gives the same value."""
    for rows in (wb.tiers, wb.classes, wb.overrides, [wb.settings]):
        for row in rows:
            row_type = type(row)
            for name, spec in SPECS[row_type].items():
                value = getattr(row, name)
                if isinstance(value, float):
                    assert math.isfinite(value), f"{name}: {value!r} stored"
                again = parse_field(row_type, name, typed_form(spec.kind, value))
                assert again == value or (isinstance(value, float) and math.isclose(again, value, rel_tol=1e-12)), \
                    f"{row_type.__name__}.{name}: stored {value!r}, typed back {again!r}"
    assert isinstance(wb.title, str)
