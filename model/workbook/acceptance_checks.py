"""The checks between a row's acceptance fields (each field on its own is checked by its FieldSpec): a task class's or
override's alpha range, its profile or mean acceptance length and the interval on it, and a tier's measured speedup
interval. Part of the one validator, model/workbook/validation.py, which re-exports them.
"""
from __future__ import annotations

from typing import Any

from model.mechanics.arithmetic import profile_tokens
from model.workbook.acceptance_fields import contradiction_words
from model.workbook.cell_values import shown
from model.workbook.row_fields import PROFILE_FIELDS, row_label
from model.workbook.rows import Override, TaskClass, Tier


def alpha_range_problems(row: Any, index: int | None = None) -> list[str]:
    """A task class's or override's range: both ends or neither, low <= alpha <= high."""
    low, high = getattr(row, "alpha_low", None), getattr(row, "alpha_high", None)
    if low is None and high is None:
        return []
    where = f"{row_label(row, index)}, Alpha range"
    if low is None or high is None:
        return [f"{where}: give both ends (alpha low and alpha high) or neither"]
    try:
        if not low <= row.alpha <= high:
            return [f"{where}: must hold the acceptance itself ({shown(low)} to {shown(high)} does not hold "
                    f"{shown(row.alpha)})"]
    except TypeError:  # a wrong type is reported by the field's own check
        return []
    return []


def measured_interval_problems(t: Tier) -> list[str]:
    """A measured speedup's interval: both ends or neither, low <= the speedup <= high, only beside a speedup."""
    lo, hi = t.measured_speedup_low, t.measured_speedup_high
    if lo is None and hi is None:
        return []
    if lo is None or hi is None or t.measured_speedup is None:
        return ["Measured speedup low/high: give both ends, beside a measured speedup, or neither"]
    if not lo <= t.measured_speedup <= hi:
        return [f"Measured speedup low/high: {lo:g} to {hi:g} must hold the measured speedup {t.measured_speedup:g}"]
    return []


def acceptance_problems(row: TaskClass | Override) -> list[str]:
    """What is wrong between a row's acceptance fields (each field on its own is checked by its spec)."""
    length, k = row.acceptance_length, row.acceptance_length_k
    out = []
    if row.profile and length is not None:
        out.append(f"{PROFILE_FIELDS[0].label}: give a profile or a mean acceptance length, not both")
    if length is not None and k is None:
        out.append("Mean acceptance length: give the K it was measured at (acceptance_length_k)")
    elif k is not None and length is None:
        out.append("K of the acceptance length: given without a mean acceptance length")
    elif length is not None and k is not None and length > k + 1.0 + 1e-12:
        out.append(f"Mean acceptance length: at K = {k} it is at most K + 1 = {k + 1}, bonus token included "
                   f"(got {length:g})")
    out.extend(length_range_problems(row))
    if not out:  # the profile or the length is the measurement; the alpha beside it only summarises it
        out.extend(filter(None, [contradiction_words(row)]))
    return out


def length_range_problems(row: TaskClass | Override) -> list[str]:
    """The interval on E: both ends or neither, only beside a profile or a length, holding its E at the K measured."""
    low, high = row.acceptance_length_low, row.acceptance_length_high
    if low is None and high is None:
        return []
    where = "Mean acceptance length range"
    if low is None or high is None:
        return [f"{where}: give both ends (low and high) or neither"]
    if row.profile:
        e, k = float(profile_tokens(list(row.profile))), len(row.profile)
    elif row.acceptance_length is not None and row.acceptance_length_k is not None:
        e, k = float(row.acceptance_length), int(row.acceptance_length_k)
    else:
        return [f"{where}: given without a profile or a mean acceptance length it belongs to"]
    if not low - 1e-9 <= e <= high + 1e-9:
        return [f"{where}: must hold the length itself ({low:g} to {high:g} does not hold {e:.4g})"]
    if high > k + 1.0 + 1e-12:
        return [f"{where}: at K = {k} it is at most K + 1 = {k + 1} (got {high:g})"]
    return []
