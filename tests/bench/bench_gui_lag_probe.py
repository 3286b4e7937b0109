"""Benchmark: how long the GUI thread is kept from its events while a probe runs, against the same window idle.

The window runs on Xvfb at 1366 x 768 (tests/x11: the app as `specledger` starts it), the probe against
`serve-demo` in its own process on 127.0.0.1. A 10 ms timer on the GUI thread measures how late each tick
comes (a key typed then waits as long): idle, then during a probe run, side by side in one run, repeated.

    python tests/bench/bench_gui_lag_probe.py [--seconds 4] [--repeats 3] [--max-tokens 48]

Does the probe's worker starve the GUI thread? Keys were lost typing during a run once; they were lost in the frozen
name column's editor (tests/x11/test_typing_x.py), and this measures the rest.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.x11.xsession import App, ServeDemo, XServer, wait_until  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-lag-"))
    rows = []
    with XServer(tmp) as x, ServeDemo() as server, App(x, tmp / "home") as app:
        for i in range(args.repeats):
            idle = app.ask(f"lag {args.seconds}", timeout=args.seconds + 30)
            assert app.ask(f"probe {server.base_url} {args.max_tokens} 3")["started"]
            wait_until(lambda: (app.ask("state")["progress"] or 0) >= 1, 90.0, "the probe's first request")
            busy = app.ask(f"lag {args.seconds}", timeout=args.seconds + 30)
            still = app.ask("state")["busy"]
            rows.append((i + 1, idle, busy, still))
            wait_until(lambda: not app.ask("state")["busy"], 600.0, "the run to end")
    print(f"GUI thread lateness of a 10 ms timer over {args.seconds:g} s, idle and during a probe (ms)")
    print(f"{'run':>3}  {'idle max':>8} {'p95':>6} {'mean':>6}   {'probe max':>9} {'p95':>6} {'mean':>6}  "
          f"{'ratio p95':>9}  probe still running")
    for i, idle, busy, still in rows:
        ratio = busy["p95_ms"] / idle["p95_ms"] if idle["p95_ms"] > 0 else float("inf")
        print(f"{i:>3}  {idle['max_ms']:>8.2f} {idle['p95_ms']:>6.2f} {idle['mean_ms']:>6.2f}   "
              f"{busy['max_ms']:>9.2f} {busy['p95_ms']:>6.2f} {busy['mean_ms']:>6.2f}  {ratio:>9.2f}  {still}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
