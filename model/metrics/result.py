"""One imported source: the counts, all three conventions labelled, and what alpha reaches the comparison.

Where the conditional per-position rates fall along the stretch the i.i.d. alpha is only a summary. The comparison
computes every speedup as E(alpha, K) / (K c + v), and E of the maximum-likelihood alpha then misstates the
tokens per step (by how much, and which way, depends on the shape), so the class receives the alpha that reproduces the
measured mean acceptance length at the measured K (`alpha_e_matched`), and the note says so; at
another K that alpha is again an i.i.d. summary. Where the rates hold, the class receives the
maximum-likelihood alpha (docs/design/arithmetic.md#acceptance-from-counts).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from model.acceptance import COUNTS_ONLY, Acceptance, alpha_interval_from_reports
from model.acceptance.interval import length_interval
from model.acceptance.k_check import k_mismatch
from model.acceptance.units import UNIT_REQUEST, cluster_keys, with_unit
from model.engines.reports import SpecCounts
from model.common.formatting import finite_or_none

# how far the first and last conditional rates must lie apart, beyond two standard errors, to call it falling
_FALL_MARGIN = 0.02


class MetricsError(ValueError):
    """A metrics file that cannot be imported; the message is one line naming the file (and line)."""


@dataclass
class SourceResult:
    file: str
    engine: str
    counts: SpecCounts
    task_class: str | None = None
    model: str | None = None  # model_name label of a multi-model scrape
    kind: str = ""  # prometheus, prometheus-difference, log, jsonl, vllm-bench, specledger-sample
    has_counts: bool = True  # False where the source gives only rates (gauges, SGLang log lines)
    notes: list[str] = field(default_factory=list)
    format: str = ""  # the format and version it was read as, in words
    # the per-request counts the source adds up, named (a request is the unit an interval resamples); empty
    # where the source gives totals or per-interval lines only
    requests: list[tuple[str, SpecCounts]] = field(default_factory=list)
    field_lines: dict[str, int] = field(default_factory=dict)  # a count's name -> its line, where the format has lines
    confidence: float = 0.95  # of the interval on the applied alpha
    # beside requests, each request's prompt where the record names it (metrics/prompt_keys.py), else None;
    # empty where the reader keeps none: the interval's unit is then the request
    prompts: list[str | None] = field(default_factory=list)
    k_unknown: str = ""  # why the file gives no K, where its reader says (model/engines/recorded.py)

    @property
    def acceptance(self) -> Acceptance:
        """The applied alpha with its interval from the per-request counts, or COUNTS_ONLY where the source
        gave only totals (a scrape, a log line): no per-request variation to see, none invented."""
        point = self.alpha
        if not self.has_counts or not self.requests or self.alpha_applied is None:
            return Acceptance(point, None, None, None, len(self.requests), 0, COUNTS_ONLY)
        keys, unit = cluster_keys(self.prompts if len(self.prompts) == len(self.requests) else [None] * len(self.requests))
        a = alpha_interval_from_reports([r for _, r in self.requests], self.counts.k, point, self.confidence,
                                        e_matched=bool(self.rates_fall), clusters=keys if unit != UNIT_REQUEST else None)
        return replace(a, method=with_unit(a.method, unit)) if a.has_interval else a

    @property
    def interval_unit(self) -> str | None:
        """What one unit of the interval is, in words; None where the source gives totals only."""
        if not self.has_counts or not self.requests:
            return None
        return cluster_keys(self.prompts if len(self.prompts) == len(self.requests) else [None] * len(self.requests))[1]

    @property
    def rates_fall(self) -> bool | None:
        """True where the conditional acceptance at the last position is clearly below the first;
        None where the source has no per-position counts to tell."""
        c = self.counts
        cond, steps = c.per_position_conditional, c.steps
        rates = c.per_position_rates
        if cond is None or rates is None or not steps or len(cond) < 2 or not self.has_counts:
            return None
        reached = [steps] + [r * steps for r in rates]  # steps that reached each position
        first, last = cond[0], cond[-1]
        n_first, n_last = reached[0], reached[len(cond) - 1]
        if not (n_first > 0 and n_last > 0) or math.isnan(first) or math.isnan(last):
            return None
        se = math.sqrt(max(0.0, first * (1 - first) / n_first + last * (1 - last) / n_last))
        return first - last > max(2.0 * se, _FALL_MARGIN)

    @property
    def alpha_applied(self) -> float | None:
        c = self.counts
        if self.rates_fall and c.alpha_e_matched is not None:
            return c.alpha_e_matched
        return c.alpha

    @property
    def alpha_rule(self) -> str:
        c = self.counts
        if c.predicted_outputs:
            return "none: Predicted Outputs measure the caller's prediction, not a draft model"
        if c.k is None:
            return "unknown until K is known: alpha needs K (pass --k); the figures above need none"
        if c.alpha is None and c.steps_range is not None and c.steps is None:
            return "none: the verify steps are bounded, not counted, so alpha needs per-step counts (the rate is exact)"
        if c.alpha is None:
            return "none: the counts do not fit K (more tokens per step than K + 1)"
        if self.rates_fall and c.alpha_e_matched is not None:
            return (f"E-matched: per-position rates fall along the stretch, so the i.i.d. alpha is a summary; "
                    f"applied is the alpha whose E at K = {c.k} equals the measured mean acceptance length")
        if c.rejection_range is not None:
            return "maximum likelihood on the histogram (i.i.d. model)" + _truncation_words(c)
        return f"from the mean acceptance length at K = {c.k} (i.i.d. model)"

    @property
    def profile(self) -> tuple[float, ...]:
        """What measured_apply sets as the class's profile: the conditional rate at every position 1..K the
        source counted (vLLM's per-position counters, a histogram), so E at K is the measured one and other
        K values extend the measured shape; () where it did not count every position."""
        c = self.counts
        cond = c.per_position_conditional
        if not self.has_counts or self.alpha_applied is None or cond is None or not c.k or len(cond) != c.k:
            return ()
        if not all(0.0 <= x <= 1.0 for x in cond):  # NaN (a position no step reached) fails too
            return ()
        return tuple(float(x) for x in cond)

    @property
    def acceptance_length(self) -> float | None:
        """A source with a mean acceptance length but no per-position counts applies that length at its K."""
        c = self.counts
        e = c.mean_acceptance_length
        if self.profile or self.alpha_applied is None or not c.k or e is None or not 1.0 <= e <= c.k + 1.0:
            return None
        return float(e)

    @property
    def mean_acceptance_length_interval(self) -> list[float] | None:
        """The interval on E at the source's K from its per-request counts, the unit as for alpha's: what
        measured_apply keeps beside the profile or length this source applies, which then decides E (without
        it the comparison read that E as exact, the alpha interval beside it unused). None where there is no
        profile or length, or no per-request counts (a scrape, a log line), or too few requests."""
        c = self.counts
        if not (self.profile or self.acceptance_length is not None) or not self.requests or not c.k:
            return None
        accepted = [r.accepted for _, r in self.requests]
        steps = [r.steps for _, r in self.requests]
        if c.drafts is None and c.draft_tokens is not None:
            # the class's steps are its draft tokens / K (llama.cpp responses not all pinned by their completion
            # tokens, model/engines/recorded.py's reader says which), and so is its E: each request's on the same footing, or the interval is
            # about another E (a real llama.cpp run: 4.41-4.59 beside 4.592, which the workbook refused to apply)
            steps = [r.draft_tokens / c.k if r.draft_tokens is not None else None for _, r in self.requests]
        if any(a is None for a in accepted) or any(s is None for s in steps):
            return None
        keys, unit = cluster_keys(self.prompts if len(self.prompts) == len(self.requests) else [None] * len(self.requests))
        try:
            e = length_interval(accepted, steps, c.k, self.confidence, clusters=keys if unit != UNIT_REQUEST else None)
        except ValueError:  # counts that do not fit K (more accepted than K a step): no interval, the alpha says why
            return None
        return [float(e.low), float(e.high)] if e.has_interval else None  # type: ignore[arg-type]

    @property
    def acceptance_length_k(self) -> int | None:
        return int(self.counts.k) if self.acceptance_length is not None else None

    @property
    def stretches(self) -> float:
        """For measured_apply: a source with no steps (or no K) has nothing to apply."""
        return (self.counts.steps or 0.0) if self.alpha_applied is not None else 0.0

    @property
    def alpha(self) -> float:
        """What measured_apply sets: the applied alpha, NaN where there is none."""
        value = self.alpha_applied
        return math.nan if value is None else value

    def to_dict(self) -> dict[str, Any]:
        c = self.counts
        notes = list(self.notes)
        if self.rates_fall:
            notes.append("per-position acceptance falls along the stretch: the i.i.d. alpha is a summary; "
                         "the class's speedup uses the empirical mean acceptance length")
        elif self.rates_fall is None and not c.predicted_outputs:
            notes.append("no per-position counts: whether acceptance falls along the stretch cannot be told")
        truncation = truncation_note(c)
        if truncation:
            notes.append(truncation)
        hist = c.stretch_histogram
        low_high = c.alpha_range
        return {
            "file": self.file, "engine": self.engine, "kind": self.kind, "format": self.format, "model": self.model,
            "task_class": self.task_class, "k": c.k,
            "drafts": _num(c.steps) if self.has_counts else None,
            "draft_tokens": _num(c.draft_tokens if c.draft_tokens is not None else
                                 (c.steps * c.k if c.steps is not None and c.k else None)) if self.has_counts else None,
            "accepted_tokens": _num(c.accepted) if self.has_counts else None,
            "alpha": _num(c.alpha), "alpha_convention": "per-token alpha (i.i.d. model)",
            "draft_acceptance_rate": _num(c.draft_acceptance_rate),
            "draft_acceptance_rate_convention": "accepted / drafted tokens (vLLM); equals the trailer fill",
            "mean_acceptance_length": _num(c.mean_acceptance_length),
            "mean_acceptance_length_convention": "1 + accepted / verify steps, bonus token included (vLLM, Spec-Bench); equals E",
            "mean_acceptance_length_range": _nums(c.mean_acceptance_length_range),
            "alpha_e_matched": _num(c.alpha_e_matched),
            "alpha_range": [_num(x) for x in low_high] if low_high and low_high[1] - low_high[0] > 1e-12 else None,
            "rejecting_steps": _nums(c.rejection_range), "short_drafts_told_apart": c.truncation_known
            if c.rejection_range is not None else None,
            "alpha_applied": _num(self.alpha_applied), "alpha_applied_rule": self.alpha_rule,
            "per_position": _nums(c.per_position_conditional),
            "per_position_engine": _nums(c.per_position_rates),
            "per_position_engine_convention": "accepted at position i / verify steps (cumulative)",
            "per_position_falls": self.rates_fall,
            "histogram": _nums(hist) if hist is not None and self.has_counts else None,
            "engine_values": {k: _num(v) if isinstance(v, (int, float)) else v for k, v in c.engine_values.items()},
            "requests": len(self.requests) or None,
            **_interval_fields(self),
            "mean_acceptance_length_interval": self.mean_acceptance_length_interval,
            "convention_note": c.convention_note,
            "notes": notes,
        }


def _truncation_words(c: SpecCounts) -> str:
    if c.rejections is not None:
        return "; the source counts the steps that rejected, so a draft cut short and wholly accepted is no rejection"
    if c.truncation_known:
        return ""
    return "; every step that may have rejected counted as one (the low end)"


def truncation_note(c: SpecCounts) -> str | None:
    """What the alpha assumed about drafts shorter than K, where that matters; None where nothing was assumed."""
    rng, k = c.rejection_range, c.k
    if not k or c.predicted_outputs or c.rejections is not None:
        return None
    if rng is None:
        steps = c.steps if c.drafts is not None else None  # steps = draft tokens / K assumes full drafts: no check
        if steps and c.draft_tokens is not None and steps * k - c.draft_tokens > 1e-9 and c.alpha is not None:
            return (f"{steps * k - c.draft_tokens:g} of {steps * k:g} draft slots were never drafted (drafts cut short); "
                    f"alpha from the mean acceptance length at K = {k} takes every draft as K long, so it is biased low "
                    "(a per-position or per-step count would tell)")
        return None
    steps = c.steps or 0.0
    if c.draft_tokens is None:
        return ("this source does not count draft tokens, so a draft cut short (token budget, end of context, a "
                "draft-confidence floor) cannot be told from a rejection: alpha counts each step that accepted fewer than "
                f"K = {k} as a rejection, which biases it low where drafts were cut short")
    cut = steps * k - c.draft_tokens
    if cut <= 1e-9:
        return None  # every draft was K long: the histogram's short steps are rejections
    if c.truncation_known:
        return (f"{cut:g} of {steps * k:g} draft slots were never drafted (drafts cut short); the counts show which "
                "short steps were rejections, so alpha counts only those")
    low, high = c.alpha_range or (math.nan, math.nan)
    return (f"{cut:g} of {steps * k:g} draft slots were never drafted (drafts cut short: token budget, end of context, "
            f"a draft-confidence floor); these counts cannot tell a draft cut short and wholly accepted from a rejection, "
            f"so {rng[0]:.1f} to {rng[1]:.1f} steps rejected and alpha lies in {100 * low:.1f}% to {100 * high:.1f}%; "
            "the low end is applied")


def _interval_fields(source: "SourceResult") -> dict[str, Any]:
    a = source.acceptance
    return {"alpha_interval": list(a.interval) if a.interval else None, "interval_note": a.note or None,
            "confidence": source.confidence, "interval_method": a.method or None, "interval_unit": source.interval_unit,
            "prompts": a.prompts}


def _num(x: float | None) -> float | None:
    """A JSON number: a whole number as an int (counts read back as counts), None where not finite."""
    x = finite_or_none(x)
    return None if x is None else int(x) if x.is_integer() and abs(x) < 2**53 else x


def _nums(xs: tuple[float, ...] | None) -> list[float | None] | None:
    return None if xs is None else [_num(x) for x in xs]


def k_mismatch_lines(applied: Sequence[SourceResult], tiers: Sequence[Any]) -> list[str]:
    """Where the applied acceptance is used at a K other than the one it was measured at: per source, each of
    ``tiers`` (the tier applied to, or every tier for a class-level apply) that drafts at another K, with what its
    numbers there are (model/acceptance/k_check.py). Tiers are read by their fields (name, k, speculative)."""
    out = []
    for s in applied:
        kind = "profile" if s.profile else "length" if s.acceptance_length is not None else "alpha"
        for t in tiers:
            if getattr(t, "speculative", "yes") == "no":
                continue
            m = k_mismatch(s.counts.k, "metrics", t.k, len(s.profile), kind)
            if m is not None:
                out.append(f"{s.task_class} on {t.name}: {m.text}")
    return out
