"""llama.cpp outputs besides the server's per-request timing lines: each drafter's own K, the per-step lines alone,
`timings` as a user copies them, and the `speculative` example's summary
(docs/reference/engine-formats.md#llamacpp-beyond-the-per-request-lines).

- Drafters: common_speculative logs "adding speculative implementation '<name>'" as each one is made, then its
  settings "- n_max=N, n_min=..., ..." (an n-gram one "- n_match=.., n_max=N, ..."): N is that drafter's K, kept
  by name so that statistics lines of several drafters each get their own.
- Per-step lines (server_context with LLAMA_TRACE, "accepted %2zu/%2zu draft tokens" with the request's task id):
  read into their request when a timing line follows (model.metrics.logs); on their own they are exact counts:
  the verify steps, the drafted and accepted tokens and the steps that rejected (accepted fewer than drafted). K is
  at least the longest draft; where every step drafted the same number it is taken as K, and said to be inferred.
- `timings` (tools/server result_timings to_json): draft_n (tokens drafted), draft_n_accepted (accepted drafts, the
  bonus excluded), predicted_n (tokens generated). They count no verify steps. The first token comes from the
  prompt pass and each verify step emits its accepted drafts plus one, so steps <= predicted_n - 1 - accepted; a
  step drafts at least one token, so steps <= draft_n; and none drafts more than K, so steps >= draft_n / K. With
  drafts of variable length (--spec-draft-n-min / --spec-draft-n-max, once --draft-min / --draft-max) these
  leave a range: the draft acceptance rate is exact, the mean acceptance length is given as the bounds those
  steps allow, never one point.
- examples/speculative (and speculative-simple) print after the run "n_draft   = %d" (the draft maximum),
  "n_predict = %d", "n_drafted = %d", "n_accept  = %d", "accept    = %.3f%%": the rate n_accept / n_drafted. Its
  drafts stop early (at the draft model's p_min), so the mean acceptance length has bounds only and alpha is
  not given.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from model.engines.reports import LLAMACPP_NOTE, SpecCounts
from model.engines.spec_checks import MAX_K, count_problem
from model.metrics.fields import figure
from model.metrics.result import MetricsError

STEPS_NOTE = ("llama.cpp per-step lines: one verify step each, 'accepted a/d draft tokens'; mean acceptance length = 1 + "
              "accepted / steps (bonus token included); draft acceptance rate = accepted / drafted; a step that accepted "
              "fewer than it drafted rejected")
TIMINGS_NOTE = ("llama.cpp timings: draft_n = draft tokens, draft_n_accepted = accepted draft tokens (bonus excluded), "
                "predicted_n = tokens generated; no verify step count: steps lie between draft_n / K and "
                "min(draft_n, predicted_n - 1 - accepted)")
EXAMPLE_NOTE = ("llama.cpp speculative example: accept = n_accept / n_drafted (draft acceptance rate); its drafts stop "
                "early at the draft model's p_min, so no per-token alpha; steps and the mean acceptance length are bounded only")

_ADDING = re.compile(r"adding speculative implementation '([^']{1,64})'")
_N_MAX = re.compile(r"(?:^|\s)- (?:n_match=\d+, )?n_max=(\d+), n_min=")
_EXAMPLE = re.compile(r"^(?:[\d.]+ [IWEDT] )?(n_draft|n_predict|n_drafted|n_accept|accept)\s+=\s+([^\s%]+)%?\s*$")


@dataclass
class Drafters:
    """Each speculative implementation's K from its settings line, by name, in the order they were added."""

    current: str | None = None
    n_max: dict[str, int] = field(default_factory=dict)

    def added(self, line: str) -> None:
        m = _ADDING.search(line)
        if m is not None:
            self.current = m.group(1)

    def settings(self, line: str) -> None:
        m = _N_MAX.search(line)
        if m is not None and self.current is not None and 1 <= int(m.group(1)) <= MAX_K:
            self.n_max.setdefault(self.current, int(m.group(1)))
            self.current = None


