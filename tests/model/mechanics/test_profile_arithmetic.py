"""Acceptance profiles (docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths): hand-worked values, the
flat profile as the i.i.d. model."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.mechanics import arithmetic as ar
from model.mechanics import roofline as rf


@given(st.floats(0.0, 1.0, allow_nan=False), st.integers(1, 64), st.floats(0.0, 1.0), st.floats(0.5, 3.0))
def test_flat_profile_is_the_iid_model(alpha, k, c, v):
    flat = np.full(k, alpha)
    assert float(ar.profile_tokens(flat)) == pytest.approx(float(ar.expected_tokens(alpha, k)), rel=1e-12, abs=1e-12)
    for kk in (1, k // 2 + 1, k):
        assert float(ar.profile_tokens(flat, kk)) == pytest.approx(float(ar.expected_tokens(alpha, kk)), rel=1e-12)
    best_k, best_s, extrapolated = ar.profile_optimal_k(flat, c, v, k)
    iid_k, iid_s = ar.optimal_k(alpha, c, v, k_max=k)
    assert float(best_s) == pytest.approx(float(iid_s), rel=1e-12)
    assert not bool(extrapolated)


def test_vllm_ngram_example():
    # vLLM's per-position counters over drafts are cumulative: 0.77, 0.45, 0.24 at K = 3
    cumulative = np.array([0.77, 0.45, 0.24])
    conditional = ar.cumulative_to_conditional(cumulative)
    assert conditional == pytest.approx([0.77, 0.45 / 0.77, 0.24 / 0.45], rel=1e-15)
    assert conditional[1] == pytest.approx(0.5844155844155844) and conditional[2] == pytest.approx(0.5333333333333333)
    assert float(ar.profile_tokens(conditional)) == pytest.approx(2.46, rel=1e-14)  # 1 + 0.77 + 0.45 + 0.24
    assert ar.conditional_to_cumulative(conditional) == pytest.approx(cumulative, rel=1e-15)
    # at K = 1 and 2 only the first positions count
    assert ar.profile_tokens(conditional, [1, 2, 3]) == pytest.approx([1.77, 2.22, 2.46])


def test_cumulative_to_conditional_where_no_stretch_got_that_far():
    p = ar.cumulative_to_conditional([0.5, 0.0, 0.0])
    assert p[0] == 0.5 and p[1] == 0.0 and np.isnan(p[2])


def test_extension_rules_by_hand():
    held, beyond = ar.extend_profile([0.8, 0.6], 4, "hold")
    assert held == pytest.approx([0.8, 0.6, 0.6, 0.6]) and beyond.tolist() == [False, False, True, True]
    # two points fit log p exactly: d = 0.4 / 0.8, carried on from the last measured rate
    geo, beyond = ar.extend_profile([0.8, 0.4], 4, "geometric")
    assert geo == pytest.approx([0.8, 0.4, 0.2, 0.1], rel=1e-14) and beyond.tolist() == [False, False, True, True]
    # three points on a line in log p (ratio 0.9): the same ratio goes on
    geo3, _ = ar.extend_profile([0.9, 0.81, 0.729], 5)
    assert geo3 == pytest.approx([0.9, 0.81, 0.729, 0.6561, 0.59049], rel=1e-12)
    # a rising profile is never extrapolated upwards, and one position is held
    assert ar.extend_profile([0.5, 0.7], 3)[0] == pytest.approx([0.5, 0.7, 0.7])
    assert ar.extend_profile([0.6], 3)[0] == pytest.approx([0.6, 0.6, 0.6])
    # fewer positions asked than measured: cut, nothing extrapolated
    cut, beyond = ar.extend_profile([0.9, 0.8, 0.7], 2)
    assert cut == pytest.approx([0.9, 0.8]) and not beyond.any()


def test_extension_of_a_stack_padded_with_nan():
    stack = np.array([[0.8, 0.4, np.nan], [0.9, 0.9, 0.9]])
    out, beyond = ar.extend_profile(stack, 4, "geometric")
    assert out[0] == pytest.approx([0.8, 0.4, 0.2, 0.1]) and out[1] == pytest.approx([0.9] * 4)
    assert beyond.tolist() == [[False, False, True, True], [False, False, False, True]]
    with pytest.raises(ValueError):
        ar.extend_profile([np.nan, 0.5], 3)
    with pytest.raises(ValueError):
        ar.extend_profile([0.5], 3, "linear")


def test_optimal_k_over_a_falling_profile():
    # E(k) = 1, 1.9, 2.62, 3.124, 3.4264 for k = 0..4; c = 0.2, v = 1: S = 1.583, 1.871, 1.953, 1.904
    p = np.array([0.9, 0.8, 0.7, 0.6])
    best_k, best_s, extrapolated = ar.profile_optimal_k(p, 0.2, 1.0, 4)
    assert int(best_k) == 3 and float(best_s) == pytest.approx(3.124 / 1.6) and not bool(extrapolated)
    # a cheaper draft wants more positions than were measured: that K is labelled extrapolated
    best_k, best_s, extrapolated = ar.profile_optimal_k([0.95, 0.95], 0.01, 1.0, 8, rule="hold")
    assert int(best_k) == 8 and bool(extrapolated)
    assert float(best_s) == pytest.approx(float(ar.expected_tokens(0.95, 8)) / 1.08)
    # v may depend on k (a roofline verify pass)
    v_by_k = np.array([1.0, 1.0, 1.0, 2.0])
    assert int(ar.profile_optimal_k(np.full(4, 0.9), 0.0, v_by_k, 4)[0]) == 3


def test_length_at_another_k_and_break_even_length():
    e, extrapolated = ar.length_at_k(2.46, 3, [3, 5])
    assert e[0] == 2.46 and not extrapolated[0] and extrapolated[1]
    alpha = float(ar.mean_acceptance_length_to_alpha(2.46, 3).alpha)
    assert e[1] == pytest.approx(float(ar.expected_tokens(alpha, 5)), rel=1e-12)
    # E* = K c + v, and the i.i.d. break-even alpha is its translation
    assert float(ar.break_even_length(4, 0.1, 1.05)) == pytest.approx(1.45)
    be = ar.break_even(4, 0.1, 1.05)
    assert float(ar.expected_tokens(be.alpha, 4)) == pytest.approx(1.45, rel=1e-12)
    assert ar.length_kind([0.9, 1.45, 5.0, 6.0], 4).tolist() == [ar.ALWAYS, ar.ROOT, ar.NEVER, ar.NEVER]


def test_tree_verify_cost_against_a_hand_roofline():
    pair, gpu = rf.PAIRS["Llama 8B -> 70B"], rf.GPUS["H100 SXM"]
    n, depth, ctx, batch = 64, 6, 4096, 32
    c, v = rf.tree_cost_ratios(pair, gpu, n, depth, ctx, batch)
    # by hand, Llama-3.1-70B: 70.6e9 params in 16 bits, 80 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes
    weights, kv = 70.6e9 * 2, 2 * 80 * 8 * 128 * 2
    attn = 4 * 80 * 64 * 128  # 4 x layers x query heads x head size per query token per context token
    overhead = 80 * 8e-6

    def target(tokens: int) -> float:
        memory = (weights + batch * (ctx + tokens) * kv) / 3350e9
        compute = (2 * 70.6e9 * batch * tokens + attn * batch * tokens * (ctx + tokens)) / 989e12
        return max(memory, compute) + overhead

    assert float(v) == pytest.approx(target(64) / target(1), rel=1e-12)
    assert target(64) > 2 * target(1)  # 64 x 32 query tokens: compute-bound, the verify pass is far from free
    # the draft: Llama-3.1-8B over the tree's width, (64 - 1) / 6 tokens a level
    d_weights, d_kv, d_attn, d_overhead = 8.03e9 * 2, 2 * 32 * 8 * 128 * 2, 4 * 32 * 32 * 128, 32 * 8e-6
    w = 63 / 6
    draft = max((d_weights + batch * (ctx + w) * d_kv) / 3350e9,
                (2 * 8.03e9 * batch * w + d_attn * batch * w * (ctx + w)) / 989e12) + d_overhead
    assert float(c) == pytest.approx(draft / target(1), rel=1e-12)
    # a chain is the tree with N = K + 1 and depth K: the same v as cost_ratios
    _, v_chain = rf.cost_ratios(pair, gpu, 5, ctx, batch)
    _, v_tree = rf.tree_cost_ratios(pair, gpu, 6, 5, ctx, batch)
    assert float(v_tree) == pytest.approx(float(v_chain), rel=1e-14)
