"""Benchmark the sampler on the demo pair, in one run:

- tokens/s of speculative and of target-only decoding,
- the share of wall time spent outside onnxruntime calls (target: under 10%),
- measured versus predicted speedup, per class and over all prompts.

    python tests/bench/bench_sampling.py [--k 4] [--max-new-tokens 48] [--provider auto]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.sampling.run import run_sampling, run_to_end  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description="sampler benchmark on the demo pair")
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=48)
    ap.add_argument("--provider", default="auto")
    args = ap.parse_args()
    result = run_to_end(run_sampling(k=args.k, max_new_tokens=args.max_new_tokens, provider=args.provider))
    tokens = sum(c.generated_tokens for c in result.classes)
    spec_time = sum(c.generated_tokens / c.tokens_per_second_speculative for c in result.classes)
    plain_tokens = sum(len(p.target_output_ids) for p in result.prompts)
    plain_time = sum(
        sum(len(p.target_output_ids) for p in result.prompts if p.task_class == c.task_class)
        / c.tokens_per_second_target for c in result.classes)
    outside = 1.0 - result.ort_seconds / result.wall_seconds
    print(f"provider: {result.provider}; K = {result.k}; {len(result.prompts)} prompts; "
          f"{result.max_new_tokens} new tokens each")
    print(f"speculative: {tokens / spec_time:8.0f} tokens/s")
    print(f"target-only: {plain_tokens / plain_time:8.0f} tokens/s")
    print(f"wall time outside onnxruntime calls: {outside:.1%} (target < 10%) "
          f"of {result.wall_seconds:.2f} s")
    print(f"{'class':<14}{'alpha':>7}{'c':>7}{'v':>7}{'measured':>10}{'predicted':>11}")
    for c in result.classes:
        print(f"{c.task_class:<14}{c.alpha:>7.2f}{c.c_measured:>7.2f}{c.v_measured:>7.2f}"
              f"{c.speedup_measured:>9.2f}x{c.speedup_predicted:>10.2f}x")
    print(f"{'all prompts':<35}{(tokens / spec_time) / (plain_tokens / plain_time):>9.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
