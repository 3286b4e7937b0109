"""Benchmark the probe's own overhead at load: per-event timestamp jitter at 1, 16 and 64 parallel streams.

serve-demo's app runs in a child process (batched, vLLM style: one event per step) and records when each
step's rendering began and when its write was done (a step where the two lie over SERVER_PAUSE_S apart, the
server paused at the write, is left out and counted: its write time is not known); the probe
(model/probe/load.py: every stream on one event loop, a connection per stream, the kernel's receive times)
records when each event arrived. It prints the client's CPU per event too. Per request, the client's
between-event intervals minus the server's are the client's timestamp jitter: what the probe adds to every
step time it reads. The goal is that the
jitter at 16 and 64 streams stays within 2x of one stream's. Printed side by side, in one run (the
machine is shared: compare within a run).

    python tests/bench/bench_load.py [--levels 1,16,64] [--step-ms 20] [--max-tokens 48] [--knee 32] [--rule 1,4,16]

With --rule it also probes fast and baseline at those levels and prints the measured speedup beside the
batching rule's prediction (model.probe.batching.predicted_speedup at the tokens per step the client read).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from model.common.cancel import run_to_end  # noqa: E402

SERVER_PAUSE_S = 0.001  # a step whose rendering and write took longer: the server paused there
from model.probe.client import Limits  # noqa: E402
from model.probe.load import run_load  # noqa: E402

SERVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from starlette.responses import JSONResponse
from starlette.routing import Route
from commands.serve_demo import demo_models
from model.probe.batching import BatchRule
from model.probe.demo_server import LoopbackServer, create_app
models = demo_models("vllm", 4)
app = create_app(models, min_step_s=float(sys.argv[2]), batch=BatchRule(float(sys.argv[2]), int(sys.argv[3])),
                 max_tokens_cap=128)
async def truth(request):
    return JSONResponse({t["id"]: [t["sent"], t["began"]] for m in models.values() for t in m.truth})
app.router.routes.append(Route("/truth", truth, methods=["GET"]))
server = LoopbackServer(app).start()
print(server.base_url, flush=True)
sys.stdin.read()  # until the benchmark closes our stdin
server.stop()
"""


def jitter_at(base_url: str, level: int, max_tokens: int, truth_url: str
              ) -> tuple[np.ndarray, int, int, float, int]:
    import httpx

    from tests.probe_servers import settings_for, subset

    settings = settings_for(base_url, subset(2), baseline=False)
    settings.concurrency, settings.max_tokens = (level,), max_tokens
    limits = Limits(connect_s=10, first_byte_s=60, gap_s=30, total_s=300, retries=2, max_retry_wait_s=1)
    cpu = time.process_time()
    run = run_to_end(run_load(settings, {}, limits=limits))
    cpu = time.process_time() - cpu  # the client's own CPU, every thread of this process (the server has its own)
    if run.error:
        raise SystemExit(f"level {level}: {run.error}")
    sent = httpx.get(truth_url, timeout=10).json()
    diffs: list[float] = []
    skipped = paused = 0
    for r in run.records:
        after, before = (np.asarray(x, dtype=np.float64) for x in sent.get(r.response_id, [[], []]))
        server = np.diff(after)
        client = np.diff([e.t for e in r.content_events])
        if len(server) == len(client) and len(client):
            # the write lies between `before` and `after`; where the server paused there (a busy machine), the
            # server's own time of the write is unknown to SERVER_PAUSE_S, and so is the client's jitter
            known = (after - before) <= SERVER_PAUSE_S
            ok = known[1:] & known[:-1]
            paused += int((~ok).sum())
            diffs.extend((client - server)[ok] * 1e3)
        else:
            skipped += 1
    events = sum(len(r.events) for r in run.records)
    return np.abs(np.asarray(diffs)), len(run.records), skipped, cpu * 1e6 / max(1, events), paused


