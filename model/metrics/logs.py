"""Engine log lines that report speculative decoding, one interval per line.

- vLLM (vllm/v1/spec_decode/metrics.py, SpecDecodingLogging.log; v0.9 to v0.11 and main), one line per
  logging interval with the interval's own counts:
  "SpecDecoding metrics: Mean acceptance length: 2.71, Accepted throughput: ... tokens/s, Drafted
  throughput: ... tokens/s, Accepted: 1713 tokens, Drafted: 3000 tokens, Per-position acceptance rate:
  0.850, 0.571, 0.292, Avg Draft acceptance rate: 57.1%". Mean acceptance length = 1 + accepted /
  drafts; the per-position rates are accepted at position i / drafts (cumulative), one per draft
  position, so K is their number. The lines add up: each counts only its own interval.
- SGLang (scheduler, log_decode_stats): "Decode batch. #running-req: 8, #token: ..., accept len: 3.12,
  accept rate: 0.53, ...": accept len = accepted tokens (bonus included) / verify steps, accept rate =
  accepted drafts / (verify steps x (speculative_num_draft_tokens - 1)), both over the interval. The
  lines carry no counts, so they are averaged with equal weight; K = (accept len - 1) / accept rate.
"""
from __future__ import annotations

import re

from model.engine_reports import SGLANG_NOTE, VLLM_NOTE, SpecCounts, combine
from model.metrics.result import MetricsError

_VLLM = re.compile(r"SpecDecoding metrics:(?P<rest>.*)")
_VLLM_LENGTH = re.compile(r"Mean acceptance length:\s*(?P<v>[0-9.]+)")
_VLLM_ACCEPTED = re.compile(r"Accepted:\s*(?P<v>[0-9]+) tokens")
_VLLM_DRAFTED = re.compile(r"Drafted:\s*(?P<v>[0-9]+) tokens")
_VLLM_POS = re.compile(r"Per-position acceptance rate:\s*(?P<v>[0-9.]+(?:\s*,\s*[0-9.]+)*)")
_SGLANG = re.compile(r"Decode batch\..*?accept len:\s*(?P<len>[0-9.]+)(?:,\s*accept rate:\s*(?P<rate>[0-9.]+))?")


def engine_of_log(text: str) -> str | None:
    if _VLLM.search(text):
        return "vllm"
    if _SGLANG.search(text):
        return "sglang"
    return None


def read_vllm_log(text: str, file: str, k: int | None) -> tuple[SpecCounts, list[str]]:
    parts: list[SpecCounts] = []
    notes: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _VLLM.search(line)
        if not m:
            continue
        rest = m.group("rest")
        found = [rx.search(rest) for rx in (_VLLM_LENGTH, _VLLM_ACCEPTED, _VLLM_DRAFTED, _VLLM_POS)]
        if any(f is None for f in found):
            raise MetricsError(f"{file}:{number}: a SpecDecoding metrics line without the mean acceptance length, "
                               "Accepted, Drafted and Per-position fields")
        length, accepted, drafted = (float(f.group("v")) for f in found[:3])  # type: ignore[union-attr]
        rates = tuple(float(x) for x in found[3].group("v").split(","))  # type: ignore[union-attr]
        line_k = len(rates)
        if k is not None and k != line_k:
            raise MetricsError(f"{file}:{number}: --k {k} was given but the line has {line_k} per-position rates (K = {line_k})")
        if drafted == 0:
            continue  # an interval without drafts adds nothing
        drafts = drafted / line_k  # vLLM drafts K tokens per step
        if length > 1.0 and abs(1.0 + accepted / drafts - length) > 0.006:
            # shorter drafts (n-gram) make drafted / K an undercount: the printed length knows better
            drafts = accepted / (length - 1.0)
            if not notes:
                notes.append(f"{file}:{number}: drafted / K disagrees with the printed mean acceptance length "
                             "(drafts shorter than K); steps taken from the mean acceptance length")
        pos, before = [], drafts
        for r in rates:  # printed to 3 decimals: keep them cumulative
            before = min(before, r * drafts)
            pos.append(before)
        parts.append(SpecCounts(engine="vllm", k=line_k, drafts=drafts, draft_tokens=drafted, accepted_tokens=accepted,
                                per_position_accepted=tuple(pos), convention_note=VLLM_NOTE))
    if not parts:
        raise MetricsError(f"{file}: its SpecDecoding metrics lines all have zero drafted tokens: nothing was drafted")
    try:
        total = combine(parts)
    except ValueError as exc:
        raise MetricsError(f"{file}: {exc}") from None
    notes.append(f"{len(parts)} vLLM log intervals added up; per-position rates printed to 3 decimals")
    return total, notes


def read_sglang_log(text: str, file: str, k: int | None) -> tuple[SpecCounts, list[str]]:
    lengths, rates, ks = [], [], set()
    for number, line in enumerate(text.splitlines(), 1):
        m = _SGLANG.search(line)
        if not m:
            continue
        length = float(m.group("len"))
        if length <= 0:
            continue  # an interval with no verify step
        lengths.append(length)
        if m.group("rate") is not None:
            rate = float(m.group("rate"))
            rates.append(rate)
            if rate > 0:
                guess = (length - 1.0) / rate
                ks.add(round(guess) if abs(guess - round(guess)) < 0.15 * max(guess, 1.0) else None)
    if not lengths:
        raise MetricsError(f"{file}: its Decode batch lines have no accept len above 0: nothing was verified")
    notes = [f"{len(lengths)} SGLang log lines averaged with equal weight (the lines carry no counts)"]
    length = sum(lengths) / len(lengths)
    rate = sum(rates) / len(rates) if rates else None
    guessed = ks - {None}
    if k is None and len(guessed) == 1 and None not in ks:
        k = guessed.pop()
        notes.append(f"K = {k} read from (accept len - 1) / accept rate")
    elif k is not None and len(guessed) == 1 and k not in guessed:
        notes.append(f"warning: --k {k} but (accept len - 1) / accept rate suggests K = {next(iter(guessed))}")
    counts = SpecCounts(engine="sglang", k=k, drafts=1.0, accepted_tokens=length - 1.0,
                        draft_tokens=(length - 1.0) / rate if rate else None, convention_note=SGLANG_NOTE,
                        engine_values={"accept len (mean of lines)": length,
                                       **({"accept rate (mean of lines)": rate} if rate is not None else {})})
    return counts, notes
