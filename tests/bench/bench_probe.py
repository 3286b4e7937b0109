"""Benchmark the probe, in one run:

- the analysis of a 10,000-event run (multi-token events, and per-token events grouped by their gaps),
- the client's timestamp jitter against the server's own step times, on loopback: the demo server in
  per-token style records when it hands each step to the socket; the probe's between-step intervals
  are compared with the server's.

    python tests/bench/bench_probe.py [--prompts-per-class 2] [--step-ms 20] [--max-tokens 48] [--alpha-table]

With --alpha-table it also probes the demo server in every style and prints alpha per class from
timing and as reported, against the server's own truth.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.common.cancel import run_to_end  # noqa: E402
from model.probe.analysis import analyse  # noqa: E402
from model.probe.demo_server import LoopbackServer, create_app  # noqa: E402
from model.probe.events import FAST, RequestRecord, StreamEvent  # noqa: E402
from model.probe.run import run_probe  # noqa: E402
from model.probe.steps import PER_TOKEN_GAPS, detect_style, request_steps  # noqa: E402


def synthetic(events: int, per_token: bool, seed: int = 0) -> list[RequestRecord]:
    rng = np.random.default_rng(seed)
    records, made, i = [], 0, 0
    while made < events:
        r = RequestRecord(f"r{i}", FAST, ("code", "prose", "json")[i % 3], i, 0, 0, 10_000)
        t = 0.05
        for _ in range(100):
            n = int(min(rng.geometric(0.35), 5))
            if per_token:
                r.events.extend(StreamEvent(t + j * 3e-5, "x", 1, ["x"]) for j in range(n))
                made += n
            else:
                r.events.append(StreamEvent(t, "x" * n, n, ["x"] * n))
                made += 1
            t += 0.02 + rng.normal(0, 0.001)
        records.append(r)
        i += 1
    return records


def time_analysis(records: list[RequestRecord], repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        analyse(records)
        best = min(best, time.perf_counter() - t0)
    return best


def jitter(per_class: int, step_ms: float, max_tokens: int) -> None:
    from commands.serve_demo import demo_models
    from tests.probe_servers import settings_for, subset
    models = demo_models("per-token", 4)
    app = create_app(models, min_step_s=step_ms / 1000)
    with LoopbackServer(app) as server:
        settings = settings_for(server.base_url, subset(per_class), baseline=False)
        settings.max_tokens = max_tokens
        run = run_to_end(run_probe(settings, {}))
    truth = {t["id"]: t for t in models["demo-fast"].truth}
    style = detect_style(run.records)
    diffs: list[float] = []
    skipped = 0
    for r in run.records:
        sent = np.diff(truth[r.response_id]["sent"])
        starts, at = [], 0
        events = r.content_events
        for n in request_steps(r, style):
            starts.append(events[at].t)
            at += n if style.style == PER_TOKEN_GAPS else 1
        got = np.diff(starts)
        if len(got) == len(sent):  # a request whose steps were read as the server sent them
            diffs.extend((got - sent) * 1e3)
        else:
            skipped += 1
    d = np.abs(np.asarray(diffs))
    print(f"client vs server between-step intervals, {len(d)} intervals at {step_ms:g} ms steps (per-token style):")
    print(f"  |jitter| median {np.median(d):.3f} ms, p95 {np.percentile(d, 95):.3f} ms, max {d.max():.3f} ms; "
          f"as a share of a step: median {np.median(d) / step_ms:.1%}, p95 {np.percentile(d, 95) / step_ms:.1%}; "
          f"{skipped} of {len(run.records)} requests left out (steps merged or split)")


def alpha_table(per_class: int, step_ms: float, max_tokens: int) -> None:
    """Per style and class: the server's own alpha (ML over its full-K steps), the probe's from timing and
    the reported one, and the verdict."""
    from commands.serve_demo import demo_models
    from tests.probe_servers import settings_for, subset, truth_alpha
    print(f"alpha per class and style: demo pair, K = 4, {per_class} prompts per class, {max_tokens} tokens, "
          f"{step_ms:g} ms steps")
    print(f"{'style':<10}{'class':<15}{'truth':>7}{'timing':>8}{'|diff|':>8}{'reported':>10}  verdict")
    for style in ("vllm", "per-token", "chunked", "plain"):
        models = demo_models(style, 4)
        with LoopbackServer(create_app(models, min_step_s=step_ms / 1000)) as server:
            settings = settings_for(server.base_url, subset(per_class), baseline=False)
            settings.max_tokens = max_tokens
            run = run_to_end(run_probe(settings, {}))
        report = analyse(run.records, run.header)
        truth = models["demo-fast"].truth
        for c in report.classes:
            ids = {r.response_id for r in run.records if r.task_class == c.task_class}
            true = truth_alpha(truth, ids) if truth and truth[0]["k"] else None
            fig = lambda x: "–" if x is None else f"{x:.3f}"  # noqa: E731
            diff = None if true is None or c.alpha_timing is None else abs(c.alpha_timing - true)
            print(f"{style:<10}{c.task_class:<15}{fig(true):>7}{fig(c.alpha_timing):>8}{fig(diff):>8}"
                  f"{fig(c.alpha_reported):>10}  {report.verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description="probe benchmark")
    ap.add_argument("--prompts-per-class", type=int, default=2)
    ap.add_argument("--step-ms", type=float, default=20.0)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--alpha-table", action="store_true",
                    help="also probe the demo server in every style and print alpha per class against its truth")
    args = ap.parse_args()
    for per_token in (False, True):
        records = synthetic(10_000, per_token)
        n = sum(len(r.events) for r in records)
        seconds = time_analysis(records)
        print(f"analysis of {n:,} events ({'per-token, gap clustering' if per_token else 'multi-token events'}): "
              f"{seconds * 1e3:.1f} ms ({n / seconds:,.0f} events/s)")
    jitter(args.prompts_per_class, args.step_ms, args.max_tokens)
    if args.alpha_table:
        alpha_table(args.prompts_per_class, args.step_ms, args.max_tokens)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
