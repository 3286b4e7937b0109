"""Benchmark the probe on a busy machine: the CPU deliberately loaded against unloaded, side by side.

The load is a busy loop in other processes, one per core, started and stopped here. Each run probes
the demo server in a per-token style, the server in a process of its own (this script with --serve:
a server in the probe's own process stops sending whenever the probe is descheduled, so a late read
could never merge steps), on loopback: llamacpp (llama.cpp's stream:
logprobs on some events, silent tokens, draft counts in `timings`) and per-token (no server counts,
so K comes from the timing alone). Per run it prints K and where it came from, whether the run was
marked "timing unreliable", how many steps were left out as merged, and alpha from timing per class
against the server's truth over the stretches the client could see. Each run is analysed three ways
from the same records: as the probe does (the client's own timer), as a run file without the timer
(a step late by 1.5 decode times is suspect), and with merge detection off (the reading before).

    python tests/bench/bench_probe_busy.py [--repeats 2] [--prompts-per-class 3] [--max-tokens 48] [--step-ms 20]
        [--styles llamacpp,per-token] [--per-core 1]

Goal: under load, never a wrong K; either alpha within 0.05 of the truth or the run marked unreliable.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.common.cancel import run_to_end  # noqa: E402
from model.probe import merges  # noqa: E402
from model.probe.analysis import analyse  # noqa: E402
from model.probe.demo_server import LoopbackServer, create_app  # noqa: E402
from model.probe.events import FAST, RequestRecord  # noqa: E402
from model.probe.run import run_probe  # noqa: E402

K = 4


@contextlib.contextmanager
def cpu_load(on: bool, per_core: int = 1) -> Iterator[int]:
    """A busy loop in its own process on every core while the block runs; stopped by handle afterwards."""
    procs: list[subprocess.Popen] = []
    if on:
        procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                 for _ in range((os.cpu_count() or 1) * per_core)]
        time.sleep(0.5)  # let them take the cores
    try:
        yield len(procs)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


@contextlib.contextmanager
def detection(mode: str) -> Iterator[None]:
    """'timer' as the probe runs; 'no timer' as a run file without stalls; 'off' with no merge detection."""
    saved = merges.flag_by_timing, merges.flag_by_size
    if mode == "off":
        merges.flag_by_timing = lambda *a, **k: None  # type: ignore[assignment]
        merges.flag_by_size = lambda *a, **k: None  # type: ignore[assignment]
    try:
        yield
    finally:
        merges.flag_by_timing, merges.flag_by_size = saved


def analysed(records: list[RequestRecord], header: dict[str, Any], mode: str):
    if mode == "no timer":
        records = [RequestRecord.from_dict(dict(r.to_dict(), stalls=None)) for r in records]
    with detection(mode):
        return analyse(records, header)


def serve(style: str, step_ms: float) -> int:
    """The server process: print the base URL, serve until a line on stdin, then print the truth as JSON."""
    from commands.serve_demo import demo_models
    from tests.probe_servers import demo_pair
    models = demo_models(style, K, pair=demo_pair())
    with LoopbackServer(create_app(models, min_step_s=step_ms / 1000)) as server:
        print(server.base_url, flush=True)
        sys.stdin.readline()
    print(json.dumps(models["demo-fast"].truth), flush=True)
    return 0


def probe_once(style: str, per_class: int, max_tokens: int, step_ms: float):
    from tests.probe_servers import settings_for, subset
    server = subprocess.Popen([sys.executable, __file__, "--serve", style, "--step-ms", str(step_ms)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        if not base_url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the demo server did not start: {base_url!r}")
        settings = settings_for(base_url, subset(per_class), baseline=False)
        settings.max_tokens = max_tokens
        run = run_to_end(run_probe(settings, {}))
        server.stdin.write("done\n")
        server.stdin.flush()
        truth = json.loads(server.stdout.readline())
        server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(5)
    if run.error:
        raise RuntimeError(run.error)
    return run, truth


def main() -> int:
    from tests.probe_servers import truth_alpha
    ap = argparse.ArgumentParser(allow_abbrev=False, description="the probe on a loaded CPU against unloaded, side by side")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--prompts-per-class", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--step-ms", type=float, default=20.0)
    ap.add_argument("--styles", default="llamacpp,per-token")
    ap.add_argument("--per-core", type=int, default=1, help="busy-loop processes per core (default 1)")
    ap.add_argument("--serve", metavar="STYLE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        return serve(args.serve, args.step_ms)
    print(f"{os.cpu_count()} cores; demo pair, K = {K}, {args.prompts_per_class} prompts per class, "
          f"{args.max_tokens} tokens, {args.step_ms:g} ms steps; load = one busy-loop process per core")
    head = (f"{'style':<10}{'load':<8}{'reading':<10}{'K':>3} {'K from':<8}{'unrel.':>7}{'left out':>10}"
            f"{'max|da|':>9}{'mean|da|':>9}  goal")
    print(head + "\n" + "-" * len(head))
    summary: dict[tuple[str, str], list[tuple[bool, bool, bool]]] = {}
    for repeat in range(args.repeats):
        for style in args.styles.split(","):
            for loaded in (False, True):
                with cpu_load(loaded, args.per_core) as burners:
                    run, truth = probe_once(style, args.prompts_per_class, args.max_tokens, args.step_ms)
                load_text = f"{burners} proc" if loaded else "none"
                for mode in ("timer", "no timer", "off"):
                    report = analysed(run.records, run.header, mode)
                    diffs = []
                    for c in report.classes:
                        ids = {r.response_id for r in run.records if r.role == FAST and r.task_class == c.task_class}
                        if c.alpha_timing is not None:
                            diffs.append(abs(c.alpha_timing - truth_alpha(truth, ids, seen_only=True)))
                    from model.probe.steps import detect_style, read_steps
                    with detection(mode):
                        recs = run.records if mode != "no timer" else [
                            RequestRecord.from_dict(dict(r.to_dict(), stalls=None)) for r in run.records]
                        reading = read_steps([r for r in recs if r.role == FAST], detect_style(recs))
                    total = sum(len(gs) for _, gs in reading.groups)
                    left = reading.left_out
                    k_wrong = report.k_estimate is not None and report.k_estimate != K
                    alpha_ok = bool(diffs) and max(diffs) <= 0.05 and len(diffs) == len(report.classes)
                    goal = not k_wrong and (report.timing_unreliable or alpha_ok)
                    summary.setdefault((load_text != "none" and "loaded" or "unloaded", mode), []).append(
                        (k_wrong, report.timing_unreliable, goal))
                    mx = f"{max(diffs):.3f}" if diffs else "–"
                    mean = f"{sum(diffs) / len(diffs):.3f}" if diffs else "–"
                    print(f"{style:<10}{load_text:<8}{mode:<10}{report.k_estimate or '–':>3} {report.k_source or '–':<8}"
                          f"{'yes' if report.timing_unreliable else 'no':>7}{f'{left}/{total}':>10}{mx:>9}{mean:>9}  "
                          f"{'met' if goal else 'MISSED'}{' (K wrong)' if k_wrong else ''}", flush=True)
    print("\nsummary (runs over both styles):")
    for (load, mode), rows in sorted(summary.items()):
        print(f"  {load:<9}{mode:<10} runs {len(rows)}: K wrong {sum(r[0] for r in rows)}, marked unreliable "
              f"{sum(r[1] for r in rows)}, goal met {sum(r[2] for r in rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
