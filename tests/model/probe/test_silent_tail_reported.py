"""llama.cpp's timings count every draft of a request, the ones after the end of its text too: a model run on to the
token budget past its end-of-text token (silent tokens: counted in the usage, sent as no text) drafts and accepts
that tail. serve-demo --style llamacpp showed creative at 36.7% reported against 24.8% timing. The reported counts
of a request that ran past its text are left out of the reported alpha; where the two readings still disagree
beyond their intervals the row and Apply say so."""
from __future__ import annotations

import pytest

from model.mechanics import arithmetic as ar
from model.acceptance import Acceptance
from model.probe.analysis import analyse
from model.probe.apply import disagreeing_sources
from model.probe.intervals import sources_disagree
from model.probe.reported import past_the_text, reported_acceptance
from tests.model.probe.test_llamacpp_reading import _llama
from tests.model.probe.test_reported_steps import ACCEPTED, REJECTED, REQUESTS

TAIL_STEPS = 6  # after the end of text: each drafts K = 4 and accepts all (the draft predicts the filler)


def _with_tail(accepted: list[int], index: int, drafted: list[int]):
    """A request whose server ran on past its text: TAIL_STEPS silent steps of 5 tokens, all in its counts."""
    r = _llama(accepted, index, silent=5 * TAIL_STEPS, drafted=drafted)
    timings = r.reported["timings"]
    timings["draft_n"] += 4 * TAIL_STEPS
    timings["draft_n_accepted"] += 4 * TAIL_STEPS
    return r


def test_a_request_whose_counts_run_past_its_text_is_left_out_of_the_reported_alpha():
    clean = [_llama(acc, i * 3 + j, drafted=dr) for i in range(2) for j, (acc, dr) in enumerate(REQUESTS)]
    tails = [_with_tail(acc, 10 + i * 3 + j, dr) for i in range(2) for j, (acc, dr) in enumerate(REQUESTS)]
    assert not any(past_the_text(r) for r in clean) and all(past_the_text(r) for r in tails)
    total, _ = reported_acceptance(clean + tails, 4)
    assert total.alpha == pytest.approx(reported_acceptance(clean, 4)[0].alpha)  # as without them
    report = analyse(clean + tails)
    (c,) = report.classes
    assert c.alpha_reported == pytest.approx(ACCEPTED / (ACCEPTED + REJECTED))
    assert any("run past the end of their text" in n for n in report.notes), report.notes
    # read with the tail, as before: the tail's 24 accepted drafts a request pull the alpha up
    inflated = (2 * ACCEPTED + 2 * (ACCEPTED + 3 * 4 * TAIL_STEPS)) / (4 * ACCEPTED + 4 * REJECTED)
    assert c.alpha_reported < inflated


def test_with_every_request_past_its_text_the_timing_alpha_is_used():
    tails = [_with_tail(acc, i * 3 + j, dr) for i in range(2) for j, (acc, dr) in enumerate(REQUESTS)]
    report = analyse(tails)
    (c,) = report.classes
    assert c.alpha_reported is None and c.alpha_source == "timing" and c.alpha_timing is not None


def test_two_readings_whose_intervals_do_not_overlap_are_said_to_disagree():
    rep = Acceptance(0.367, 0.33, 0.40, 0.95, 8)
    tim = Acceptance(0.248, 0.20, 0.29, 0.95, 8)
    words = sources_disagree(rep, tim)
    assert words and "36.7%" in words and "24.8%" in words and "95%" in words
    assert sources_disagree(rep, Acceptance(0.30, 0.25, 0.35, 0.95, 8)) is None  # overlapping: chance can do it
    assert sources_disagree(rep, Acceptance(0.248)) is None  # no interval: nothing to judge by


def test_apply_names_the_figure_it_stores_where_they_disagree():
    from tests.model.probe.test_apply import _report
    report = _report("yes", {"creative": 0.367, "code": 0.8})
    creative = report.classes[0]
    creative.alpha_source, creative.alpha_reported, creative.alpha_timing = "reported", 0.367, 0.248
    assert disagreeing_sources(report) == ""
    creative.sources_disagree = "reported 36.7% (33.0–40.0%) and timing 24.8% (20.0–29.0%) disagree"
    said = disagreeing_sources(report)
    assert "creative reported 36.7% (timing 24.8%)" in said and "code" not in said
    assert float(ar.expected_tokens(0.367, 4)) > 1  # the stored figure is the reported one, and it is named
