"""A roofline cost model: c and v at a context length and batch size.

Decode is bound by memory traffic: a forward pass reads the weights and the KV
cache. time(n query tokens, L, B) = max(bytes / bandwidth, flops / peak) plus a
fixed launch overhead per layer, which is what keeps small drafts from being
as cheap as their byte count suggests.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class Gpu:
    name: str
    bandwidth_gbs: float  # HBM bandwidth, GB/s
    peak_tflops: float  # dense 16-bit tensor throughput
    layer_overhead_us: float = 8.0  # kernel launches per layer and step


@dataclass(frozen=True)
class LmShape:
    name: str
    params_b: float  # parameters, billions
    layers: int
    heads: int  # query heads
    kv_heads: int
    head_dim: int
    dtype_bytes: int = 2

    @property
    def weight_bytes(self) -> float:
        return self.params_b * 1e9 * self.dtype_bytes

    @property
    def kv_bytes_per_token(self) -> float:
        return 2.0 * self.layers * self.kv_heads * self.head_dim * self.dtype_bytes


@dataclass(frozen=True)
class PairPreset:
    name: str
    draft: LmShape
    target: LmShape


# Datasheet figures (dense BF16/FP16 tensor TFLOPS, HBM bandwidth).
GPUS: dict[str, Gpu] = {g.name: g for g in (
    Gpu("H100 SXM", 3350.0, 989.0),
    Gpu("H200", 4800.0, 989.0),
    Gpu("B200", 8000.0, 2250.0),
    Gpu("A100 80GB", 2039.0, 312.0),
    Gpu("L40S", 864.0, 362.0),
    Gpu("MI300X", 5300.0, 1307.0),
)}

# Shapes from the models' published configs.
MODELS: dict[str, LmShape] = {m.name: m for m in (
    LmShape("Llama-3.2-1B", 1.24, 16, 32, 8, 64),
    LmShape("Llama-3.2-3B", 3.21, 28, 24, 8, 128),
    LmShape("Llama-3.1-8B", 8.03, 32, 32, 8, 128),
    LmShape("Llama-3.1-70B", 70.6, 80, 64, 8, 128),
    LmShape("Qwen2.5-0.5B", 0.49, 24, 14, 2, 64),
    LmShape("Qwen2.5-7B", 7.62, 28, 28, 4, 128),
    LmShape("Qwen2.5-32B", 32.8, 64, 40, 8, 128),
)}

PAIRS: dict[str, PairPreset] = {p.name: p for p in (
    PairPreset("Llama 1B -> 8B", MODELS["Llama-3.2-1B"], MODELS["Llama-3.1-8B"]),
    PairPreset("Llama 1B -> 70B", MODELS["Llama-3.2-1B"], MODELS["Llama-3.1-70B"]),
    PairPreset("Llama 8B -> 70B", MODELS["Llama-3.1-8B"], MODELS["Llama-3.1-70B"]),
    PairPreset("Llama 3B -> 70B", MODELS["Llama-3.2-3B"], MODELS["Llama-3.1-70B"]),
    PairPreset("Qwen 0.5B -> 7B", MODELS["Qwen2.5-0.5B"], MODELS["Qwen2.5-7B"]),
    PairPreset("Qwen 0.5B -> 32B", MODELS["Qwen2.5-0.5B"], MODELS["Qwen2.5-32B"]),
)}


def forward_time(model: LmShape, gpu: Gpu, n_tokens: ArrayLike, context: ArrayLike, batch: ArrayLike = 1) -> NDArray[np.float64]:
    """Seconds for one forward pass over n_tokens new tokens per sequence at depth `context`.

    70B-class models are assumed split over enough GPUs to hold them; tensor
    parallelism scales bandwidth and compute together, so the ratios c and v,
    which are all this model is used for, do not depend on the GPU count.
    """
    shape = np.broadcast(np.asarray(n_tokens), np.asarray(context), np.asarray(batch)).shape
    return StackedShapes([model], [gpu]).time(n_tokens, context, batch).reshape(shape)


def cost_ratios(pair: PairPreset, gpu: Gpu, k: ArrayLike, context: ArrayLike, batch: ArrayLike = 1) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(c, v) at this context and batch: c = draft step / target step, v = verify(k + 1) / target step."""
    kk = np.asarray(k, dtype=np.float64)
    target_step = forward_time(pair.target, gpu, 1.0, context, batch)
    c = forward_time(pair.draft, gpu, 1.0, context, batch) / target_step
    v = forward_time(pair.target, gpu, kk + 1.0, context, batch) / target_step
    return c, v


def tree_cost_ratios(pair: PairPreset, gpu: Gpu, tree_size: ArrayLike, depth: ArrayLike, context: ArrayLike,
                     batch: ArrayLike = 1) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(c, v) of a tree draft: c per depth level, v the target's pass over the tree's tree_size tokens.

    A tree of N tokens (the tokens the target verifies per step, the last accepted one
    included: a chain of K drafts is N = K + 1) and depth d drafts in d passes, each over the
    tree's width, (N - 1) / d tokens on average. The target's verify pass reads the same
    weights and KV cache as one decode step but computes N x batch query tokens, so v stays
    near 1 while memory-bound and grows with N x batch once the pass is compute-bound. The
    break-even tokens per step is then E* = d c + v (arithmetic.break_even_length).
    """
    n = np.asarray(tree_size, dtype=np.float64)
    d = np.asarray(depth, dtype=np.float64)
    target_step = forward_time(pair.target, gpu, 1.0, context, batch)
    width = np.maximum(1.0, (n - 1.0) / d)
    c = forward_time(pair.draft, gpu, width, context, batch) / target_step
    v = forward_time(pair.target, gpu, n, context, batch) / target_step
    return c, v


def flops_ratio(pair: PairPreset) -> float:
    """Draft arithmetic per token relative to the target's: the c of the FLOPs cost factor."""
    return pair.draft.params_b / pair.target.params_b


class StackedShapes:
    """Model and GPU parameters of many tiers as arrays, so one formula covers them all."""

    def __init__(self, shapes: list[LmShape], gpus: list[Gpu]) -> None:
        def col(values: list[float]) -> NDArray[np.float64]:
            return np.asarray(values, dtype=np.float64)[:, None]  # tiers down, classes across

        self.weight_bytes = col([m.weight_bytes for m in shapes])
        self.kv_bytes = col([m.kv_bytes_per_token for m in shapes])
        self.params = col([m.params_b * 1e9 for m in shapes])
        self.attn = col([4.0 * m.layers * m.heads * m.head_dim for m in shapes])
        self.overhead = col([m.layers * g.layer_overhead_us * 1e-6 for m, g in zip(shapes, gpus)])
        self.bandwidth = col([g.bandwidth_gbs * 1e9 for g in gpus])
        self.peak = col([g.peak_tflops * 1e12 for g in gpus])

    def time(self, n: ArrayLike, context: ArrayLike, batch: ArrayLike) -> NDArray[np.float64]:
        """forward_time() for every stacked row at once; same formula."""
        n = np.asarray(n, dtype=np.float64)
        length = np.asarray(context, dtype=np.float64)
        b = np.asarray(batch, dtype=np.float64)
        memory_s = (self.weight_bytes + b * (length + n) * self.kv_bytes) / self.bandwidth
        compute_s = (2.0 * self.params * b * n + self.attn * b * n * (length + n)) / self.peak
        return np.maximum(memory_s, compute_s) + self.overhead
