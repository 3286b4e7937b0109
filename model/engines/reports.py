"""Acceptance counts as inference engines report them, brought to the three conventions
(docs/design/arithmetic.md#the-three-conventions).

`SpecCounts` holds what a source counted (verify steps that drafted, draft tokens, accepted draft tokens,
accepted per draft position, the histogram of accepted drafts per step) and converts it with
model.mechanics.arithmetic: per-token alpha, draft acceptance rate (= trailer fill), mean acceptance length (= E).
model.engines.responses reads the speculation fields one response carries (body and headers) into them, for
the probe's "alpha reported by the server" and the per-request records that `import-metrics` reads.

Engines disagree on what "acceptance" means, so each parser writes down the engine's own
definition and the source it was read from. Position numbers are 1-based here; an engine's
"accepted at position i" counts a step only when every earlier draft of that step was accepted too
(cumulative), so the conditional rate is r_i / r_(i-1).

Core module: imports model.mechanics.arithmetic and the standard library only; reading one response is model.engines.responses.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from model.mechanics import arithmetic as ar

VLLM_NOTE = ("vLLM: draft acceptance rate = accepted / draft tokens; mean acceptance length = 1 + accepted / drafts "
             "(bonus token included); per-position rate = accepted at position i / drafts, cumulative; draft tokens are "
             "those proposed (a draft shorter than K counts its own length) and drafts the steps that proposed any")
SGLANG_NOTE = ("SGLang: accept length = completion tokens / verify steps (bonus token included); accept rate = "
               "accepted drafts / (verify steps x (speculative_num_draft_tokens - 1)); histogram = steps by accepted drafts; "
               "proposed drafts are K a step whatever was drafted, so a draft cut short cannot be told from a rejection")
TRTLLM_NOTE = ("TensorRT-LLM: acceptance rate = accepted draft tokens / draft tokens; acceptance length = 1 + "
               "accepted / requests-with-drafts per iteration (bonus token included); no step count, so steps = draft tokens / K")
LLAMACPP_NOTE = ("llama.cpp: draft_n = draft tokens, draft_n_accepted = accepted draft tokens; no step count, "
                 "so steps = draft_n / K (drafts cut short by the token budget or --draft-p-min make that an undercount)")
PREDICTED_NOTE = ("OpenAI Predicted Outputs: accepted / (accepted + rejected) prediction tokens measure a prediction "
                  "the caller sent, not the vendor's draft model; not a speculative-decoding alpha")
FIREWORKS_NOTE = ("Fireworks (undocumented header fireworks-speculation-acceptance, 'position:accepted/attempted'): "
                  "read as cumulative counts per draft position; steps = attempts at position 1")


class ReportError(ValueError):
    """A speculation field that is present but cannot be read; the message names the field."""


@dataclass(frozen=True)
class SpecCounts:
    """What one source counted. Counts are floats because sums over scrapes can be fractional in logs.

    `drafts` are verify steps that drafted (stretches); `per_position_accepted[i-1]` counts the steps
    whose draft i was accepted (cumulative: drafts 1..i all accepted); `histogram[j]` counts steps
    that accepted exactly j of K drafts. Any of them may be None when the source does not have it.
    `engine_values` keeps the engine's own numbers as it printed them, to show beside ours.
    """

    engine: str
    k: int | None = None
    drafts: float | None = None
    draft_tokens: float | None = None
    accepted_tokens: float | None = None
    per_position_accepted: tuple[float, ...] | None = None
    histogram: tuple[float, ...] | None = None
    convention_note: str = ""
    engine_values: Mapping[str, Any] = field(default_factory=dict)
    predicted_outputs: bool = False  # OpenAI Predicted Outputs: no alpha, whatever K is
    histogram_partial: bool = False  # the histogram covers only some steps (vLLM's full drafts): not checked against them
    # verify steps that rejected a draft, where the source tells them from drafts cut short and wholly accepted
    # (vLLM's histogram by draft length, llama.cpp's LLAMA_TRACE step lines); else bounded by `rejection_range`
    rejections: float | None = None
    rejection_bounds: tuple[float, float] | None = None  # the parts' ranges added up (combine), tighter than the sums'
    k_at_least: int | None = None  # K unknown but at least this (llama.cpp's statistics line); K given must reach it
    # verify steps not counted but within (fewest, most) (llama.cpp timings with drafts of variable length): no point
    # is taken for them, so no mean acceptance length either, only its bounds (`mean_acceptance_length_range`)
    steps_range: tuple[float, float] | None = None

    # --- the counts, completed from one another where the source left one out --------------
    @property
    def steps(self) -> float | None:
        """Verify steps that drafted: given, or the histogram's total, or draft tokens / K (full drafts)."""
        if self.drafts is not None:
            return self.drafts
        if self.histogram is not None:
            return float(sum(self.histogram))
        if self.steps_range is not None:
            fewest, most = self._steps_bounds()
            return most if most - fewest <= 1e-9 else None  # pinned by K, else no point is invented
        if self.draft_tokens is not None and self.k:
            return self.draft_tokens / self.k
        return None

    def _steps_bounds(self) -> tuple[float, float]:
        fewest, most = self.steps_range or (0.0, 0.0)
        if self.k and self.draft_tokens is not None:  # no step drafts more than K
            fewest = max(fewest, math.ceil(self.draft_tokens / self.k - 1e-9))
        return fewest, most

    @property
    def mean_acceptance_length_range(self) -> tuple[float, float] | None:
        """(lowest, highest) mean acceptance length the counts allow where the steps are bounded, not counted; the
        highest is infinite where nothing bounds the steps from below (K unknown)."""
        if self.steps_range is None or self.accepted is None:
            return None
        fewest, most = self._steps_bounds()
        if most <= 0:
            return None
        return (1.0 + self.accepted / most, 1.0 + self.accepted / fewest if fewest > 0 else math.inf)

    @property
    def accepted(self) -> float | None:
        if self.accepted_tokens is not None:
            return self.accepted_tokens
        if self.histogram is not None:
            return float(sum(j * n for j, n in enumerate(self.histogram)))
        if self.per_position_accepted is not None:
            return float(sum(self.per_position_accepted))
        return None

    @property
    def stretch_histogram(self) -> tuple[float, ...] | None:
        """Steps by accepted drafts 0..K: given, or rebuilt exactly from cumulative per-position counts."""
        if self.histogram is not None:
            return self.histogram
        steps, pos = self.steps, self.per_position_accepted
        if pos is None or steps is None or self.k is None or len(pos) != self.k:
            return None
        reached = (steps, *pos, 0.0)  # reached[i] = steps with at least i accepted
        hist = tuple(reached[i] - reached[i + 1] for i in range(self.k + 1))
        if any(h < -1e-9 for h in hist):
            return None  # not cumulative after all (or counters from different moments): no histogram
        return tuple(max(h, 0.0) for h in hist)

    # --- the three conventions -------------------------------------------------------------
    @property
    def draft_acceptance_rate(self) -> float | None:
        """accepted / drafted tokens (vLLM's "draft acceptance rate"; the trailer fill)."""
        drafted = self.draft_tokens
        if drafted is None and self.steps is not None and self.k:
            drafted = self.steps * self.k
        accepted = self.accepted
        if accepted is None or not drafted:
            return None
        return accepted / drafted

    @property
    def mean_acceptance_length(self) -> float | None:
        """1 + accepted / steps: the empirical E, bonus token included, no i.i.d. assumption."""
        if self.predicted_outputs:
            return None
        steps, accepted = self.steps, self.accepted
        if not steps or accepted is None:
            return None
        return 1.0 + accepted / steps

    @property
    def rejection_range(self) -> tuple[float, float] | None:
        """Verify steps that rejected a draft: (fewest, most) the counts allow; None without a histogram at K.

        A step that accepted j < K drafts was rejected at draft j + 1, or its draft was cut short to j tokens (the
        token budget near max_tokens, the end of the context, a draft-confidence floor) and wholly accepted, which
        is no rejection. Where the source counts them (`rejections`) both ends are that count. Otherwise the draft
        tokens bound them: N steps of K slots drafted D tokens, so N K - D slots were cut; U = D - accepted drafts
        went unaccepted, and each rejection leaves at least one, so at most U steps rejected (all accepted: none).
        At fewest, the cut slots cover as many short steps as they can, those that accepted most first.
        """
        if self.rejections is not None:
            return (self.rejections, self.rejections)
        if self.rejection_bounds is not None:
            return self.rejection_bounds
        hist, k = self.stretch_histogram, self.k
        if hist is None or not k or len(hist) != k + 1 or self.histogram_partial:
            return None
        short = float(sum(hist[:-1]))
        if self.draft_tokens is None:
            return (short, short)  # full drafts assumed: `truncation_known` says the source cannot tell
        accepted = float(sum(j * n for j, n in enumerate(hist)))
        cut = max(float(sum(hist)) * k - self.draft_tokens, 0.0)
        unaccepted = max(self.draft_tokens - accepted, 0.0)
        most = min(short, unaccepted)
        covered, left = 0.0, cut
        for j in range(k - 1, 0, -1):  # a step that accepted j of a draft cut to j tokens used K - j cut slots
            take = min(hist[j], math.floor(left / (k - j) + 1e-9))  # whole steps: a draft is cut short or not
            covered, left = covered + take, left - take * (k - j)
        fewest = max(short - covered, min(unaccepted, 1.0))
        return (min(fewest, most), most)

    @property
    def truncation_known(self) -> bool:
        """Whether the steps that rejected are known exactly: counted by the source, or forced by its counts (no
        draft was cut short, or every drafted token was accepted). False where the source has no draft tokens
        to tell a draft cut short from a rejection, or where its counts leave a range."""
        if self.rejections is not None:
            return True
        rng = self.rejection_range
        return rng is not None and self.draft_tokens is not None and rng[1] - rng[0] <= 1e-9 * max(rng[1], 1.0)

    @property
    def _alpha_accepted(self) -> float | None:
        # with a histogram its own accepted drafts (a partial one comes with counted rejections, which use all)
        if self.rejections is None and self.stretch_histogram is not None:
            return float(sum(j * n for j, n in enumerate(self.stretch_histogram)))
        return self.accepted

    def _alpha_at(self, rejections: float) -> float | None:
        accepted = self._alpha_accepted
        if accepted is None or accepted + rejections <= 0:
            return None
        return accepted / (accepted + rejections)

    @property
    def alpha(self) -> float | None:
        """Per-token alpha: the maximum-likelihood rule (accepted / (accepted + rejecting steps)) where the steps
        that rejected are known or bounded, counting every step that may have rejected as one (the low end of
        `alpha_range`, the pessimistic figure); else the alpha whose E(alpha, K) equals the mean acceptance
        length. None without K or without steps."""
        if self.predicted_outputs or not self.k:
            return None
        rng = self.rejection_range
        if rng is not None:
            return self._alpha_at(rng[1])
        return self.alpha_e_matched

    @property
    def alpha_range(self) -> tuple[float, float] | None:
        """(low, high) alpha over the rejections the counts allow; None where alpha is not from rejections."""
        rng = self.rejection_range
        if self.predicted_outputs or not self.k or rng is None:
            return None
        low, high = self._alpha_at(rng[1]), self._alpha_at(rng[0])
        return None if low is None or high is None else (low, high)

    @property
    def alpha_trials(self) -> tuple[float, float] | None:
        """(accepted drafts, accepted + rejecting steps) behind `alpha`, for an interval over requests."""
        rng, accepted = self.rejection_range, self._alpha_accepted
        if self.predicted_outputs or not self.k or rng is None or accepted is None:
            return None
        return (accepted, accepted + rng[1])

    @property
    def alpha_e_matched(self) -> float | None:
        """The alpha that reproduces the measured mean acceptance length at this K."""
        length = self.mean_acceptance_length
        if length is None or not self.k:
            return None
        solve = ar.mean_acceptance_length_to_alpha(length, self.k)
        if int(solve.kind) == ar.NEVER:
            return None  # more tokens per step than K + 1: the K is wrong; callers say so
        return float(solve.alpha)

    @property
    def per_position_rates(self) -> tuple[float, ...] | None:
        """The engine's own per-position rate: accepted at position i / steps (cumulative)."""
        steps, pos = self.steps, self.per_position_accepted
        if pos is None and self.stretch_histogram is not None:
            hist = self.stretch_histogram
            tail, sums = 0.0, []
            for h in reversed(hist[1:]):  # steps accepting at least i drafts: one pass, linear in K
                tail += h
                sums.append(tail)
            pos = tuple(reversed(sums))
        if pos is None or not steps:
            return None
        return tuple(p / steps for p in pos)

    @property
    def per_position_conditional(self) -> tuple[float, ...] | None:
        """P(draft i accepted | drafts before it accepted) = r_i / r_(i-1); NaN where no step got that far."""
        rates = self.per_position_rates
        if rates is None:
            return None
        out, before = [], 1.0
        for r in rates:
            out.append(r / before if before > 0 else math.nan)
            before = r
        return tuple(out)


