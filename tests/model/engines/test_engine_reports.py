"""Engine-reported speculation counts: each engine's definition read right, and a known alpha comes back."""
from __future__ import annotations

import pytest

from model.mechanics import arithmetic as ar
from model.engines.reports import ReportError, SpecCounts, combine, with_k
from model.engines.responses import speculation_from_response

N = 200_000  # verify steps in a made-up run: large, so rounding to whole counts costs < 1e-4 in alpha


def _iid_counts(alpha: float, k: int) -> tuple[list[int], int, int]:
    """Histogram (steps by accepted drafts), draft tokens and accepted tokens of N steps under i.i.d. alpha."""
    hist = [round(N * p) for p in ar.iid_histogram(alpha, k)]
    steps = sum(hist)
    return hist, steps * k, sum(j * n for j, n in enumerate(hist))


@pytest.mark.parametrize(("alpha", "k"), [(0.6, 2), (0.8, 5), (0.45, 4), (0.93, 7)])
def test_vllm_request_metrics_round_trip(alpha: float, k: int) -> None:
    hist, drafted, accepted = _iid_counts(alpha, k)
    steps = sum(hist)
    body = {"choices": [], "metrics": {"speculative_decoding": {
        "mean_acceptance_length": 1 + accepted / steps, "draft_acceptance_rate": accepted / drafted,
        "acceptance_histogram": hist, "acceptance_histogram_by_draft_length": {str(k): hist},
        "num_spec_steps": steps, "num_accepted_draft_tokens": accepted, "num_draft_tokens": drafted,
        "num_spec_tokens": k}}}
    counts = speculation_from_response(body)
    assert counts is not None and counts.engine == "vllm" and counts.k == k
    assert counts.alpha == pytest.approx(alpha, abs=1e-4)
    assert counts.draft_acceptance_rate == pytest.approx(float(ar.trailer_fill(alpha, k)), abs=1e-4)
    assert counts.mean_acceptance_length == pytest.approx(float(ar.expected_tokens(alpha, k)), abs=1e-3)
    assert counts.per_position_conditional == pytest.approx([alpha] * k, abs=1e-3)


@pytest.mark.parametrize("names", [
    ("spec_num_correct_drafts", "spec_num_proposed_drafts", "spec_correct_drafts_histogram"),
    ("spec_accepted_drafts", "spec_proposed_drafts", "spec_accept_histogram"),
    ("spec_accept_token_num", "spec_draft_token_num", "spec_accept_histogram"),
])
def test_sglang_meta_info_of_each_release_round_trips(names: tuple[str, str, str]) -> None:
    alpha, k = 0.7, 3
    hist, drafted, accepted = _iid_counts(alpha, k)
    steps = sum(hist)
    meta = {"completion_tokens": accepted + steps, "spec_verify_ct": steps, names[0]: accepted, names[1]: drafted,
            names[2]: hist, "spec_accept_length": (accepted + steps) / steps, "spec_accept_rate": accepted / drafted}
    counts = speculation_from_response({"text": "x", "meta_info": meta})
    assert counts is not None and counts.engine == "sglang"
    assert counts.k == k  # proposed drafts / verify steps
    assert counts.alpha == pytest.approx(alpha, abs=1e-4)
    assert counts.mean_acceptance_length == pytest.approx(meta["spec_accept_length"])  # bonus token counted in both


def test_sglang_histogram_grown_only_as_far_as_needed_is_padded_to_k() -> None:
    meta = {"spec_verify_ct": 10, "spec_num_correct_drafts": 5, "spec_num_proposed_drafts": 40,
            "spec_correct_drafts_histogram": [6, 3, 1]}
    counts = speculation_from_response({"meta_info": meta})
    assert counts is not None and counts.k == 4 and counts.histogram == (6, 3, 1, 0, 0)


def test_sglang_proposed_not_a_multiple_of_steps_is_refused() -> None:
    with pytest.raises(ReportError, match="spec_num_proposed_drafts"):
        speculation_from_response({"meta_info": {"spec_verify_ct": 3, "spec_num_correct_drafts": 1,
                                                 "spec_num_proposed_drafts": 10}})


