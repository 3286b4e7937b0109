"""What an ONNX causal LM's graph takes and gives: the one type both the loader and the KV cache read."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LmLayout:
    """What a graph takes and gives, read from its inputs and outputs."""

    kind: str  # "kv", "merged" or "plain"
    n_layers: int
    n_kv_heads: int
    head_dim: int
    kv_dtype: type
    ids_name: str
    ids_dtype: type
    mask_name: str | None
    mask_dtype: type
    position_name: str | None
    position_dtype: type
    branch_name: str | None
    token_type_name: str | None
    logits_name: str
    logits_size: int | None
    past_names: tuple[str, ...]
    present_names: tuple[str, ...]