def combine(parts: Iterable[SpecCounts]) -> SpecCounts:
    """The counts of several records of one source added up (a class's requests, a run's log lines).

    A field is kept only if every part has it; K must agree (ReportError otherwise).
    """
    items = list(parts)
    if not items:
        raise ReportError("nothing to add up")
    ks = {p.k for p in items if p.k is not None}
    if len(ks) > 1:
        raise ReportError(f"records disagree on K ({', '.join(str(k) for k in sorted(ks))}); import them separately")

    def total(name: str) -> float | None:
        values = [getattr(p, name) for p in items]
        return None if any(v is None for v in values) else float(sum(values))

    def vector_total(name: str) -> tuple[float, ...] | None:
        vectors = [getattr(p, name) for p in items]
        if any(v is None for v in vectors):
            return None
        width = max(len(v) for v in vectors)
        return tuple(sum(v[i] if i < len(v) else 0.0 for v in vectors) for i in range(width))

    first = items[0]
    ranges = [p.rejection_range for p in items]
    bounds = None  # each request's range: a draft cut short is placed within its own request, not across them
    if all(r is not None for r in ranges):
        bounds = (float(sum(r[0] for r in ranges)), float(sum(r[1] for r in ranges)))  # type: ignore[index]
    return replace(first, rejection_bounds=bounds, k=next(iter(ks), None), drafts=total("drafts"), draft_tokens=total("draft_tokens"),
                   accepted_tokens=total("accepted_tokens"), per_position_accepted=vector_total("per_position_accepted"),
                   histogram=vector_total("histogram"), engine_values=first.engine_values if len(items) == 1 else {},
                   histogram_partial=any(p.histogram_partial for p in items), rejections=total("rejections"),
                   k_at_least=max((p.k_at_least for p in items if p.k_at_least), default=None),
                   steps_range=_steps_range_total(items))


