"""sample's interval on alpha: the prompt is the unit; shortened stretches stay out, as they do of alpha."""
from __future__ import annotations

import pytest

from model.acceptance import TOO_FEW, alpha_interval
from model.sampling.run import ClassResult, PromptResult, SamplingResult, attach_intervals


def _class(name: str, alpha: float) -> ClassResult:
    nan = float("nan")
    return ClassResult(name, 0, 10, 0, 0, 0, alpha, nan, nan, [], [], nan, nan, nan, nan, nan, nan)


def test_attach_intervals_by_prompt() -> None:
    r = SamplingResult("CPU", 4, 0.0, 0, 48, "d", "t")
    counts = [[4, 2, 0, 4], [1, 1, 3], [4, 4, 4, 2], [0, 0, 1], [3, 4, 2], [2, 2, 2]]
    for i, c in enumerate(counts):
        # a last stretch that drafted only 2 (end of the budget) is left out
        r.prompts.append(PromptResult("code", i, [], c + [1], [], "", [4] * len(c) + [2]))
    r.prompts.append(PromptResult("prose", 0, [], [1, 2], [], "", [4, 4]))
    r.classes = [_class("code", 0.6), _class("prose", 0.5)]
    attach_intervals(r, 0.9)
    code, prose = r.classes
    acc = [sum(c) for c in counts]
    trials = [sum(c) + sum(1 for a in c if a < 4) for c in counts]
    want = alpha_interval(acc, trials, 0.9)
    assert code.alpha_interval == pytest.approx([want.low, want.high]) and code.requests == 6
    assert code.interval_confidence == 0.9 and code.acceptance.interval == pytest.approx((want.low, want.high))
    assert prose.alpha_interval is None and prose.interval_note == TOO_FEW and prose.acceptance.method == TOO_FEW
    d = r.to_dict()
    assert d["confidence"] == 0.9 and d["classes"][0]["alpha_interval"] == pytest.approx([want.low, want.high])


def test_attach_intervals_gives_the_profile_an_interval_on_e() -> None:
    """Apply keeps a measured profile, which decides E: without E's interval beside it the comparison read
    the sampled E as exact (no speedup interval, verdicts never undecided)."""
    from model.acceptance.interval import length_interval

    r = SamplingResult("CPU", 4, 0.0, 0, 48, "d", "t")
    counts = [[4, 2, 0, 4], [1, 1, 3], [4, 4, 4, 2], [0, 0, 1], [3, 4, 2], [2, 2, 2]]
    for i, c in enumerate(counts):
        r.prompts.append(PromptResult("code", i, [], c, [], "", [4] * len(c)))
    r.classes = [_class("code", 0.6)]
    attach_intervals(r, 0.9)
    want = length_interval([sum(c) for c in counts], [len(c) for c in counts], 4, 0.9)
    assert r.classes[0].mean_acceptance_length_interval == pytest.approx([want.low, want.high])
    assert want.low < 1 + sum(map(sum, counts)) / sum(map(len, counts)) < want.high
