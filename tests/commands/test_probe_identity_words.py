"""The CLI's identity line and `probe --json` say where outputs diverge and what that supports, not a bare
share an analyst reads as a lossy tier (pairs from tests/model/probe/test_identity_divergence.py)."""
from __future__ import annotations

import json

from commands.probe import format_report
from model.probe.analysis import analyse
from tests.model.probe.test_identity_divergence import REAL_LIKE, pairs


def test_late_divergences_read_as_rounding_in_the_text_and_the_json() -> None:
    report = analyse(pairs(REAL_LIKE), {"baseline_name": "standard"})
    line = next(x for x in format_report(report).splitlines() if x.startswith("identity at temperature 0"))
    assert "52 of 64 prompts identical to the baseline (81%)" in line
    assert "the 12 others first diverge at token 40–304 (median 172), after 43% of the baseline's output" in line
    assert "not evidence of a lossy tier (none within the first 16 tokens)" in line
    data = json.loads(report.to_json())["identity"]
    assert data["share"] == 52 / 64 and len(data["divergences"]) == 12  # the fields it had stay
    assert data["judgement"] == "late" and data["first_divergence"]["min"] == 40
    assert data["judgement_words"] in line


def test_early_divergences_read_as_lossy_in_the_text() -> None:
    report = analyse(pairs({i: 1 for i in range(40)}), {"baseline_name": "standard"})
    text = format_report(report)
    assert "diverges within the first 16 tokens on 40 of 64 prompts: lossy acceptance or a different model" in text
