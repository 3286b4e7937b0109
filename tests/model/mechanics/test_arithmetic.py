import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from model.mechanics import arithmetic as ar

# Leviathan et al. 2023, Table 1 (c = 0, v = 1): (alpha, K) -> E
LEVIATHAN = [(0.6, 2, 1.96), (0.7, 3, 2.53), (0.8, 2, 2.44), (0.8, 5, 3.69), (0.9, 2, 2.71), (0.9, 10, 6.86)]

alphas = st.floats(0.0, 1.0, allow_nan=False)
ks = st.integers(1, 32)
cs = st.floats(0.0, 2.0, allow_nan=False)
vs = st.floats(0.5, 3.0, allow_nan=False)


@pytest.mark.parametrize("alpha,k,e", LEVIATHAN)
def test_published_vectors(alpha, k, e):
    assert ar.expected_tokens(alpha, k) == pytest.approx(e, abs=0.005)
    assert ar.speedup(alpha, k, 0.0, 1.0) == pytest.approx(e, abs=0.005)


def test_vectorised_matches_elementwise():
    a = np.linspace(0, 1, 11)[:, None]
    k = np.arange(1, 9)[None, :]
    grid = ar.expected_tokens(a, k)
    assert grid.shape == (11, 8)
    for i, alpha in enumerate(a[:, 0]):
        for j, kk in enumerate(k[0]):
            assert grid[i, j] == pytest.approx(sum(alpha ** n for n in range(kk + 1)), rel=1e-12)


def test_edges():
    assert ar.expected_tokens(0.0, 5) == 1.0
    assert ar.expected_tokens(1.0, 5) == 6.0
    assert ar.expected_tokens(1 - 1e-9, 5) == pytest.approx(6.0, abs=1e-7)
    assert ar.trailer_fill(1.0, 4) == 1.0 and ar.trailer_fill(0.0, 4) == 0.0


@given(alphas, ks)
def test_bounds(alpha, k):
    e = float(ar.expected_tokens(alpha, k))
    assert 1.0 - 1e-12 <= e <= k + 1 + 1e-12
    assert float(ar.accepted_per_stretch(alpha, k)) == pytest.approx(e - 1.0)
    assert 0.0 - 1e-12 <= float(ar.trailer_fill(alpha, k)) <= 1.0 + 1e-12


@given(alphas, alphas, ks, cs, vs)
def test_monotone_in_alpha(a1, a2, k, c, v):
    lo, hi = sorted((a1, a2))
    assert ar.speedup(lo, k, c, v) <= ar.speedup(hi, k, c, v) + 1e-12


@given(alphas, ks, cs, cs, vs)
def test_monotone_in_c(alpha, k, c1, c2, v):
    lo, hi = sorted((c1, c2))
    assert ar.speedup(alpha, k, hi, v) <= ar.speedup(alpha, k, lo, v) + 1e-12


@settings(max_examples=300)
@given(ks, cs, vs)
@example(k=2, c=0.0, v=2.9999999999999996)  # root near alpha = 1: 1 - mid^(k+1) lost digits to cancellation
@example(k=16, c=(17.0 - 1.0) / 16 * (1 - 1e-9), v=1.0)
def test_break_even_cases_and_root(k, c, v):
    be = ar.break_even(k, c, v)
    cost = k * c + v
    kind = int(be.kind)
    if cost <= 1:
        assert kind == ar.ALWAYS and float(be.alpha) == 0.0
    elif cost >= k + 1:
        assert kind == ar.NEVER and np.isnan(be.alpha)
        assert ar.speedup(1.0, k, c, v) <= 1.0 + 1e-12
    else:
        assert kind == ar.ROOT and 0 < float(be.alpha) < 1
        assert ar.speedup(be.alpha, k, c, v) == pytest.approx(1.0, abs=1e-9)


def test_break_even_kind_names():
    be = ar.break_even([4, 4, 4], [0.0, 0.1, 5.0], 1.0)
    assert [be.kind_name(i) for i in range(3)] == ["always", "root", "never"]


def test_vectorised_break_even_equals_scalar_loop():
    rng = np.random.default_rng(1)
    k = rng.integers(1, 12, 500)
    c = rng.uniform(0, 0.6, 500)
    v = rng.uniform(0.8, 1.5, 500)
    vec = ar.break_even(k, c, v)
    for i in range(500):
        one = ar.break_even(int(k[i]), float(c[i]), float(v[i]))
        assert int(one.kind) == int(vec.kind[i])
        if int(one.kind) != ar.NEVER:
            assert float(one.alpha) == pytest.approx(float(vec.alpha[i]), abs=1e-12)


@given(alphas, cs, vs)
def test_optimal_k_is_the_best(alpha, c, v):
    best_k, best_s = ar.optimal_k(alpha, c, v, k_max=12)
    every = [float(ar.speedup(alpha, k, c, v)) for k in range(1, 13)]
    assert float(best_s) == pytest.approx(max(every))
    assert every[int(best_k) - 1] == pytest.approx(max(every))


