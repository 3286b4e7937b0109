"""Published acceptance lengths an analyst can pick for a class as an assumed length.

Each figure is the mean accepted tokens per verify step (bonus token included, so 1.00 for plain decoding)
as its source prints it, with the method, model, benchmark and setting it was measured on. Only figures
whose source was read are here; a source that states no K (a tree draft's depth) leaves ``k`` None and
the K must then be given when the preset is applied. These are someone else's pair and prompts: an
assumption for a class until it is measured on the vendor's tier.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SPEC_BENCH = ("Spec-Bench leaderboard (Xia et al.), github.com/hemingkx/Spec-Bench Leaderboard.md at commit 09244ff: "
              "'#Mean Accepted Tokens' over all Spec-Bench tasks, greedy, FP16, batch size 1")
MAVERICK = ("model card of lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1 (huggingface.co): "
            "3 speculative steps, top-1, 4 draft tokens")


@dataclass(frozen=True)
class Preset:
    method: str
    model: str  # the target (and draft) it was measured on
    benchmark: str
    setting: str
    length: float  # mean accepted tokens per verify step, bonus token included
    k: int | None  # draft tokens (depth) per step, where the source states it
    source: str
    cite: str = ""  # a short form for a class's source note (at most 200 characters in all)

    @property
    def name(self) -> str:
        return f"{self.method}, {self.model}, {self.benchmark}, {self.setting}"


def _spec_bench(setting: str, model: str, rows: dict[str, float]) -> list[Preset]:
    return [Preset(method, model, "Spec-Bench (all tasks)", setting, length, None, SPEC_BENCH,
                   "Spec-Bench Leaderboard.md 09244ff")
            for method, length in rows.items()]


PRESETS: tuple[Preset, ...] = tuple(
    _spec_bench("RTX 3090", "Vicuna-7B-v1.3", {"EAGLE-2": 4.36, "EAGLE": 3.57, "SpS": 2.29, "Hydra": 3.26, "PLD": 1.74,
                                               "Medusa": 2.32, "REST": 1.63, "Lookahead": 1.65})
    + _spec_bench("A100", "Vicuna-7B-v1.3", {"EAGLE": 3.61, "Hydra": 3.24, "Medusa": 2.32, "PLD": 1.73, "SpS": 2.28,
                                             "REST": 1.82, "Lookahead": 1.66})
    + _spec_bench("A100", "Vicuna-13B-v1.3", {"EAGLE": 3.64, "Hydra": 3.35, "Medusa": 2.39, "SpS": 2.18, "PLD": 1.68,
                                              "REST": 1.82, "Lookahead": 1.63})
    + _spec_bench("A100", "Vicuna-33B-v1.3", {"EAGLE": 3.39, "Hydra": 3.24, "Medusa": 2.33, "SpS": 2.01, "REST": 1.80,
                                              "PLD": 1.55, "Lookahead": 1.61})
    + [Preset("EAGLE-3", "Llama-4-Maverick-17B-128E-Instruct", "SpecForge's evaluation", "SGLang, chain of 3",
              2.45, 3, MAVERICK, "HF card lmsys/sglang-EAGLE3-Llama-4-Maverick")]
)


def find(text: str) -> list[Preset]:
    """The presets whose name holds every word of ``text`` (any case)."""
    words = text.lower().split()
    return [p for p in PRESETS if all(w in p.name.lower() for w in words)]


def preset_fields(preset: Preset, k: int | None = None) -> dict[str, Any]:
    """The task-class (or override) fields that assume this preset: its length at its K, or at ``k`` where the
    source states none (said in the note). Refused where the length cannot occur at that K (above K + 1)."""
    at = preset.k if preset.k is not None else k
    if at is None:
        raise ValueError(f"{preset.name}: the source states no K (a tree's depth); give the tier's K")
    if preset.length > at + 1:
        raise ValueError(f"{preset.name}: {preset.length:g} tokens a step cannot occur at K = {at} (at most K + 1)")
    k_note = "" if preset.k is not None else f"; K not stated by the source, taken as {at}"
    return {"acceptance_length": preset.length, "acceptance_length_k": int(at), "profile": (),
            "alpha_source": "assumed", "source_note": f"preset: {preset.name} ({preset.cite}){k_note}"}
