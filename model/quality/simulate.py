"""Seeded simulations of a sampler against the distribution it reports: the tests' and the benchmark's truth.

A "model" here is a sequence of next-token distributions (random logits over a small vocabulary, their spread
drawn per position so that some positions are nearly certain and others open, as text is); the sampler draws
from q ∝ p^beta and the report is p's top k, as a stream's logprobs are. beta = 1 is a lossless tier.
"""
from __future__ import annotations

import numpy as np

from model.quality.score_test import ReportedRequest, TokenReport

VOCAB = 64


def _distribution(rng: np.random.Generator, vocab: int) -> np.ndarray:
    scale = rng.choice([0.5, 2.0, 6.0], p=[0.4, 0.35, 0.25])  # open, middling, nearly certain positions
    z = rng.standard_normal(vocab) * scale
    p = np.exp(z - z.max())
    return p / p.sum()


def _distributions(rng: np.random.Generator, n: int, vocab: int) -> np.ndarray:
    """n next-token distributions at once, as _distribution draws them one by one."""
    scale = rng.choice([0.5, 2.0, 6.0], p=[0.4, 0.35, 0.25], size=n)
    z = rng.standard_normal((n, vocab)) * scale[:, None]
    p = np.exp(z - z.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def draw_tokens(rng: np.random.Generator, p: np.ndarray, beta: float, top_k: int) -> list[TokenReport]:
    """One token per row of ``p`` drawn from q ∝ p^beta, each reported as its row's top k of p."""
    q = p ** beta
    q /= q.sum(axis=1, keepdims=True)
    cdf = np.cumsum(q, axis=1)
    token = np.minimum((cdf < rng.random(len(p))[:, None] * cdf[:, -1:]).sum(axis=1), p.shape[1] - 1)
    order = np.argsort(-p, axis=1, kind="stable")[:, :top_k]
    logp = np.log(np.take_along_axis(p, order, axis=1))
    hit = order == token[:, None]
    rank = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    return [TokenReport(tuple(map(float, row)), int(r)) for row, r in zip(logp, rank)]


def simulate_requests(rng: np.random.Generator, prompts: int, repeats: int, tokens: int, beta: float,
                      top_k: int = 5, vocab: int = VOCAB) -> list[ReportedRequest]:
    """``prompts`` x ``repeats`` requests of ``tokens`` tokens each, every position a fresh distribution."""
    out = []
    for prompt in range(prompts):
        for _ in range(repeats):
            reports = draw_tokens(rng, _distributions(rng, tokens, vocab), beta, top_k)
            out.append(ReportedRequest(prompt, tuple(reports)))
    return out


def _text_distribution(prompt: int, prefix: tuple[int, ...], vocab: int) -> np.ndarray:
    """The model's next-word distribution after ``prefix``: a fixed function of the prompt and the path so far."""
    return _distribution(np.random.default_rng([prompt, len(prefix), *prefix[-3:]]), vocab)


def simulate_texts(rng: np.random.Generator, prompts: int, repeats: int, words: int, beta: float,
                   vocab: int = VOCAB) -> tuple[list[tuple[int, bool, str]], dict[int, str]]:
    """Samples (prompt, fast, text) of both tiers, the baseline exact and the fast one from q ∝ p^beta, and each
    prompt's greedy continuation: the no-logprob test's truth."""
    def run(prompt: int, b: float | None) -> str:
        prefix: tuple[int, ...] = ()
        for _ in range(words):
            p = _text_distribution(prompt, prefix, vocab)
            if b is None:
                token = int(p.argmax())
            else:
                q = p ** b
                token = int(rng.choice(vocab, p=q / q.sum()))
            prefix += (token,)
        return " ".join(f"w{t}" for t in prefix)

    samples = [(prompt, fast, run(prompt, beta if fast else 1.0))
               for prompt in range(prompts) for _ in range(repeats) for fast in (True, False)]
    return samples, {prompt: run(prompt, None) for prompt in range(prompts)}