@pytest.mark.parametrize(("outer", "alpha", "k"), [("request_perf_metrics", 0.75, 3), ("perf_metrics", 0.55, 5)])
def test_trtllm_needs_k_then_round_trips(outer: str, alpha: float, k: int) -> None:
    _, drafted, accepted = _iid_counts(alpha, k)
    body = {outer: {"timing_metrics": {}, "speculative_decoding": {
        "acceptance_rate": accepted / drafted, "total_accepted_draft_tokens": accepted, "total_draft_tokens": drafted}}}
    counts = speculation_from_response(body)
    assert counts is not None and counts.engine == "trtllm" and counts.alpha is None  # no K, no alpha
    assert counts.draft_acceptance_rate == pytest.approx(accepted / drafted)
    assert with_k(counts, k).alpha == pytest.approx(alpha, abs=1e-4)


def test_llamacpp_timings_round_trip_with_k() -> None:
    alpha, k = 0.66, 8
    _, drafted, accepted = _iid_counts(alpha, k)
    counts = speculation_from_response({"content": "...", "timings": {"predicted_n": 900, "draft_n": drafted,
                                                                      "draft_n_accepted": accepted}})
    assert counts is not None and counts.engine == "llamacpp"
    assert with_k(counts, k).alpha == pytest.approx(alpha, abs=1e-4)


def test_fireworks_header_is_cumulative_per_position() -> None:
    alpha, k = 0.8, 4
    header = ",".join(f"{i}:{round(N * alpha ** i)}/{N}" for i in range(1, k + 1))
    counts = speculation_from_response({"choices": []}, {"Fireworks-Speculation-Acceptance": header})
    assert counts is not None and counts.engine == "fireworks" and counts.k == k
    assert counts.alpha == pytest.approx(alpha, abs=1e-4)
    assert counts.per_position_conditional == pytest.approx([alpha] * k, abs=1e-3)


def test_predicted_outputs_are_labelled_and_give_no_alpha() -> None:
    body = {"usage": {"completion_tokens": 50, "completion_tokens_details": {
        "accepted_prediction_tokens": 30, "rejected_prediction_tokens": 10}}}
    counts = speculation_from_response(body)
    assert counts is not None and counts.predicted_outputs and "Predicted Outputs" in counts.convention_note
    assert counts.draft_acceptance_rate == pytest.approx(0.75)
    assert with_k(counts, 4).alpha is None and counts.mean_acceptance_length is None


