"""The quality test at the probe's temperature, from the recorded requests (docs/design/quality.md).

Which test runs, and why:
- the fast tier's stream gave top logprobs on its sampled tokens: the logprob score test (model.quality.score_test)
  of its draws against the distribution it reports. Where the baseline's stream gives them too, its draws are
  tested the same way first: a baseline that fails it shows the stream's logprobs do not describe its own draws
  (an engine that reports them before the temperature is applied), and then the tiers are compared with each other
  instead, the per-request mean score joining the two-sample statistics;
- no top logprobs: the two-sample permutation test of the fast tier's samples against the baseline's on the same
  prompts (model.quality.sample_test), the baseline's greedy answer as the greedy continuation.
A prompt sent at several contexts is a different prompt for these tests: its (text, context) is the unit.
"""
from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

from model.probe.events import BASELINE, FAST, RequestRecord
from model.quality.sample_test import Sample, sample_test
from model.quality.score_test import ReportedRequest, TokenReport, Tokens, score_test
from model.quality.verdict import SCORE_TEST, SIZE, TWO_SAMPLE, QualityVerdict, decide

MIN_REPORTED_SHARE = 0.9  # of a tier's sampled tokens with top logprobs, for the score test to run


def _unit(r: RequestRecord) -> Hashable:
    return (r.prompt_key or f"#{r.prompt_index}", r.context)


def sampled(records: Sequence[RequestRecord], role: str) -> list[RequestRecord]:
    return [r for r in records if r.ok and r.role == role and (r.temperature or 0) > 0]


def reported(record: RequestRecord) -> ReportedRequest | None:
    """The record's tokens as the score test reads them; None when some content event has no top logprobs."""
    tokens: list[TokenReport] = []
    for e in record.content_events:
        if e.top is None or e.ranks is None:
            return None
        tokens.extend(TokenReport(tuple(top), rank) for top, rank in zip(e.top, e.ranks))
    return ReportedRequest(_unit(record), tuple(tokens))


def _reported_all(records: list[RequestRecord]) -> list[ReportedRequest] | None:
    out = [x for x in (reported(r) for r in records) if x is not None]
    total = sum(len(r.output_text) > 0 for r in records)
    return out if out and len(out) >= MIN_REPORTED_SHARE * max(total, 1) else None


def _mean_score(request: ReportedRequest) -> float:
    scores, _ = Tokens.of(request.tokens).scores() if request.tokens else (np.zeros(0), None)
    return float(scores.mean()) if len(scores) else 0.0


def quality_of(records: Sequence[RequestRecord], temperature: float, confidence: float = 0.95,
               size: float = SIZE) -> QualityVerdict | None:
    """The verdict for the run's sampled requests; None for a greedy run (no request at a temperature)."""
    fast, base = sampled(records, FAST), sampled(records, BASELINE)
    if temperature <= 0 or not fast:
        return None
    fast_rep = _reported_all(fast)
    base_rep = _reported_all(base) if base else None
    if fast_rep is not None:
        result = score_test(fast_rep, confidence)
        base_result = score_test(base_rep, confidence) if base_rep is not None else None
        if base_result is None or base_result.p_value >= 1 - confidence:
            why = ("the stream reports top logprobs: the fast tier's draws are tested against the distribution it "
                   "reports")
            if base_result is not None:
                why += f", and the baseline's draws pass the same test (p = {base_result.p_value:.2f})"
            per_request = result.tokens / max(result.requests, 1)
            need = result.tokens_for(size, confidence)
            verdict, more = decide(result.p_value, result.detectable_beta, confidence,
                                   need / per_request if need is not None and per_request else None,
                                   result.requests, size)
            return QualityVerdict(temperature, SCORE_TEST, why, result.tokens, result.requests, result.statistic,
                                  result.p_value, verdict, result.detectable_beta, confidence, size, more)
        why = (f"the baseline's own draws do not follow its reported logprobs (p = {base_result.p_value:.3f}; "
               "an engine that reports them before the temperature), so the tiers are compared with each other")
        return _two_sample(records, fast, base, temperature, confidence, size, why,
                           {id(r): _mean_score(x) for r, x in zip(fast + base, fast_rep + base_rep)
                            if x is not None} if len(fast_rep) == len(fast) and len(base_rep) == len(base) else None)
    if not base:
        return QualityVerdict(temperature, TWO_SAMPLE, "the stream gives no top logprobs and there is no baseline "
                              "to compare with: nothing to test against", None, len(fast), 0.0, 1.0, "undecided",
                              None, confidence, size)
    return _two_sample(records, fast, base, temperature, confidence, size,
                       "the stream gives no top logprobs: the fast tier's samples are compared with the baseline's "
                       "on the same prompts", None)


def _two_sample(records: Sequence[RequestRecord], fast: list[RequestRecord], base: list[RequestRecord],
                temperature: float, confidence: float, size: float, why: str,
                scores: dict[int, float] | None) -> QualityVerdict:
    greedy = {_unit(r): r.output_text for r in records
              if r.ok and r.role == BASELINE and not (r.temperature or 0) > 0}
    samples = [Sample(_unit(r), r.role == FAST, r.output_text, (scores[id(r)],) if scores else ())
               for r in fast + base]
    result = sample_test(samples, greedy, confidence, ("logprob score",) if scores else ())
    need = result.requests_for(size, confidence)
    verdict, more = decide(result.p_value, result.detectable_beta, confidence, need, result.requests, size)
    return QualityVerdict(temperature, TWO_SAMPLE, why, None, result.requests, result.statistic, result.p_value,
                          verdict, result.detectable_beta, confidence, size, more)
