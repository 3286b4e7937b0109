"""Reading one figure out of a log line: found by a linear pattern, parsed strictly, refused with file:line:field.

Every pattern here is anchored on a fixed label and takes one run of non-separator characters, so a
search costs one pass over the line whatever it holds (a 260 KB line of repeated labels included). The
figure is then parsed on its own: "1.2.3", "nan", "inf", a negative or a count past 2^53 is refused in
one line naming the file, the line and the field, and is never turned into an acceptance.
"""
from __future__ import annotations

import math
import re

from model.engines.spec_checks import MAX_COUNT, MAX_K
from model.metrics.result import MetricsError

_TOKEN = r"([^\s,;()%]+)"


def label(text: str) -> re.Pattern[str]:
    """`<text>` followed by a figure; the figure is group 1."""
    return re.compile(re.escape(text) + r"\s*" + _TOKEN)


def figure(raw: str, where: str, field: str, *, whole: bool = False, at_most: float | None = None) -> float:
    """A non-negative finite figure, or MetricsError naming where and the field."""
    text = raw.strip().rstrip(".")
    try:
        value = float(text)
    except ValueError:
        raise MetricsError(f"{where}: {field}: {_shown(raw)} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise MetricsError(f"{where}: {field}: {_shown(raw)} is not a count or rate (negative, NaN or infinite)")
    if value > MAX_COUNT:
        raise MetricsError(f"{where}: {field}: {_shown(raw)} is past 2^53, not a count a server keeps")
    if whole and value != int(value):
        raise MetricsError(f"{where}: {field}: {_shown(raw)} is not a whole number of tokens")
    if at_most is not None and value > at_most + 1e-9:
        raise MetricsError(f"{where}: {field}: {_shown(raw)} is above {at_most:g}, which a rate cannot be")
    return value


def found(pattern: re.Pattern[str], line: str, where: str, field: str, **kw: object) -> float | None:
    """The labelled figure when the line has the label, else None (the caller decides: cut line, or optional)."""
    m = pattern.search(line)
    return None if m is None else figure(m.group(1), where, field, **kw)  # type: ignore[arg-type]


def rate_list(text: str, where: str, field: str) -> tuple[float, ...]:
    """'0.850, 0.571, 0.292' as rates in 0..1; an empty list for ''."""
    parts = [p for p in (x.strip() for x in text.split(",")) if p]
    return tuple(figure(p, where, f"{field}[{i}]", at_most=1.0) for i, p in enumerate(parts))


def cumulative_counts(rates: tuple[float, ...], steps: float) -> tuple[float, ...]:
    """Per-position counts from printed (rounded) cumulative rates, kept non-increasing as counts must be."""
    out, before = [], steps
    for r in rates:
        before = min(before, r * steps)
        out.append(before)
    return tuple(out)


def block_k(rates: tuple[float, ...], drafts: float | None, draft_tokens: float | None, where: str,
            notes: list[str]) -> tuple[int | None, tuple[float, ...]]:
    """K and the per-position rates to use: K from the counts wins over a per-position block shorter than it.

    A block cut short (or relabelled) would set K to its length and make a profile with positions missing;
    the counts' K is used instead and the block is not, with a note saying so. A block no shorter than K,
    or counts that give no whole K, leave the block's length as K (count_problem checks the rest)."""
    counted = inferred_k(drafts, draft_tokens)
    if counted is not None and rates and len(rates) < counted:
        notes.append(f"{where}: the per-position block has {len(rates)} positions, but draft tokens / drafts = "
                     f"{draft_tokens:g} / {drafts:g} gives K = {counted}: the block is short of K, so K = {counted} "
                     "is used and the per-position rates are not")
        return counted, ()
    return (len(rates) or counted), rates


def _shown(raw: str) -> str:
    text = raw if len(raw) <= 40 else raw[:37] + "..."
    return repr(text)


def inferred_k(drafts: float | None, draft_tokens: float | None) -> int | None:
    """K where draft tokens / drafts is a whole number from 1 to 64: every draft then drafted K (a draft cut short
    would leave a fraction), so the file implies K; None otherwise. Callers say the K was inferred."""
    if not drafts or draft_tokens is None or draft_tokens <= 0 or not math.isfinite(drafts / draft_tokens):
        return None
    ratio = draft_tokens / drafts
    k = round(ratio)
    return k if abs(ratio - k) < 1e-9 and 1 <= k <= MAX_K else None
