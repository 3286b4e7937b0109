"""The two-sample permutation test (no logprobs): false alarms on equal samplers, a strong sharpening found."""
from __future__ import annotations

import numpy as np

from model.quality.sample_test import Sample, agreement, sample_test
from model.quality.simulate import simulate_texts


def _run(beta: float, seed: int):
    samples, greedy = simulate_texts(np.random.default_rng(seed), 8, 4, 16, beta)
    return sample_test([Sample(p, f, t) for p, f, t in samples], greedy, seed=seed, permutations=199)


def test_equal_samplers_raise_false_alarms_within_the_confidence():
    false_alarms = sum(_run(1.0, seed).p_value < 0.05 for seed in range(40))
    assert false_alarms <= 4, false_alarms  # 5% of 40 is 2


def test_a_strong_sharpening_is_found():
    found = [_run(3.0, seed) for seed in range(6)]
    assert sum(r.p_value < 0.05 for r in found) >= 5
    assert all(r.differences["agreement"] > 0 and r.differences["distinct"] < 0 for r in found)


def test_agreement_counts_words_on_the_greedy_path():
    assert agreement("the cat sat down", "the cat ran away") == 2 / 4
    assert agreement("x", None) != agreement("x", None)  # NaN: no greedy answer to follow
