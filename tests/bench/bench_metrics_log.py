"""Time and peak memory of import-metrics on a big server log: 200 MB, 1% of its lines speculative.

Run: python tests/bench/bench_metrics_log.py [MB] [FORMAT]   (default 200 MB, vllm; or llamacpp)
The log is generated in a temporary folder (never committed): vLLM V1 "SpecDecoding metrics" lines (or
llama.cpp per-request lines) among request, throughput and HTTP lines. Each measurement runs in a fresh
process so its peak RSS is its own, side by side in one run:
  - baseline: the file read line by line in Python, doing nothing with the lines;
  - import:   model.metrics.read.read_sources on it (the streamed reader), checked against the counts written.
The goal: under 10 s and under 200 MB for 200 MB. Prints the ratios to the baseline.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.model.metrics import log_files as lf  # noqa: E402

HIST = [10, 15, 20, 25, 30]  # one interval: 100 steps, 250 accepted of 400


def write_log(path: Path, megabytes: int, fmt: str) -> int:
    """Returns how many speculative lines it wrote."""
    noise = lf.noise(400)
    spec = lf.vllm_v1_line(HIST) if fmt == "vllm" else lf.llamacpp_request(1, HIST)
    block = "\n".join(noise[:99] + [spec]) + "\n"  # 1 line in 100 is speculative
    blocks = max(1, megabytes * 1024 * 1024 // len(block.encode()))
    with open(path, "w", encoding="utf-8") as fh:
        for _ in range(blocks):
            fh.write(block)
    return blocks


_MEASURE = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
path, what = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if what == "baseline":
    n = 0
    with open(path, "rb") as fh:
        for line in fh:
            n += 1
    result = {{"lines": n}}
else:
    from model.metrics.read import read_sources
    [s] = read_sources([path])
    result = {{"steps": s.counts.steps, "accepted": s.counts.accepted, "alpha": s.counts.alpha}}
result["seconds"] = time.perf_counter() - t0
result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(result))
"""


def measure(path: Path, what: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEASURE.format(root=str(ROOT)), str(path), what],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(megabytes: int, fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "server.log"
        t0 = time.perf_counter()
        spec_lines = write_log(path, megabytes, fmt)
        size = path.stat().st_size
        print(f"wrote {size / 2**20:,.0f} MB ({fmt}, {spec_lines:,} speculative lines of {spec_lines * 100:,}) "
              f"in {time.perf_counter() - t0:.1f} s")
        base = measure(path, "baseline")
        imp = measure(path, "import")
        assert imp["steps"] == 100 * spec_lines and imp["accepted"] == 250 * spec_lines, imp
        print(f"{'':<28}{'seconds':>9}{'peak RSS MB':>13}")
        print(f"{'baseline (read lines)':<28}{base['seconds']:>9.2f}{base['peak_mb']:>13.0f}")
        print(f"{'import-metrics reader':<28}{imp['seconds']:>9.2f}{imp['peak_mb']:>13.0f}")
        print(f"import / baseline: time x{imp['seconds'] / base['seconds']:.2f}, memory x{imp['peak_mb'] / base['peak_mb']:.2f}; "
              f"goal < 10 s and < 200 MB: {'met' if imp['seconds'] < 10 and imp['peak_mb'] < 200 else 'NOT met'}")
        print(f"counts read back: {imp['steps']:,.0f} steps, {imp['accepted']:,.0f} accepted, alpha {imp['alpha']:.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200, sys.argv[2] if len(sys.argv) > 2 else "vllm")
