"""What the server reports about its own speculation, summed over requests and converted to per-token alpha.

TODO(metrics #10): once model/engine_reports.py (speculation_from_response) lands on main, read
every engine through it; until then only vLLM's per-request ``metrics.speculative_decoding`` is
converted here, and every other engine's fields stay raw in the run file for a later re-analysis.
vLLM's per-position counts are cumulative (position i counts only when every earlier draft was
accepted), so they give the histogram of accepted drafts exactly, and with it the ML alpha.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from model.probe.events import RequestRecord


@dataclass(frozen=True)
class ReportedAcceptance:
    engine: str
    k: int
    drafts: int
    draft_tokens: int
    accepted_tokens: int
    per_position: tuple[int, ...]

    @property
    def alpha(self) -> float:
        """Per-token ML alpha: accepted / (accepted + stretches that stopped short of K)."""
        short = self.drafts - (self.per_position[-1] if self.per_position else 0)
        total = self.accepted_tokens + short
        return self.accepted_tokens / total if total else float("nan")

    @property
    def draft_acceptance_rate(self) -> float:
        return self.accepted_tokens / self.draft_tokens if self.draft_tokens else float("nan")

    @property
    def mean_acceptance_length(self) -> float:
        return 1.0 + self.accepted_tokens / self.drafts if self.drafts else float("nan")

    @property
    def convention_note(self) -> str:
        return (f"{self.engine}: draft acceptance rate {self.draft_acceptance_rate:.3f} (accepted / drafted), "
                f"mean acceptance length {self.mean_acceptance_length:.2f} (bonus token counted), "
                f"per-position rates cumulative; per-token alpha {self.alpha:.3f} at K={self.k}")


def _vllm(reported: Mapping[str, Any]) -> tuple[int, int, int, list[int]] | None:
    spec = (reported.get("metrics") or {}).get("speculative_decoding") if isinstance(reported.get("metrics"), dict) else None
    if not isinstance(spec, dict):
        return None
    try:
        per_pos = [int(x) for x in spec.get("num_accepted_tokens_per_pos") or []]
        return (int(spec["num_drafts"]), int(spec["num_draft_tokens"]), int(spec["num_accepted_tokens"]), per_pos)
    except (KeyError, TypeError, ValueError):
        return None


def reported_acceptance(records: Sequence[RequestRecord]) -> ReportedAcceptance | None:
    """The vLLM counts summed over the requests that carried them; None if none did."""
    drafts = tokens = accepted = 0
    per_pos: list[int] = []
    seen = False
    for r in records:
        got = _vllm(r.reported)
        if got is None:
            continue
        seen = True
        d, t, a, pos = got
        drafts, tokens, accepted = drafts + d, tokens + t, accepted + a
        if len(pos) > len(per_pos):
            per_pos.extend([0] * (len(pos) - len(per_pos)))
        for i, x in enumerate(pos):
            per_pos[i] += x
    if not seen or drafts == 0:
        return None
    k = len(per_pos) or round(tokens / drafts)
    return ReportedAcceptance("vLLM metrics.speculative_decoding", k, drafts, tokens, accepted, tuple(per_pos))