def steps_alone(steps: Mapping[str, list[tuple[int, int]]], where: str) -> tuple[list[tuple[str, SpecCounts]], list[str]]:
    """Per-step lines without the timing lines that would close their requests: one request per task id, the
    counts exact. K inferred where every step of the log drafted the same number."""
    drafted = {d for parts in steps.values() for _, d in parts}
    longest = max(drafted, default=0)
    k = longest if len(drafted) == 1 and 1 <= longest <= MAX_K else None
    out = []
    for task, parts in steps.items():
        counts = SpecCounts(engine="llamacpp", k=k, k_at_least=None if k else longest or None, drafts=float(len(parts)),
                            draft_tokens=float(sum(d for _, d in parts)), accepted_tokens=float(sum(a for a, _ in parts)),
                            rejections=float(sum(a < d for a, d in parts)), convention_note=STEPS_NOTE)
        problem = count_problem(counts)
        if problem:
            raise MetricsError(f"{where}: task {task}: {problem}")
        out.append((f"task {task}", counts))
    notes = [f"no per-request timing line: the LLAMA_TRACE per-step lines ('accepted a/d draft tokens') of "
             f"{len(out)} request(s) read on their own, {sum(len(p) for p in steps.values())} verify steps, each counted"]
    if k:
        notes.append(f"K = {k} inferred: every step drafted {k} tokens (the draft maximum, unless every draft was cut)")
    else:
        notes.append(f"drafts of {min(drafted)} to {longest} tokens: K is at least {longest}; pass --k for alpha")
    return out, notes


def timings_counts(timings: Mapping[str, Any], where: str) -> SpecCounts:
    """One response's `timings` (or the object as copied): exact rate, steps bounded (see the module's doc)."""
    def number(key: str, default: float | None = None) -> float | None:
        value = timings.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise MetricsError(f"{where}.{key}: expected a count, got {value!r}")
        return float(value)

    drafted, accepted = number("draft_n"), number("draft_n_accepted", 0.0)
    predicted = number("predicted_n")
    assert drafted is not None and accepted is not None
    if accepted > drafted:
        raise MetricsError(f"{where}.draft_n_accepted: {accepted:g} accepted of {drafted:g} drafted is more than were drafted")
    most = drafted
    if predicted is not None:
        if predicted < accepted + (1 if drafted else 0):
            raise MetricsError(f"{where}.predicted_n: {predicted:g} tokens cannot hold {accepted:g} accepted drafts "
                               "and the first token")
        most = min(most, predicted - 1 - accepted)
    fewest = 0.0  # nothing bounds the steps from below until K is known (then draft_n / K)
    if drafted and most < math.ceil(drafted / MAX_K - 1e-9):
        raise MetricsError(f"{where}: {drafted:g} tokens drafted in at most {most:g} verify steps is more than "
                           f"{MAX_K} a step")
    own = {key: timings[key] for key in ("draft_n", "draft_n_accepted", "predicted_n") if key in timings}
    return SpecCounts(engine="llamacpp", draft_tokens=drafted, accepted_tokens=accepted, steps_range=(fewest, most),
                      convention_note=TIMINGS_NOTE if predicted is not None else LLAMACPP_NOTE, engine_values=own)


def is_bare_timings(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "draft_n" in obj and "draft_n_accepted" in obj


@dataclass
class ExampleSummary:
    first: int = 0
    values: dict[str, float] = field(default_factory=dict)


def example_line(line: str, number: int, file: str, out: ExampleSummary) -> bool:
    """One line of the speculative example's summary; False where the line is not one."""
    m = _EXAMPLE.match(line.strip())
    if m is None:
        return False
    out.first = out.first or number
    out.values[m.group(1)] = figure(m.group(2), f"{file}:{number}", m.group(1), whole=m.group(1) != "accept")
    return True


def example_counts(out: ExampleSummary, file: str) -> tuple[SpecCounts, list[str]] | None:
    v, where = out.values, f"{file}:{out.first}"
    if not {"n_drafted", "n_accept"} <= set(v) or not v["n_drafted"]:
        return None
    if v["n_accept"] > v["n_drafted"]:
        raise MetricsError(f"{where}: n_accept {v['n_accept']:g} is more than n_drafted {v['n_drafted']:g}")
    timings = {"draft_n": v["n_drafted"], "draft_n_accepted": v["n_accept"]}
    if "n_predict" in v:
        # the example counts the first token in n_predict too; +1 keeps the bound safe if a build does not
        timings["predicted_n"] = v["n_predict"] + 1
    counts = timings_counts(timings, where)
    k_max = int(v["n_draft"]) if 1 <= v.get("n_draft", 0) <= MAX_K else None
    fewest, most = counts.steps_range or (0.0, 0.0)
    if k_max:
        fewest = max(fewest, float(math.ceil(v["n_drafted"] / k_max - 1e-9)))
    own = {"accept (%)": v["accept"]} if "accept" in v else {}
    counts = SpecCounts(engine="llamacpp", k_at_least=None, draft_tokens=counts.draft_tokens,
                        accepted_tokens=counts.accepted_tokens, steps_range=(fewest, most), convention_note=EXAMPLE_NOTE,
                        engine_values={**own, **({"n_draft (draft maximum)": k_max} if k_max else {})})
    notes = [f"llama.cpp speculative example summary from line {out.first}: rate {v['n_accept'] / v['n_drafted']:.3f} "
             f"read; alpha needs per-step counts (its drafts stop early)"]
    return counts, notes