def test_zero_prediction_tokens_and_plain_responses_report_nothing() -> None:
    zeros = {"usage": {"completion_tokens_details": {"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}}
    assert speculation_from_response(zeros) is None
    assert speculation_from_response({"choices": [{"text": "hi"}]}, {"content-type": "application/json"}) is None


@pytest.mark.parametrize(("body", "field"), [
    ({"metrics": {"speculative_decoding": {"num_spec_steps": -1}}}, "num_spec_steps"),
    ({"metrics": {"speculative_decoding": {"num_spec_steps": 3, "acceptance_histogram": "3,1"}}}, "acceptance_histogram"),
    ({"timings": {"draft_n": "12"}}, "timings.draft_n"),
    ({"meta_info": {"spec_verify_ct": True}}, "spec_verify_ct"),
])
def test_an_unreadable_field_is_named(body: dict, field: str) -> None:
    with pytest.raises(ReportError, match=field):
        speculation_from_response(body)


def test_per_position_counts_rebuild_the_histogram_and_show_a_falling_stretch() -> None:
    # conditional acceptance 0.9, 0.8, 0.6: not i.i.d.
    steps, conditional = 1000.0, (0.9, 0.8, 0.6)
    pos, reached = [], steps
    for c in conditional:
        reached *= c
        pos.append(reached)
    counts = SpecCounts(engine="vllm", k=3, drafts=steps, draft_tokens=3 * steps, accepted_tokens=sum(pos),
                        per_position_accepted=tuple(pos))
    assert counts.per_position_conditional == pytest.approx(conditional)
    hist = counts.stretch_histogram
    assert hist is not None and sum(hist) == pytest.approx(steps)
    assert counts.alpha == pytest.approx(ar.histogram_alpha(hist))
    # E from the counts is what the i.i.d. alpha cannot reproduce; the E-matched alpha does
    assert float(ar.expected_tokens(counts.alpha_e_matched, 3)) == pytest.approx(counts.mean_acceptance_length)
    assert float(ar.expected_tokens(counts.alpha, 3)) != pytest.approx(counts.mean_acceptance_length, abs=1e-3)


def test_combine_adds_counts_and_refuses_mixed_k() -> None:
    a = SpecCounts(engine="vllm", k=3, drafts=10, draft_tokens=30, accepted_tokens=12, histogram=(2, 3, 3, 2))
    b = SpecCounts(engine="vllm", k=3, drafts=5, draft_tokens=15, accepted_tokens=4, histogram=(2, 2, 0, 1))
    total = combine([a, b])
    assert (total.drafts, total.draft_tokens, total.accepted_tokens, total.histogram) == (15, 45, 16, (4, 5, 3, 3))
    with pytest.raises(ReportError, match="disagree on K"):
        combine([a, SpecCounts(engine="vllm", k=4, drafts=1)])


def test_given_k_that_disagrees_with_the_source_is_refused() -> None:
    counts = SpecCounts(engine="vllm", drafts=10, per_position_accepted=(8, 5, 2))
    with pytest.raises(ReportError, match="3 draft positions"):
        with_k(counts, 4)
    assert with_k(counts, 3).alpha is not None


def test_a_length_above_k_plus_one_gives_no_alpha() -> None:
    counts = SpecCounts(engine="trtllm", k=2, drafts=10, accepted_tokens=40)
    assert counts.mean_acceptance_length == 5.0 and counts.alpha is None and counts.alpha_e_matched is None


def test_vllm_records_with_the_counter_names_read_the_same() -> None:
    alpha, k = 0.7, 3
    hist, drafted, accepted = _iid_counts(alpha, k)
    pos = [sum(hist[i:]) for i in range(1, k + 1)]
    counts = speculation_from_response({"metrics": {"speculative_decoding": {
        "num_drafts": sum(hist), "num_draft_tokens": drafted, "num_accepted_tokens": accepted,
        "num_accepted_tokens_per_pos": pos}}})
    assert counts is not None and counts.k == k and counts.steps == sum(hist)
    assert counts.stretch_histogram == pytest.approx(hist)
    assert counts.alpha == pytest.approx(alpha, abs=1e-4)


def test_k_bound_of_the_count_checks_is_the_validators() -> None:
    from model.engines.spec_checks import MAX_K
    from model.workbook.validation import K_LIMITS
    assert MAX_K == K_LIMITS[1]


# --- drafts cut short: a step that accepted all of a short draft rejected nothing ---------

def test_a_draft_cut_short_and_wholly_accepted_is_no_rejection() -> None:
    # the real llama.cpp server's first request (-lv 4, K = 4): 18 accepted of 18 drafted over 5 verify steps, per
    # position 1.000, 1.000, 0.800, 0.800: steps by accepted 0, 0, 1, 0, 4, and the one that accepted 2 drafted 2
    # (the last, cut to max_tokens - 1). Counting it a rejection gave 18 / 19 = 0.947; nothing was rejected: 1.0
    c = SpecCounts(engine="llamacpp", k=4, drafts=5, draft_tokens=18, accepted_tokens=18, per_position_accepted=(5, 5, 4, 4))
    assert c.stretch_histogram == (0, 0, 1, 0, 4)
    assert ar.histogram_alpha(c.stretch_histogram) == pytest.approx(18 / 19)  # the old reading
    assert c.rejection_range == (0.0, 0.0) and c.truncation_known
    assert c.alpha == 1.0 and c.alpha_range == (1.0, 1.0)


def test_where_the_counts_cannot_place_a_short_draft_alpha_takes_the_low_end_and_says_the_range() -> None:
    # K = 4, 10 steps by accepted 1, 1, 2, 1, 5 (28 accepted), 38 drafted: 2 slots never drafted, 10 unaccepted.
    # Most rejections: all 5 short steps (10 unaccepted allow 5). Fewest: the 2 cut slots cover the step that
    # accepted 3 (a draft of 3, one slot) but not one that accepted 2 (two slots, one left): 4. alpha 28/33 to 28/32
    c = SpecCounts(engine="vllm", k=4, drafts=10, draft_tokens=38, accepted_tokens=28, histogram=(1, 1, 2, 1, 5))
    assert c.rejection_range == (4.0, 5.0) and not c.truncation_known
    assert c.alpha_range == pytest.approx((28 / 33, 28 / 32))
    assert c.alpha == pytest.approx(28 / 33) and c.alpha_trials == (28.0, 33.0)
    full = SpecCounts(engine="vllm", k=4, drafts=10, draft_tokens=40, accepted_tokens=28, histogram=(1, 1, 2, 1, 5))
    assert full.truncation_known and full.alpha == pytest.approx(ar.histogram_alpha([1, 1, 2, 1, 5]))  # no slot cut
    blind = SpecCounts(engine="fireworks", k=4, drafts=10, accepted_tokens=28, per_position_accepted=(9, 8, 6, 5))
    assert not blind.truncation_known and blind.rejection_range == (5.0, 5.0)  # no draft tokens: cannot tell


def test_vllm_histogram_by_draft_length_tells_short_drafts_from_rejections() -> None:
    # docs/features/speculative_decoding/acceptance_metrics.md: row d counts steps that accepted j of d drafts.
    # K = 4: seven full drafts (one accepted 0, six all 4) and one cut to 2 drafts, both accepted: 26 accepted,
    # 1 rejection: alpha = 26 / 27 (the full-draft row alone gave 24 / 25; the overall histogram, 26 / 28)
    spec = {"num_spec_tokens": 4, "num_spec_steps": 8, "num_draft_tokens": 30, "num_accepted_draft_tokens": 26,
            "acceptance_histogram": [1, 0, 1, 0, 6],
            "acceptance_histogram_by_draft_length": {"4": [1, 0, 0, 0, 6], "2": [0, 0, 1]}}
    c = speculation_from_response({"metrics": {"speculative_decoding": spec}})
    assert c is not None and c.rejections == 1 and c.truncation_known
    assert c.alpha == pytest.approx(26 / 27)
    spec["acceptance_histogram_by_draft_length"] = {"4": [1, 0, 0, 0, 6], "2": [0, 1, 0]}  # the short one rejected
    spec["num_accepted_draft_tokens"], spec["acceptance_histogram"] = 25, [1, 1, 0, 0, 6]
    c = speculation_from_response({"metrics": {"speculative_decoding": spec}})
    assert c is not None and c.alpha == pytest.approx(25 / 27)
    # requests added up keep the counted rejections; a bad row is named
    both = combine([c, c])
    assert both.rejections == 4 and both.alpha == pytest.approx(50 / 54)
    spec["acceptance_histogram_by_draft_length"] = {"2": [0, 1, 0, 5]}
    with pytest.raises(ReportError, match=r"by_draft_length\[2\]"):
        speculation_from_response({"metrics": {"speculative_decoding": spec}})


def test_requests_added_up_keep_each_requests_own_range() -> None:
    # the 18-of-18 request (no rejection) with one whose drafts were all K long and rejected twice in 3 steps:
    # each places its short steps itself, so 0 + 2 rejections, not the 3 short steps of the sums
    short = SpecCounts(engine="llamacpp", k=4, drafts=5, draft_tokens=18, accepted_tokens=18, per_position_accepted=(5, 5, 4, 4))
    full = SpecCounts(engine="llamacpp", k=4, drafts=3, draft_tokens=12, accepted_tokens=6, per_position_accepted=(2, 2, 1, 1))
    both = combine([short, full])
    assert full.rejection_range == (2.0, 2.0) and both.rejection_range == (2.0, 2.0)
    assert both.alpha == pytest.approx(24 / 26) and both.truncation_known


def test_k_at_least_refuses_a_smaller_k_and_pads_the_positions() -> None:
    c = SpecCounts(engine="llamacpp", drafts=10, draft_tokens=30, accepted_tokens=9, per_position_accepted=(6, 3),
                   k_at_least=3)
    with pytest.raises(ReportError, match="at least 3"):
        with_k(c, 2)
    four = with_k(c, 4)
    assert four.per_position_accepted == (6, 3, 0, 0) and four.stretch_histogram == (4, 3, 3, 0, 0)