def rule_check(base_url: str, levels: tuple[int, ...], max_tokens: int, step_s: float, knee: int) -> None:
    from model.probe.analysis import analyse
    from model.probe.batching import BatchRule, predicted_speedup
    from model.probe.events import FAST
    from model.probe.speed import request_tokens
    from tests.probe_servers import settings_for, subset

    settings = settings_for(base_url, subset(1))
    settings.concurrency, settings.max_tokens = levels, max_tokens
    limits = Limits(connect_s=10, first_byte_s=60, gap_s=30, total_s=300, retries=2, max_retry_wait_s=1)
    run = run_to_end(run_load(settings, {}, limits=limits))
    if run.error:
        raise SystemExit(run.error)
    rule = BatchRule(step_s, knee)
    print(f"measured speedup against the batching rule ({rule.describe()}):")
    print(f"{'streams':>8}{'fast tok/s':>12}{'base tok/s':>12}{'tok/step':>10}{'measured':>10}{'rule':>8}{'ratio':>8}")
    for x in analyse(run.records, run.header).by_concurrency:
        mine = [r for r in run.records if r.role == FAST and r.concurrency == x.concurrency]
        e = (sum(request_tokens(r) - (r.content_events[0].n_tokens or 1) for r in mine)
             / sum(len(r.content_events) - 1 for r in mine))
        p = predicted_speedup(rule, x.concurrency, 4, e)
        print(f"{x.concurrency:>8}{x.decode_tokens_per_s:>12.1f}{x.baseline_decode_tokens_per_s:>12.1f}{e:>10.2f}"
              f"{x.speedup_measured:>9.2f}x{p:>7.2f}x{x.speedup_measured / p:>8.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", default="1,16,64")
    ap.add_argument("--step-ms", type=float, default=20.0)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--knee", type=int, default=32)
    ap.add_argument("--rule", default="", help="levels to check the batching rule at, e.g. 1,4,16")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    child = subprocess.Popen([sys.executable, "-c", SERVER, str(ROOT), str(args.step_ms / 1000), str(args.knee)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout is not None
        base_url = child.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise SystemExit("the demo server did not start")
        truth_url = base_url.rsplit("/v1", 1)[0] + "/truth"
        print(f"probe client jitter against serve-demo's step times (server in its own process, batched, "
              f"vLLM style, {args.step_ms:g} ms steps, knee {args.knee} tokens, {args.max_tokens} tokens a request)")
        print(f"{'streams':>8}{'requests':>10}{'intervals':>11}{'server step':>13}{'|jitter| med':>14}"
              f"{'p95':>9}{'max':>9}{'p95/step':>10}{'med vs 1':>10}{'p95 vs 1':>10}{'CPU/event':>11}")
        first: tuple[float, float] | None = None
        for level in levels:
            started = time.perf_counter()
            d, n, skipped, cpu_us, paused = jitter_at(base_url, level, args.max_tokens, truth_url)
            step = args.step_ms * max(1.0, level * 5 / args.knee)  # the rule at a full batch of K = 4 streams
            med, p95 = float(np.median(d)), float(np.percentile(d, 95))
            first = first or (med, p95)
            print(f"{level:>8}{n:>10}{len(d):>11}{step:>11.0f}ms{med:>12.3f}ms{p95:>7.2f}ms{d.max():>7.1f}ms"
                  f"{p95 / step:>10.1%}{med / first[0]:>9.2f}x{p95 / first[1]:>9.2f}x{cpu_us:>9.0f}us"
                  + (f"  ({skipped} requests' events did not match the server's steps)" if skipped else "")
                  + (f"  ({paused} intervals left out: the server paused at the write)" if paused else "")
                  + f"  [{time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.1f} on "
                    f"{os.cpu_count()} cores]")
        print("goal: median and p95 jitter at 16 and 64 streams within 2x of one stream's")
        if args.rule:
            rule_check(base_url, tuple(int(x) for x in args.rule.split(",")), args.max_tokens,
                       args.step_ms / 1000, args.knee)
    finally:
        if child.stdin:
            child.stdin.close()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()


if __name__ == "__main__":
    main()