@given(st.floats(0.0, 0.999, allow_nan=False), ks)
def test_conventions_round_trip(alpha, k):
    rate = ar.alpha_to_draft_acceptance_rate(alpha, k)
    length = ar.alpha_to_mean_acceptance_length(alpha, k)
    assert float(length) == pytest.approx(1 + float(rate) * k)
    back1 = ar.draft_acceptance_rate_to_alpha(rate, k)
    back2 = ar.mean_acceptance_length_to_alpha(length, k)
    if alpha > 0:
        assert float(back1.alpha) == pytest.approx(alpha, abs=1e-6)
        assert float(back2.alpha) == pytest.approx(alpha, abs=1e-6)


def test_conventions_out_of_range():
    assert int(ar.mean_acceptance_length_to_alpha(7.0, 5).kind) == ar.NEVER
    top = ar.mean_acceptance_length_to_alpha(6.0, 5)
    assert int(top.kind) == ar.ROOT and float(top.alpha) == 1.0
    assert float(ar.draft_acceptance_rate_to_alpha(1.0, 5).alpha) == 1.0


def test_histogram_estimates():
    # 3 stretches: 2 accepted of 4, 4 of 4, 0 of 4 -> alpha = 6 / (6 + 2)
    hist = [1, 0, 1, 0, 1]
    assert ar.histogram_alpha(hist) == pytest.approx(6 / 8)
    assert ar.histogram_tokens_per_stretch(hist) == pytest.approx((3 + 5 + 1) / 3)
    pos = ar.histogram_position_acceptance(hist)
    assert pos[0] == pytest.approx(2 / 3) and pos[1] == pytest.approx(1.0) and pos[2] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        ar.histogram_alpha([0, 0, 0])


def test_histogram_ml_recovers_alpha_from_iid_draws():
    rng = np.random.default_rng(7)
    alpha, k = 0.7, 5
    draws = rng.random((20000, k)) < alpha
    accepted = np.where(draws.all(axis=1), k, np.argmin(draws, axis=1))
    hist = np.bincount(accepted, minlength=k + 1)
    assert ar.histogram_alpha(hist) == pytest.approx(alpha, abs=0.01)
    assert ar.histogram_tokens_per_stretch(hist) == pytest.approx(float(ar.expected_tokens(alpha, k)), abs=0.03)
    assert np.allclose(hist / hist.sum(), ar.iid_histogram(alpha, k), atol=0.01)


@given(st.floats(1.01, 4.0), ks, st.floats(0.0, 0.3), st.floats(0.9, 1.2))
def test_implied_alpha_reproduces_claim(claim, k, c, v):
    sol = ar.implied_alpha(claim, k, c, v)
    if int(sol.kind) == ar.ROOT:
        assert float(ar.speedup(sol.alpha, k, c, v)) == pytest.approx(claim, rel=1e-9)
    elif int(sol.kind) == ar.NEVER:
        assert float(ar.speedup(1.0, k, c, v)) < claim + 1e-9


# weights are monthly token counts, never subnormal: with one (hypothesis found 5e-324)
# w / s underflows to 0 and the blend comes out infinite, a limit of floats, not of the formula
@given(st.lists(st.tuples(st.floats(0.2, 5.0), st.floats(0.0, 1e6, allow_subnormal=False)), min_size=1, max_size=8))
def test_blend_is_total_time(rows):
    s = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    if w.sum() == 0:
        return
    plain_time = w.sum()
    spec_time = (w / s).sum()
    assert float(ar.blend_speedup(s, w)) == pytest.approx(plain_time / spec_time, rel=1e-12)
    assert float(ar.blend_speedup(s, w)) <= float((s * w).sum() / w.sum()) + 1e-9  # never above the arithmetic mean


def test_flops_factor():
    # all accepted with a free draft: k + 1 target positions computed for k + 1 tokens
    assert ar.flops_factor(1.0, 4, 0.0) == pytest.approx(1.0)
    assert ar.flops_factor(0.0, 4, 0.1) == pytest.approx(4 * 0.1 + 5)


def test_solver_inverts_expected_tokens_over_every_k():
    # every K the app allows, alphas spread from 1e-12 to within 1e-13 of 1: the solver's
    # Newton start and stopping rule must hold at both ends, not only in the middle
    rng = np.random.default_rng(5)
    k = rng.integers(1, 65, 20000).astype(float)
    alpha = np.concatenate([10 ** rng.uniform(-12, 0, 10000), 1 - 10 ** rng.uniform(-13, -0.3, 10000)])
    sol = ar.solve_alpha_for_tokens(ar.expected_tokens(alpha, k), k)
    assert (sol.kind == ar.ROOT).all()
    assert np.abs(sol.alpha - alpha).max() < 1e-11
    assert ((sol.alpha > 0) & (sol.alpha < 1)).all()
