"""The log-probabilities a server reports for the tokens it emitted: the chosen token's and the top ones.

A stream's `logprobs` say which distribution each token was drawn from; the probe's quality test
(docs/design/quality.md) checks the draws against them. Here they are the target's at the request's
temperature, from one forward pass over the prompt and the output: whatever rule picked the tokens (plain
sampling, exact speculative sampling, or a lenient one), what is reported is the model the tier claims to serve.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.sampling.onnx_lm import OnnxCausalLM


@dataclass(frozen=True)
class TokenLogprob:
    logprob: float  # the chosen token's, natural log, at the temperature
    top: tuple[tuple[int, float], ...]  # the most likely token ids and their log-probabilities, most likely first


def log_softmax(logits: np.ndarray, temperature: float) -> np.ndarray:
    """log softmax(logits / temperature) in float64, per row."""
    z = logits.astype(np.float64) / temperature
    z -= z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def reported_logprobs(target: OnnxCausalLM, prompt_ids: list[int], output_ids: list[int], temperature: float,
                      top_n: int) -> list[TokenLogprob]:
    """Each output token's log-probability under the target at ``temperature`` (> 0), with the ``top_n`` most
    likely tokens at its position."""
    if not output_ids:
        return []
    if temperature <= 0:
        raise ValueError("log-probabilities at temperature 0 are not a distribution; ask at a temperature above 0")
    cache = target.new_cache()
    rows = target.step(cache, list(prompt_ids) + list(output_ids[:-1]))[len(prompt_ids) - 1:]
    logp = log_softmax(rows, temperature)
    out = []
    for row, token in zip(logp, output_ids):
        best = np.argsort(-row, kind="stable")[:top_n]
        out.append(TokenLogprob(float(row[token]), tuple((int(i), float(row[i])) for i in best)))
    return out
