"""How a sampling result names itself in the window and in the workbook's source notes."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # run pulls in onnxruntime lazily; only its types are needed here
    from model.sampling.run import SamplingResult


def _folder_name(folder: str) -> str:
    path = Path(folder)
    # the demo's folders are called draft/ and target/: the parent is the informative part
    return f"{path.parent.name}/{path.name}" if path.parent.name else path.name


def pair_label(result: SamplingResult) -> str:
    """Which pair, K and temperature produced a result, e.g. "demo_pair/draft → demo_pair/target, K=4, T=0"."""
    return f"{_folder_name(result.draft)} → {_folder_name(result.target)}, K={result.k}, T={result.temperature:g}"


def pair_note(result: SamplingResult) -> str:
    """The source_note a measured alpha gets in the workbook."""
    return f"measured: {pair_label(result)}"
