"""The dock's verdict words carry the caution when a material share of the steps was left out (as the CLI's text
and JSON do): tests/model/probe/test_steps_left_out.py makes the run."""
from __future__ import annotations

import numpy as np

from gui.probe.verdict_text import verdict_html
from model.probe.analysis import analyse
from tests.model.probe.test_steps_left_out import _request


def test_the_dock_says_the_share_of_steps_left_out_when_it_is_material() -> None:
    rng = np.random.default_rng(3)
    report = analyse([_request(rng, i, late_every=4) for i in range(6)])
    share = report.steps_left_out_share
    assert report.many_steps_left_out
    assert f"<b>Caution:</b> {share:.0%} of the steps read ({report.steps_left_out} of {report.steps_read}," \
        in verdict_html(report)
    steady = analyse([_request(rng, i, late_every=None) for i in range(6)])
    assert "Caution" not in verdict_html(steady)
