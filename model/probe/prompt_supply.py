"""Whether the prompt file can supply what deciding a class is expected to take.

The interval's unit is a distinct prompt (model.acceptance.units): a repeat of a prompt adds no unit, so a class
expected to need 40 requests to decide, whose prompt file holds 12 distinct prompts of it, will not be decided by
repeating them. Said before a run, by the CLI and the probe dock, beside model.probe.decide_plan's estimate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from model.common import formatting as fmt
from model.probe.decide_plan import ClassNeed
from model.probe.prompt_file import ProbePrompt


def distinct_by_class(prompts: Iterable[ProbePrompt]) -> dict[str, int]:
    """Distinct prompts (by their text, ProbePrompt.key) per class, in the file's order of classes."""
    keys: dict[str, set[str]] = {}
    for p in prompts:
        keys.setdefault(p.task_class, set()).add(p.key)
    return {name: len(k) for name, k in keys.items()}


@dataclass(frozen=True)
class ShortOfPrompts:
    task_class: str
    expected: int  # requests expected to decide the class
    distinct: int  # distinct prompts of the class in the prompt file

    def words(self) -> str:
        return (f"{self.task_class}: ~{fmt.count(self.expected, 'request')} expected, the prompt file has "
                f"{self.distinct} distinct {self.task_class} prompt{'s' if self.distinct != 1 else ''}: add prompts "
                "or expect undecided")


def short_of_prompts(needs: Sequence[ClassNeed], prompts: Iterable[ProbePrompt]) -> list[ShortOfPrompts]:
    """The classes whose expected requests exceed their distinct prompts (a need that cannot be met at all, the
    estimate already says so, is left out)."""
    have = distinct_by_class(prompts)
    out = []
    for n in needs:
        if not n.decidable:
            continue
        expected = math.ceil(n.need.extra - 1e-9)
        distinct = have.get(n.task_class, 0)
        if expected > distinct:
            out.append(ShortOfPrompts(n.task_class, expected, distinct))
    return out
