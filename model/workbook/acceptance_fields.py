"""The i.i.d. alpha that stands beside a profile or a mean acceptance length on a row (schema 2).

Everything that reads one number per class (the tables' alpha column, the i.i.d. curves) reads this
summary: the alpha whose E(alpha, K) equals the row's E at the K it was measured at (a profile's
length, a length's own K). It is derived once, where a file gives a profile or a length without an alpha.
"""
from __future__ import annotations

from collections.abc import Sequence

from model.mechanics import arithmetic as ar


def summary_alpha(profile: Sequence[float], length: float | None, length_k: int | None) -> float:
    """The alpha with the same E at the measured K as the profile (or the length); 1.0 at E = K + 1."""
    if profile:
        e, k = float(ar.profile_tokens(list(profile))), len(profile)
    elif length is not None and length_k is not None:
        e, k = float(length), int(length_k)
    else:
        raise ValueError("a profile or a mean acceptance length with its K is needed")
    solve = ar.mean_acceptance_length_to_alpha(min(e, k + 1.0), k)
    return float(solve.alpha) if int(solve.kind) != ar.NEVER else 1.0
