"""The i.i.d. alpha that stands beside a profile or a mean acceptance length on a row (schema 2).

Everything that reads one number per class (the tables' alpha column, the i.i.d. curves) reads this
summary: the alpha whose E(alpha, K) equals the row's E at the K it was measured at (a profile's
length, a length's own K). The profile or the length is the measurement and wins
(docs/design/arithmetic.md#the-alpha-beside-a-profile): an alpha beside one must be its summary, within
SUMMARY_TOLERANCE. It is derived where a file gives a profile or a length without an alpha, and where a
measurement sets one (the probe's own alpha, a maximum-likelihood fit, is another number); a file whose alpha
contradicts its profile loads with the summary in its place and the row's source note saying so.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from model.common import formatting as fmt
from model.mechanics import arithmetic as ar

# half a percentage point: an alpha written to a whole percent beside its profile still agrees with it
SUMMARY_TOLERANCE = 0.005
_NOTE_LIMIT = 200  # a source note's length (model/workbook/validation.py)


def summary_alpha(profile: Sequence[float], length: float | None, length_k: int | None) -> float:
    """The alpha with the same E at the measured K as the profile (or the length); 1.0 at E = K + 1."""
    e, k = _measured(profile, length, length_k)
    solve = ar.mean_acceptance_length_to_alpha(min(e, k + 1.0), k)
    return float(solve.alpha) if int(solve.kind) != ar.NEVER else 1.0


def _measured(profile: Sequence[float], length: float | None, length_k: int | None) -> tuple[float, int]:
    if profile:
        return float(ar.profile_tokens(list(profile))), len(profile)
    if length is not None and length_k is not None:
        return float(length), int(length_k)
    raise ValueError("a profile or a mean acceptance length with its K is needed")


def _shape_of(row: Any) -> tuple[tuple[float, ...], float | None, int | None] | None:
    """A row's profile, length and length K where it holds one (a length needs its K); None for an alpha row."""
    profile = tuple(getattr(row, "profile", ()) or ())
    length, k = getattr(row, "acceptance_length", None), getattr(row, "acceptance_length_k", None)
    if profile or (length is not None and k is not None):
        return profile, length, k
    return None


def summary_fields(profile: Sequence[float], length: float | None, length_k: int | None,
                   e_low: float | None, e_high: float | None) -> dict[str, Any]:
    """The alpha and alpha range a row holding this profile or length carries: the summary, and the summaries of
    the interval's ends on E at the K measured (none where E has no interval). The same rule both ways, so the
    range holds the alpha whenever the interval on E holds E."""
    k = len(profile) if profile else length_k
    ends = (None, None)
    if e_low is not None and e_high is not None:
        ends = (summary_alpha((), e_low, k), summary_alpha((), e_high, k))
    return {"alpha": summary_alpha(profile, length, length_k), "alpha_low": ends[0], "alpha_high": ends[1]}


def contradiction(row: Any) -> tuple[float, float, float, int] | None:
    """A row's alpha, the summary of the profile or the length beside it, and that E and K, where the alpha
    contradicts it (off by more than SUMMARY_TOLERANCE); None where it agrees, or the row holds neither."""
    shape = _shape_of(row)
    alpha = getattr(row, "alpha", None)
    if shape is None or isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha):
        return None
    try:
        e, k = _measured(*shape)
        # E(alpha, K) rises with alpha, so the summary is within the tolerance of alpha exactly when E lies between
        # E at its two ends: two closed forms, where solving for the summary takes a millisecond a row, and every
        # edit checks every row (Document.apply)
        ends = ar.expected_tokens(np.clip([alpha - SUMMARY_TOLERANCE, alpha + SUMMARY_TOLERANCE], 0.0, 1.0), k)
        if float(ends[0]) - 1e-12 <= min(e, k + 1.0) <= float(ends[1]) + 1e-12:
            return None
        return float(alpha), summary_alpha(*shape), e, k
    except (ValueError, TypeError, OverflowError):  # a bad profile or length is named by its own field's check
        return None


def contradiction_words(row: Any) -> str:
    """'Alpha: 30.0% contradicts its profile (E 2.57 at K = 3 is the i.i.d. alpha 70.9%) ...'; '' where it agrees."""
    found = contradiction(row)
    if found is None:
        return ""
    alpha, summary, e, k = found
    what = "profile" if getattr(row, "profile", ()) else "mean acceptance length"
    return (f"Alpha: {fmt.pct(alpha)} contradicts its {what} (E {e:.3g} at K = {k} is the i.i.d. alpha "
            f"{fmt.pct(summary)}); the {what} is the measurement: give alpha {fmt.pct(summary)} (within "
            f"{SUMMARY_TOLERANCE * 100:g} points) or leave alpha out")


def take_summary(row: Any) -> str:
    """A loaded row whose alpha contradicts its profile or length: the summary takes its place (and its range,
    where the old one no longer holds it), and the row's source note says so, ahead of what it said before.
    Returns the note ('' where nothing changed)."""
    found = contradiction(row)
    if found is None:
        return ""
    alpha, summary, e, k = found
    shape = _shape_of(row)
    assert shape is not None
    fields = summary_fields(*shape, getattr(row, "acceptance_length_low", None),
                            getattr(row, "acceptance_length_high", None))
    row.alpha = fields["alpha"]
    low, high = getattr(row, "alpha_low", None), getattr(row, "alpha_high", None)
    if low is not None and high is not None and not low <= row.alpha <= high:
        row.alpha_low, row.alpha_high = fields["alpha_low"], fields["alpha_high"]
    what = "profile" if shape[0] else "length"
    note = f"alpha {fmt.pct(alpha)} set to {fmt.pct(summary)} on loading: the {what}'s E {e:.3g} at K={k} wins"
    old = getattr(row, "source_note", "") or ""
    room = _NOTE_LIMIT - len(note) - 2
    row.source_note = note if not old.strip() else f"{note}; {old if len(old) <= room else old[: room - 1] + '…'}"
    return note
