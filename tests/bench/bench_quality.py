"""Quality at a temperature: the smallest sharpening (q ∝ p^beta) each budget detects with 80% power, with and without
logprobs, and the tokens each budget costs.

Run: python tests/bench/bench_quality.py [RUNS]   (default 40 simulated probes per cell; prints a markdown table)

Each simulated probe sends P prompts R times to both tiers at a temperature, 64 tokens a request with logprobs
(model.quality.simulate.simulate_requests: each position a fresh next-token distribution over 64 tokens, a mix of
open, middling and nearly certain positions; the stream reports the top 5), 32 words without (simulate_texts: a
fixed random language model, each prompt its own, the greedy answer from it). The fast tier draws from q ∝ p^beta,
the baseline exactly. Per budget and beta the share of runs where the test rejects at 95% is the measured power;
the table gives the least beta on the grid with at least 80%, beside the size the test itself stated (the median
detectable beta over the exact tier's runs) and the false alarm rate at beta = 1. Tokens: the fast and baseline
sampled tokens plus the greedy pass (one request per prompt and tier), as `probe --temperature` sends them.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from model.quality.sample_test import Sample, sample_test
from model.quality.score_test import score_test
from model.quality.simulate import simulate_requests, simulate_texts

BETAS = (1.05, 1.1, 1.15, 1.2, 1.3, 1.5, 2.0, 3.0)
LOGPROB_BUDGETS = ((8, 2), (16, 2), (48, 2), (48, 4))
TEXT_BUDGETS = ((8, 4), (16, 4), (48, 4))
TOKENS, WORDS = 64, 32


def _least(power: dict[float, float]) -> str:
    found = [b for b in BETAS if power.get(b, 0.0) >= 0.8]
    return f"p^{found[0]:g}" if found else f"none up to p^{BETAS[-1]:g}"


def logprob_row(prompts: int, repeats: int, runs: int) -> str:
    def run(beta: float, seed: int):
        return score_test(simulate_requests(np.random.default_rng(seed), prompts, repeats, TOKENS, beta))
    exact = [run(1.0, s) for s in range(runs)]
    alarms = np.mean([r.p_value < 0.05 for r in exact])
    stated = np.median([r.detectable_beta or np.inf for r in exact])
    power = {}
    for beta in BETAS:
        power[beta] = float(np.mean([run(beta, 10_000 + s).p_value < 0.05 for s in range(runs)]))
        if power[beta] >= 0.8:
            break
    tokens = 2 * prompts * (repeats + 1) * TOKENS
    return (f"| logprobs | {prompts} x {repeats} | {tokens:,} | {_least(power)} | p^{stated:.2f} | {alarms:.0%} |")


def text_row(prompts: int, repeats: int, runs: int) -> str:
    def run(beta: float, seed: int):
        samples, greedy = simulate_texts(np.random.default_rng(seed), prompts, repeats, WORDS, beta)
        return sample_test([Sample(p, f, t) for p, f, t in samples], greedy, seed=seed, permutations=199)
    exact = [run(1.0, s) for s in range(runs)]
    alarms = np.mean([r.p_value < 0.05 for r in exact])
    stated = np.median([r.detectable_beta or np.inf for r in exact])
    power = {}
    for beta in (b for b in BETAS if b >= 1.2):
        power[beta] = float(np.mean([run(beta, 10_000 + s).p_value < 0.05 for s in range(runs)]))
        if power[beta] >= 0.8:
            break
    tokens = 2 * prompts * (repeats + 1) * WORDS
    shown = "none up to p^4" if not np.isfinite(stated) else f"p^{stated:.2f}"
    return f"| no logprobs | {prompts} x {repeats} | {tokens:,} words | {_least(power)} | {shown} | {alarms:.0%} |"


def main(argv: list[str]) -> None:
    runs = int(argv[0]) if argv else 40
    started = time.perf_counter()
    print(f"{runs} simulated probes per cell; rejecting at 95%\n")
    print("| test | prompts x repeats | tokens (both tiers, greedy pass included) | least beta found 80% of the time "
          "| size the test stated | false alarms at beta = 1 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for prompts, repeats in LOGPROB_BUDGETS:
        print(logprob_row(prompts, repeats, runs), flush=True)
    for prompts, repeats in TEXT_BUDGETS:
        print(text_row(prompts, repeats, max(runs // 2, 10)), flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
