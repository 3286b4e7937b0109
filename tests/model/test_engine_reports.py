"""Engine-reported speculation counts: each engine's definition read right, and a known alpha comes back."""
from __future__ import annotations

import pytest

from model import arithmetic as ar
from model.engine_reports import ReportError, SpecCounts, combine, speculation_from_response, with_k

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
    from model.spec_checks import MAX_K
    from model.workbook.validation import K_LIMITS
    assert MAX_K == K_LIMITS[1]
