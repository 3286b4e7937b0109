"""The client's own scheduling delay, measured against a timer while a request streams.

A thread asks to sleep PERIOD_S again and again and notes by how much it woke late. On an idle
machine that is a fraction of a millisecond; when every core is busy the process waits for a turn,
and so does the thread that reads the stream: a stall of a decode time or more is when two steps
can be read as one (model.probe.merges). Stalls are kept as [end, length] in seconds on the
request's clock, so the run file holds them and a re-analysis sees them too.
"""
from __future__ import annotations

import threading
import time

PERIOD_S = 0.002
REPORT_S = 0.003  # a wake-up later than this is a stall worth keeping
MAX_STALLS = 5000  # per request; a pathological run keeps its first ones


class StallWatch:
    def __init__(self, origin: float, clock=time.perf_counter) -> None:
        self.origin, self._clock = origin, clock
        self.stalls: list[list[float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="probe-stall-watch", daemon=True)

    def _run(self) -> None:
        clock, stop = self._clock, self._stop
        while not stop.is_set():
            asked = clock()
            time.sleep(PERIOD_S)
            woke = clock()
            late = woke - asked - PERIOD_S
            if late >= REPORT_S and len(self.stalls) < MAX_STALLS:
                self.stalls.append([round(woke - self.origin, 6), round(late, 6)])

    def __enter__(self) -> "StallWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(1.0)
