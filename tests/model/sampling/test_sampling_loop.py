"""The speculative loop on tiny graphs with known logits: exactness and distribution."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
from tests.onnx_tiny import log_table, write_model_folder  # noqa: E402

from model.sampling.onnx_lm import OnnxCausalLM  # noqa: E402
from model.sampling.speculative import Cancelled, speculative_generate, target_generate  # noqa: E402

V = 5


def _rows(seed: int, spread: float) -> np.ndarray:
    z = np.random.default_rng(seed).normal(0.0, spread, size=(V, V))
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


P_TARGET = _rows(1, 0.6)
P_DRAFT = _rows(2, 0.9)  # a different, sharper guess: rejections happen often


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    base = tmp_path_factory.mktemp("tiny")
    draft = OnnxCausalLM(write_model_folder(base / "draft", log_table(P_DRAFT)), "cpu")
    target = OnnxCausalLM(write_model_folder(base / "target", log_table(P_TARGET)), "cpu")
    return draft, target


@pytest.mark.parametrize("layout,fp16", [("kv", False), ("merged", False), ("plain", False), ("kv", True)])
@pytest.mark.parametrize("k", [1, 3])
def test_greedy_speculative_equals_greedy_target(tmp_path, layout, fp16, k):
    # random logits, so greedy chains wander over the vocabulary rather than sit on one token
    t_table = np.random.default_rng(5).normal(size=(V, V)).astype(np.float32)
    d_table = t_table + np.random.default_rng(6).normal(0, 0.8, size=(V, V)).astype(np.float32)
    draft = OnnxCausalLM(write_model_folder(tmp_path / "d", d_table, layout=layout, fp16=fp16), "cpu")
    target = OnnxCausalLM(write_model_folder(tmp_path / "t", t_table, layout=layout, fp16=fp16), "cpu")
    for prompt in ([0], [3, 1, 4]):
        spec = speculative_generate(draft, target, prompt, k, 20)
        plain = target_generate(target, prompt, 20)
        assert spec.output_ids == plain.output_ids
        assert len(spec.output_ids) == 20
        assert all(0 <= a <= k for a in spec.accepted_counts)


def _chi_square(samples: list[tuple[int, int]], expected_p: np.ndarray) -> tuple[float, float]:
    counts = np.zeros((V, V))
    for a, b in samples:
        counts[a, b] += 1
    expected = expected_p * len(samples)
    return float(((counts - expected) ** 2 / expected).sum()), float(expected.min())


# chi-square with 24 degrees of freedom exceeds 70 with probability about 2e-6; the runs are
# seeded, so the statistic is a fixed number and the test cannot flake
CHI2_LIMIT = 70.0


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_sampling_preserves_target_distribution(pair, temperature):
    draft, target = pair

    def tempered(p: np.ndarray) -> np.ndarray:
        z = np.log(p) / temperature
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    pt = tempered(P_TARGET)
    expected = pt[0][:, None] * pt  # P(x1 | 0) P(x2 | x1)
    runs = 3000
    spec_samples, draft_samples = [], []
    for i in range(runs):
        out = speculative_generate(draft, target, [0], 2, 2, temperature, np.random.default_rng([7, i])).output_ids
        spec_samples.append((out[0], out[1]))
        own = target_generate(draft, [0], 2, temperature, np.random.default_rng([8, i])).output_ids
        draft_samples.append((own[0], own[1]))
    stat, min_expected = _chi_square(spec_samples, expected)
    assert min_expected >= 5, "test set-up: every cell needs enough expected samples"
    assert stat < CHI2_LIMIT, f"speculative samples do not follow the target: chi2 = {stat:.1f}"
    # the same test has the power to see the draft's own, different distribution
    control, _ = _chi_square(draft_samples, expected)
    assert control > 3 * CHI2_LIMIT


def test_sampling_is_reproducible(pair):
    draft, target = pair
    a = speculative_generate(draft, target, [1, 2], 3, 15, 1.0, np.random.default_rng(42))
    b = speculative_generate(draft, target, [1, 2], 3, 15, 1.0, np.random.default_rng(42))
    c = speculative_generate(draft, target, [1, 2], 3, 15, 1.0, np.random.default_rng(43))
    assert a.output_ids == b.output_ids and a.accepted_counts == b.accepted_counts
    assert a.output_ids != c.output_ids


def test_timings_and_counts_recorded(pair):
    draft, target = pair
    run = speculative_generate(draft, target, [0], 4, 12)
    assert len(run.draft_step_seconds) == sum(run.drafted_counts)
    # K each, until the budget has room for fewer (then fewer, down to the end)
    assert run.drafted_counts[0] == 4 and all(a >= b for a, b in zip(run.drafted_counts, run.drafted_counts[1:]))
    assert len(run.verify_seconds) == len(run.accepted_counts)
    assert run.decode_seconds > 0 and all(t > 0 for t in run.verify_seconds)


def test_stop_token_ends_both_decoders_alike(pair):
    draft, target = pair
    plain = target_generate(target, [0], 30)
    stop = frozenset([plain.output_ids[3]])
    first = plain.output_ids.index(plain.output_ids[3])
    spec = speculative_generate(draft, target, [0], 3, 30, stop_ids=stop)
    assert spec.output_ids == target_generate(target, [0], 30, stop_ids=stop).output_ids
    assert len(spec.output_ids) == first + 1


def test_cancel_between_steps(pair):
    draft, target = pair
    calls = []

    def cancel() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        speculative_generate(draft, target, [0], 2, 1000, cancel=cancel)
    with pytest.raises(Cancelled):
        target_generate(target, [0], 1000, cancel=lambda: True)


@pytest.mark.parametrize("fp16", [False, True])
def test_bound_cache_path_runs_the_loop(tmp_path, fp16):
    """The I/O-binding path CUDA uses, exercised on CPU: same output, cache cut on the device side."""
    # target cycles 0 1 2 3 4; the draft guesses 4 after 2, so one stretch in a few is cut short
    t_table = np.roll(np.eye(V, dtype=np.float32), 1, axis=1) * 3
    d_table = t_table.copy()
    d_table[2] = np.eye(V, dtype=np.float32)[4] * 3
    dd = write_model_folder(tmp_path / "d", d_table, fp16=fp16)
    tt = write_model_folder(tmp_path / "t", t_table, fp16=fp16)
    bound = (OnnxCausalLM(dd, "cpu", bind_cache=True), OnnxCausalLM(tt, "cpu", bind_cache=True))
    host = (OnnxCausalLM(dd, "cpu"), OnnxCausalLM(tt, "cpu"))
    a = speculative_generate(*bound, [2, 4], 3, 25)
    b = speculative_generate(*host, [2, 4], 3, 25)
    assert a.output_ids == b.output_ids == target_generate(host[1], [2, 4], 25).output_ids
    assert a.accepted_counts == b.accepted_counts and min(a.accepted_counts) < 3