def _steps_range_total(items: list[SpecCounts]) -> tuple[float, float] | None:
    """The parts' step bounds added up (a part that counted its steps is its own bounds); None where no part has
    bounds, or one has neither bounds nor a count."""
    if all(p.steps_range is None for p in items):
        return None
    ranges = [p.steps_range or ((p.drafts, p.drafts) if p.drafts is not None else None) for p in items]
    if any(r is None for r in ranges):
        return None
    return (float(sum(r[0] for r in ranges)), float(sum(r[1] for r in ranges)))  # type: ignore[index]


def with_k(counts: SpecCounts, k: int | None) -> SpecCounts:
    """The counts with K given by the user; ReportError when the source's own K says otherwise."""
    if k is None:
        return counts
    pos = counts.per_position_accepted
    if counts.k_at_least is not None:
        if k < counts.k_at_least:
            raise ReportError(f"K = {k} was given but the {counts.engine} source shows K is at least {counts.k_at_least}")
        if pos is not None and len(pos) < k:  # positions past the longest accepted run: none accepted there
            counts = replace(counts, per_position_accepted=pos + (0.0,) * (k - len(pos)))
    if counts.per_position_accepted is not None and len(counts.per_position_accepted) != k:
        raise ReportError(f"K = {k} was given but the source has {len(counts.per_position_accepted)} draft positions")
    if counts.histogram is not None and len(counts.histogram) > k + 1:
        raise ReportError(f"K = {k} was given but the histogram has {len(counts.histogram)} entries (K + 1 expected)")
    if counts.k is not None and counts.k != k:
        raise ReportError(f"K = {k} was given but the {counts.engine} source reports K = {counts.k}")
    hist = counts.histogram
    if hist is not None and len(hist) < k + 1:
        hist = hist + (0.0,) * (k + 1 - len(hist))
    return replace(counts, k=k, histogram=hist)
