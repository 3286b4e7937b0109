"""The dock's identity words: short (the dock is narrow at 1366x768) and saying whether divergences are late
(rounding) or early (lossy), not a bare share (pairs from tests/model/probe/test_identity_divergence.py)."""
from __future__ import annotations

from gui.probe.verdict_text import identity_words, verdict_html
from model.probe.analysis import analyse
from model.probe.identity import compare_outputs
from tests.model.probe.test_identity_divergence import REAL_LIKE, pairs

SHORT = 130  # characters: two lines of the dock's label at 1366x768


def test_late_divergences_are_rounding_in_the_verdict() -> None:
    report = analyse(pairs(REAL_LIKE), {"baseline_name": "standard"})
    assert ("Identity at temperature 0: 81% of 64 prompts match standard; the rest diverge late "
            "(token 40–304): rounding, not lossy.") in verdict_html(report)


def test_early_and_mixed_divergences_say_so_and_every_form_is_short() -> None:
    early = identity_words(compare_outputs(pairs({i: 1 for i in range(40)})), "standard")
    assert early.endswith("; 40 diverge within 16 tokens: lossy or another model.")
    mixed = identity_words(compare_outputs(pairs({**REAL_LIKE, 3: 2, 5: 2, 7: 2, 9: 2})), "standard")
    assert "; 4 diverge within 16 tokens: inconclusive" in mixed
    mostly = identity_words(compare_outputs(pairs({**REAL_LIKE, 3: 2})), "standard")
    assert mostly.endswith("the rest diverge mostly late (token 2–304): rounding, not lossy.")
    late = identity_words(compare_outputs(pairs(REAL_LIKE)), "a-long-tier-name")
    same = identity_words(compare_outputs(pairs({})), "standard")
    assert same == "Identity at temperature 0: 100% of 64 prompts match standard."
    assert max(len(w) for w in (early, mixed, late, mostly)) <= SHORT
