"""Quality, controlled: at temperature 0, is the fast tier's output the baseline's, token for token?

A lossless fast tier on the same target returns the standard tier's tokens; early or frequent
divergence means a lossy acceptance rule or another model. Tokens are compared when both
streams gave them (logprobs), else the text, character by character, and the unit is said.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from model.probe.events import BASELINE, FAST, RequestRecord


@dataclass
class Identity:
    compared: int = 0
    identical: int = 0
    divergences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def share(self) -> float | None:
        return self.identical / self.compared if self.compared else None

    def to_dict(self) -> dict[str, Any]:
        return {"share": self.share, "compared": self.compared, "identical": self.identical,
                "divergences": self.divergences}


def first_difference(a: Sequence[str], b: Sequence[str]) -> int | None:
    """Index of the first position where a and b differ (one ending early counts), or None if equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare_outputs(records: Sequence[RequestRecord]) -> Identity:
    """Pair fast and baseline requests on (prompt, context, repeat) and compare their outputs."""
    key = lambda r: (r.prompt_index, r.context, r.repeat)  # noqa: E731
    baseline = {key(r): r for r in records if r.role == BASELINE and r.ok}
    result = Identity()
    for fast in (r for r in records if r.role == FAST and r.ok):
        base = baseline.get(key(fast))
        if base is None:
            continue
        a, b = fast.output_tokens, base.output_tokens
        unit = "token"
        if a is None or b is None:
            a, b, unit = list(fast.output_text), list(base.output_text), "character"
        result.compared += 1
        at = first_difference(a, b)
        if at is None:
            result.identical += 1
        else:
            result.divergences.append({"task_class": fast.task_class, "prompt_index": fast.prompt_index,
                                       "context": fast.context, "repeat": fast.repeat, "position": at,
                                       "unit": unit})
    return result
