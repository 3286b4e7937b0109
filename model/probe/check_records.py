"""Task checks over a probe's recorded answers: what the run file keeps of them, and the per-class verdicts.

The run header keeps each checked prompt's check (and, for a check on the prompt and the answer, the prompt's text),
so a run file re-analysed later scores its answers the same way. Every answer of both tiers is scored, greedy and
sampled alike; a prompt at one context is one unit of the interval (model/quality/check_stats.py). A failing answer
is listed beside the other tier's answer to the same request (prompt, context, repeat, temperature), for the dock
to show side by side.
"""
from __future__ import annotations

from typing import Any, Sequence

from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.prompt_file import ProbePrompt
from model.quality.check_stats import MARGIN_POINTS, ScoredAnswer, class_checks
from model.quality.checks import Check, CheckError, parse_check

CUT = "length"  # the finish reason of an answer stopped at its max tokens (each API's word for it, normalised)
MAX_FAILURES = 200  # listed in the result; the run file holds every answer


def prompt_checks(prompts: Sequence[ProbePrompt]) -> list[dict[str, Any]]:
    """The header's record of the checks: one entry per checked prompt."""
    out = []
    for i, p in enumerate(prompts):
        if p.check is None:
            continue
        entry: dict[str, Any] = {"prompt_index": i, "line": p.line, "task_class": p.task_class,
                                 "check": p.check.to_dict()}
        if p.check.on == "prompt+answer":
            entry["prompt"] = "\n".join(m["content"] for m in p.messages)
        out.append(entry)
    return out


def _checks(header: dict[str, Any]) -> tuple[dict[int, tuple[Check, str, int]], list[str]]:
    found: dict[int, tuple[Check, str, int]] = {}
    problems = []
    for entry in header.get("checks") or []:
        try:
            found[int(entry["prompt_index"])] = (parse_check(entry["check"]), str(entry.get("prompt") or ""),
                                                 int(entry.get("line") or 0))
        except (CheckError, KeyError, TypeError, ValueError) as exc:
            problems.append(f"a check in the run header was left out ({str(exc)[:120]})")
    return found, problems


def checks_of(records: Sequence[RequestRecord], header: dict[str, Any], confidence: float = 0.95,
              margin_points: float = MARGIN_POINTS) -> dict[str, Any] | None:
    """{"classes": per-class rates and verdicts, "failures": failing answers beside the other tier's, "notes"};
    None when no prompt carries a check."""
    checks, notes = _checks(header)
    if not checks:
        return None
    scored: dict[int, tuple[bool, str]] = {}
    cuts: set[int] = set()
    answers = []
    for r in records:
        if not r.ok or r.prompt_index not in checks:
            continue
        check, prompt, _ = checks[r.prompt_index]
        passed, why = check.score(r.output_text, prompt)
        # failing, cut at the token budget: too short to judge (model/quality/check_stats.py), no failure listed
        cut = r.finish_reason == CUT and not passed
        scored[id(r)] = passed, why
        if cut:
            cuts.add(id(r))
        answers.append(ScoredAnswer(r.task_class, (r.prompt_key or r.prompt_index, r.context), r.role == FAST, passed,
                                    cut))
    key = lambda r: (r.prompt_index, r.context, r.repeat, r.temperature or 0)  # noqa: E731
    by_key = {(key(r), r.role): r for r in records if id(r) in scored}
    failures = []
    for r in records:
        if id(r) not in scored or scored[id(r)][0] or id(r) in cuts:
            continue
        other = by_key.get((key(r), BASELINE if r.role == FAST else FAST))
        failures.append({"task_class": r.task_class, "line": checks[r.prompt_index][2], "prompt_index": r.prompt_index,
                         "context": r.context, "repeat": r.repeat, "temperature": r.temperature or 0.0,
                         "tier": r.role, "check": checks[r.prompt_index][0].describe(), "why": scored[id(r)][1],
                         "answer": r.output_text,
                         "other_answer": other.output_text if other is not None else None,
                         "other_passed": scored[id(other)][0] if other is not None and id(other) not in cuts
                         else None})
    return {"classes": [c.to_dict() | {"words": c.words()} for c in class_checks(answers, confidence, margin_points)],
            "failures": failures[:MAX_FAILURES], "failures_total": len(failures),
            "cut_total": sum(a.cut for a in answers), "margin_points": margin_points,
            "notes": notes}
