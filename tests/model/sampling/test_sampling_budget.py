"""Stretches at the end of a generation: the token budget and stop tokens.

A stretch never drafts past max_new_tokens or past a drafted stop token, so the
recorded counts describe the emitted text exactly, and a stretch cut short that
way is kept out of the acceptance statistics instead of being read as a rejection.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnx")
from tests.onnx_tiny import write_model_folder  # noqa: E402

from model.sampling.onnx_lm import OnnxCausalLM  # noqa: E402
from model.sampling.run import summarise_class  # noqa: E402
from model.sampling.speculative import speculative_generate, target_generate  # noqa: E402

V = 5
# token i is followed by i + 1 (mod 5) with near certainty: greedy output 1, 2, 3, 4, 0, 1, ...
CHAIN = np.full((V, V), -8.0, dtype=np.float32)
CHAIN[np.arange(V), (np.arange(V) + 1) % V] = 8.0


@pytest.fixture(scope="module")
def self_pair(tmp_path_factory):
    """The target as its own draft: every draft is accepted, so alpha is exactly 1."""
    folder = write_model_folder(tmp_path_factory.mktemp("chain") / "m", CHAIN)
    return OnnxCausalLM(folder, "cpu"), OnnxCausalLM(folder, "cpu")


@pytest.fixture(scope="module")
def random_pair(tmp_path_factory):
    base = tmp_path_factory.mktemp("rand")
    t = np.random.default_rng(11).normal(size=(V, V)).astype(np.float32)
    d = t + np.random.default_rng(12).normal(0, 0.8, size=(V, V)).astype(np.float32)
    return OnnxCausalLM(write_model_folder(base / "d", d), "cpu"), OnnxCausalLM(write_model_folder(base / "t", t), "cpu")


@pytest.mark.parametrize("k", [1, 3, 4])
@pytest.mark.parametrize("max_new", [1, 2, 7, 13])
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_counts_cover_exactly_the_budget(random_pair, k, max_new, temperature):
    draft, target = random_pair
    run = speculative_generate(draft, target, [2], k, max_new, temperature, np.random.default_rng(4))
    assert len(run.output_ids) == max_new
    # each stretch emits its accepted drafts plus one target token: nothing beyond the budget
    assert sum(a + 1 for a in run.accepted_counts) == max_new
    assert len(run.drafted_counts) == len(run.accepted_counts)
    assert all(0 <= a <= d <= k for a, d in zip(run.accepted_counts, run.drafted_counts))
    assert len(run.draft_step_seconds) == sum(run.drafted_counts)
    if temperature == 0.0:
        assert run.output_ids == target_generate(target, [2], max_new).output_ids


def test_stretch_cut_by_the_budget_is_not_a_rejection(self_pair):
    draft, target = self_pair
    run = speculative_generate(draft, target, [0], 4, 7)
    assert run.output_ids == [1, 2, 3, 4, 0, 1, 2]
    assert run.accepted_counts == [4, 1] and run.drafted_counts == [4, 1]
    summary = summarise_class("chain", 4, [run], [target_generate(target, [0], 7)])
    # only the full stretch is a K-stretch observation; the short one would read as a rejection
    assert summary.alpha == 1.0 and summary.histogram == [0, 0, 0, 0, 1]
    assert summary.stretches == 1 and summary.drafted_tokens == 4 and summary.accepted_tokens == 4
    assert summary.generated_tokens == 7


def test_no_drafting_past_a_stop_token(self_pair):
    draft, target = self_pair
    stop = frozenset([4])
    run = speculative_generate(draft, target, [0], 6, 20, stop_ids=stop)
    plain = target_generate(target, [0], 20, stop_ids=stop)
    assert run.output_ids == plain.output_ids == [1, 2, 3, 4]
    # the draft stops at the stop token it proposed: no acceptance is counted on text after it
    assert run.drafted_counts == [4] and run.accepted_counts == [4]
    summary = summarise_class("chain", 6, [run], [plain])
    assert summary.stretches == 0 and summary.generated_tokens == 4


def test_run_refuses_a_budget_with_no_room_for_a_full_stretch(tmp_path):
    from model.sampling.run import run_sampling, run_to_end

    with pytest.raises(ValueError, match=r"max_new_tokens \(4\) must be more than K \(4\)"):
        run_to_end(run_sampling(k=4, max_new_tokens=4, provider="cpu"))
