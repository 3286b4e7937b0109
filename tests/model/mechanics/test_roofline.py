import numpy as np
import pytest

from model.mechanics import roofline as rf


def test_preset_shapes_are_the_published_ones():
    m = rf.MODELS["Llama-3.1-8B"]
    assert (m.layers, m.kv_heads, m.head_dim) == (32, 8, 128)
    assert m.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2  # 128 KiB per token in 16-bit
    assert rf.MODELS["Llama-3.1-70B"].layers == 80


def test_decode_is_memory_bound_at_batch_one():
    m, g = rf.MODELS["Llama-3.1-8B"], rf.GPUS["H100 SXM"]
    t = float(rf.forward_time(m, g, 1, 4096))
    memory = (m.weight_bytes + 4097 * m.kv_bytes_per_token) / (g.bandwidth_gbs * 1e9)
    assert t == pytest.approx(memory + m.layers * g.layer_overhead_us * 1e-6)


def test_c_rises_with_context_and_v_with_batch():
    pair, gpu = rf.PAIRS["Llama 8B -> 70B"], rf.GPUS["H100 SXM"]
    ctx = np.array([1024, 8192, 65536, 131072])
    c, v = rf.cost_ratios(pair, gpu, 5, ctx, 1)
    assert np.all(np.diff(c) > 0)
    assert np.allclose(v, 1.0, atol=0.01)  # verifying 6 tokens costs one step when memory-bound
    _, v_big = rf.cost_ratios(pair, gpu, 5, 512, 256)
    assert float(v_big) > 1.5  # compute-bound: the verify pass is no longer free


def test_flops_ratio():
    assert rf.flops_ratio(rf.PAIRS["Llama 1B -> 8B"]) == pytest.approx(1.24 / 8.03)


def test_stacked_equals_single():
    pairs = list(rf.PAIRS.values())
    gpus = list(rf.GPUS.values())[: len(pairs)]
    stacked = rf.StackedShapes([p.target for p in pairs], gpus).time(1.0, np.array([[2048.0, 65536.0]]), 4.0)
    for i, (p, g) in enumerate(zip(pairs, gpus)):
        assert np.allclose(stacked[i], rf.forward_time(p.target, g, 1.0, np.array([2048.0, 65536.0]), 4.0))
