"""serve-demo at a temperature above 0: the demo pair sampling, its tokens carrying the target's log-probabilities.

demo-standard draws each token from the target at the request's temperature T; demo-fast runs the exact
speculative rule (Leviathan et al.: its tokens are distributed as the target's at T), or with `--lenient X` draws
from a sharpened target, q proportional to p_T^X, which is the target at temperature T / X: what a lenient acceptance
rule that keeps the draft's likely tokens does (docs/design/quality.md). Either way the stream reports p_T, the
model the tier is sold as, so a client can test the draws against it. Both return the argmax at temperature 0,
where greedy identity cannot tell them apart. The request's seed (and the prompt) seed the draws, so a probe
run repeats exactly.
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from commands.demo_steps import DEFAULT_LENIENT, fit, speculative_steps, target_steps
from model.probe.demo_server import Generation, LoggedToken, SampleGenerate, Sampling, Step
from model.sampling.token_logprobs import reported_logprobs

MAX_LENIENT = 10.0


def _rng(sampling: Sampling, text: str) -> np.random.Generator:
    return np.random.default_rng([sampling.seed % 2**63, zlib.crc32(text.encode("utf-8", "replace"))])


def _logged(steps: list[Step], target: Any, prompt_ids: list[int], output_ids: list[int],
            sampling: Sampling) -> list[Step]:
    """The steps with each token carrying the target's log-probabilities at the request's temperature."""
    emitted = sum(len(s.tokens) for s in steps)
    entries = reported_logprobs(target, prompt_ids, output_ids[:emitted], sampling.temperature,
                                sampling.top_logprobs)
    out, at = [], 0
    for step in steps:
        tokens = []
        for text in step.tokens:
            entry = entries[at]
            top = tuple((target.decode([i]), lp) for i, lp in entry.top)
            tokens.append(LoggedToken(text, entry.logprob, top) if text else text)
            at += 1
        out.append(Step(tuple(tokens), step.drafted, step.accepted, step.seconds))
    return out


def sampled_speculative(draft: Any, target: Any, k: int, silent: bool = False,
                        lenient: float = 1.0, end_token: bool = False) -> SampleGenerate:
    """demo-fast at a temperature: exact speculative sampling at T / lenient (lenient 1: lossless)."""
    from model.sampling.speculative import speculative_generate

    def sample(text: str, max_tokens: int, sampling: Sampling) -> Generation:
        ids, sent = fit(target, draft, text, max_tokens, k)
        run = speculative_generate(draft, target, ids, k, max_tokens, sampling.temperature / lenient,
                                   _rng(sampling, text))
        steps, end = speculative_steps(run, target, silent, end_token)
        return Generation(len(ids), _logged(steps, target, ids, run.output_ids, sampling), k,
                          "stop" if end is not None and not silent else "length", sent)
    return sample


def sampled_target(draft: Any, target: Any, silent: bool = False, lenient: float = 1.0,
                   end_token: bool = False) -> SampleGenerate:
    """Target-only at a temperature: demo-standard (lenient 1), or demo-fast in the plain style."""
    from model.sampling.speculative import target_generate

    def sample(text: str, max_tokens: int, sampling: Sampling) -> Generation:
        ids, sent = fit(target, draft, text, max_tokens, 0)
        run = target_generate(target, ids, max_tokens, sampling.temperature / lenient, _rng(sampling, text),
                              stop_ids=frozenset() if silent else target.eos_ids)
        steps, stopped = target_steps(run, target, silent, end_token)
        return Generation(len(ids), _logged(steps, target, ids, run.output_ids, sampling), 0,
                          "stop" if stopped else "length", sent)
    return sample


def check_lenient(value: float) -> float:
    """--lenient's strength, refused outside (0, MAX_LENIENT] in one line."""
    if not (isinstance(value, (int, float)) and np.isfinite(value) and 0 < value <= MAX_LENIENT):
        raise ValueError(f"--lenient {str(value)[:30]}: expected a strength above 0 and at most {MAX_LENIENT:g} "
                         f"(1 samples exactly; {DEFAULT_LENIENT:g}, the default, sharpens as q ∝ p^{DEFAULT_LENIENT:g})")
    return float(value)
