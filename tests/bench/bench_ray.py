"""Benchmark sampling over Ray against a local run, side by side in one run, on the demo pair (CPU):

- Ray's start-up (ray.init of a local Ray) timed on its own;
- prompts/s of a local run and of Ray runs with 1, 2 and 4 workers over the same prompts: measuring
  phase (first prompt handed out to last result; a local run's prompt loop) and end to end (request
  to result, the pair's loading included);
- whether every Ray run's per-prompt counts equal the local run's (they must);
- a second local run whose ONNX Runtime sessions use one intra-op thread (in a child process): on a
  small model on a busy machine, ONNX Runtime's default pool (one spinning thread per core) alone
  makes a local run several times slower, and Ray's one-CPU workers do not pay that, so the Ray rows
  are read against this row for the scaling.

    python tests/bench/bench_ray.py [--repeat 2] [--max-new-tokens 48] [--workers 1,2,4]

The local Ray gets as many logical CPUs as the largest worker count, so 4 workers are scheduled on a
2-core machine too; there they share the cores, which is what the figures then show.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only

from model.sampling.prompts import DEMO_PROMPTS  # noqa: E402
from model.sampling.run import run_sampling, run_to_end  # noqa: E402


def _counts(result) -> list[tuple]:
    return [(p.line, p.output_ids, p.accepted_counts, p.drafted_counts, p.target_output_ids) for p in result.prompts]


_ONE_THREAD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import onnxruntime as ort
from model.sampling.run import run_sampling, run_to_end
_Options = ort.SessionOptions
class OneThread(_Options):
    def __init__(self):
        super().__init__()
        self.intra_op_num_threads = 1
ort.SessionOptions = OneThread
start = time.perf_counter()
r = run_to_end(run_sampling(prompts_path=sys.argv[2], max_new_tokens=int(sys.argv[3]), provider="cpu"))
print(json.dumps({"loop": r.wall_seconds, "whole": time.perf_counter() - start,
                  "counts": [[p.line, p.output_ids, p.accepted_counts, p.drafted_counts, p.target_output_ids]
                             for p in r.prompts]}))
"""


def _local_one_thread(prompts: Path, max_new_tokens: int, n: int, counts: list[tuple]) -> tuple:
    import json
    import subprocess

    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", _ONE_THREAD, root, str(prompts), str(max_new_tokens)],
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    same = "yes" if [tuple(c) for c in data["counts"]] == counts else "NO"
    return ("local, 1 thread", n / data["loop"], n / data["whole"], same)


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description="sampling over Ray against a local run")
    ap.add_argument("--repeat", type=int, default=2, help="the demo prompts this many times over (default 2)")
    ap.add_argument("--max-new-tokens", type=int, default=48)
    ap.add_argument("--workers", default="1,2,4")
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    lines = DEMO_PROMPTS.read_text(encoding="utf-8").strip().splitlines() * args.repeat
    with tempfile.TemporaryDirectory() as tmp:
        prompts = Path(tmp) / "prompts.jsonl"
        prompts.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run = dict(prompts_path=prompts, max_new_tokens=args.max_new_tokens, provider="cpu")
        n = len(lines)
        print(f"{os.cpu_count()} logical cores here ({len(os.sched_getaffinity(0))} usable); load average "
              f"{os.getloadavg()[0]:.1f} at the start; demo pair on CPU, {n} prompts, {args.max_new_tokens} "
              "new tokens each")
        rows = []
        start = time.perf_counter()
        local = run_to_end(run_sampling(**run))
        rows.append(("local", n / local.wall_seconds, n / (time.perf_counter() - start), "reference"))
        rows.append(_local_one_thread(prompts, args.max_new_tokens, n, _counts(local)))

        import ray

        from model.sampling.ray_run import RayOptions, run_sampling_ray

        start = time.perf_counter()
        ray.init(num_cpus=max(counts), include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        startup = time.perf_counter() - start
        try:
            for workers in counts:
                start = time.perf_counter()
                result = run_to_end(run_sampling_ray(**run, options=RayOptions(workers=workers)))
                same = "yes" if _counts(result) == _counts(local) else "NO"
                rows.append((f"Ray, {workers} worker{'s' if workers > 1 else ''}", n / result.wall_seconds,
                             n / (time.perf_counter() - start), same))
        finally:
            ray.shutdown()
        print(f"Ray start-up (ray.init, local, {max(counts)} logical CPUs): {startup:.1f} s, not in the figures below")
        print(f"{'run':<16}{'prompts/s measuring':>21}{'x local':>9}{'prompts/s end to end':>22}{'x local':>9}"
              f"  identical counts")
        for name, measuring, whole, same in rows:
            print(f"{name:<16}{measuring:>21.2f}{measuring / rows[0][1]:>8.2f}x{whole:>22.2f}"
                  f"{whole / rows[0][2]:>8.2f}x  {same}")
        print(f"load average at the end {os.getloadavg()[0]:.1f} (the machine is shared: compare within this run)")
    return 0 if all(r[3] in ("yes", "reference") for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
