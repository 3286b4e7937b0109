"""The demo pair's runs as the demo server streams them: each run's verify steps and their tokens' text.

serve-demo's greedy generators (commands/serve_demo.py) and its sampled ones (commands/serve_demo_sampling.py) share
these; a module of its own so neither imports the other.
"""
from __future__ import annotations

from typing import Any

from model.probe.demo_server import Step

DEFAULT_LENIENT = 1.25  # --lenient bare: q ∝ p^1.25, the strength the documented example finds


def _token_texts(target: Any, ids: list[int]) -> tuple[str, ...]:
    stop = target.eos_ids
    return tuple(target.decode([t]) for t in ids if t not in stop)


def _silent_texts(target: Any, ids: list[int], silent_from: int | None, offset: int) -> tuple[str, ...]:
    """Each token's text, "" for the end-of-text token and every token after it (silent, as on llama.cpp)."""
    return tuple("" if silent_from is not None and offset + i >= silent_from else target.decode([t])
                 for i, t in enumerate(ids))


def fit(target: Any, draft: Any, text: str, max_tokens: int, k: int) -> tuple[list[int], int]:
    """The prompt's end that fits the pair's context, and its tokens as sent (the simulated prefill's)."""
    ids = target.encode(text) or target.encode(" ")
    room = min(m.max_context or 10**9 for m in (draft, target)) - max_tokens - k - 2
    return ids[-max(room, 1):], len(ids)


def speculative_steps(run: Any, target: Any, silent: bool, end_token: bool = False) -> tuple[list[Step], int | None]:
    """The run's verify steps as the server streams them, and where the end of text is (None: not reached).

    ``silent``: the end of text and what follows it are silent tokens (a run on to the budget); ``end_token``: the
    run stops at its end of text, which is a silent token of the last step, as llama.cpp's server does. That server
    accepts no draft past an end token: a drafted end with drafts after it is taken as the target's own token
    (its step accepts the drafts before it), and a last draft that is the end is accepted, the bonus dropped
    (docs/reference/engine-formats.md#what-a-real-llama-server-sends)."""
    out = run.output_ids
    end = next((i for i, t in enumerate(out) if t in target.eos_ids), None)
    steps: list[Step] = []
    pos = d_at = 0
    for a, d, verify in zip(run.accepted_counts, run.drafted_counts, run.verify_seconds):
        n = min(a + 1, len(out) - pos)
        seconds = sum(run.draft_step_seconds[d_at:d_at + d]) + verify
        d_at += d
        if n <= 0 or (not silent and end is not None and pos > end):
            break
        if silent:
            texts = _silent_texts(target, out[pos:pos + n], end, pos)
        elif end_token and end is not None and end < pos + n:
            j = end - pos  # the end's place in the step: a draft (j < a) or the target's own token (j = a)
            texts = _silent_texts(target, out[pos:end + 1], end, pos)
            if j < a and j + 1 < d:
                a = j
        else:
            texts = _token_texts(target, out[pos:min(pos + n, end if end is not None else pos + n)])
        steps.append(Step(texts, d, a, seconds))
        pos += n
    return steps, end


def target_steps(run: Any, target: Any, silent: bool, end_token: bool = False) -> tuple[list[Step], bool]:
    """One step per token, and whether the run stopped at the end of text (``end_token``: sent as a silent token)."""
    out = run.output_ids
    end = next((i for i, t in enumerate(out) if t in target.eos_ids), None) if silent or end_token else None
    steps = [Step(_silent_texts(target, [t], end, i) if silent or end_token else _token_texts(target, [t]), 0, 0, s)
             for i, (t, s) in enumerate(zip(out, run.step_seconds))]
    return steps, not silent and bool(out) and out[-1] in target.eos_ids
