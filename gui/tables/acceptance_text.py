"""The results grid's words for a cell whose acceptance is a per-position profile or a mean acceptance length.

There no one per-token alpha is used (model/acceptance/profiles.py): the comparison takes E, the mean
acceptance length, from the profile or the length, and states the break-evens in the same unit, tokens per
verify step (E* = K c + v, and the E at which the speed pays the price). The grid shows those, as `compare`
does ("AL 3.58*", "E* 1.90"), rather than the alpha kept beside them, which decides nothing there.
"""
from __future__ import annotations

import math
from typing import Any

from gui.tables.cell_format import percent_edit_text, with_mark
from model.common import formatting as fmt
from model.acceptance.value import ALPHA, LENGTH, PROFILE
from model.comparison import Comparison


def shape(cmp: Comparison, i: int, j: int) -> str:
    """'profile' or 'length' where (tier i, class j) runs on one; '' for an alpha or a tier that drafts nothing."""
    grid = cmp.cells.acceptance
    if grid is None or not cmp.tiers.speculative[i]:
        return ""
    kind = grid.KIND_CODES[int(grid.kind[i, j])]
    return "" if kind == ALPHA else kind


def _length(x: float, prefix: str = "") -> str:
    return "–" if math.isnan(x) else f"{prefix}{x:.2f}"


def _extrapolated(cmp: Comparison, i: int, j: int) -> bool:
    return bool(cmp.cells.extrapolated[i, j])


def extrapolated_mark(cmp: Comparison, i: int, j: int) -> str:
    """'*' where E at the tier's K (and so the speedup) was extrapolated past the K the acceptance was measured at."""
    return "*" if cmp.tiers.speculative[i] and _extrapolated(cmp, i, j) else ""


def extrapolated_words(cmp: Comparison, i: int, j: int) -> str:
    """' (extrapolated past K=3)' for a tooltip's E and speedup lines; '' where nothing was extrapolated."""
    return f" (extrapolated past K={_measured_k(cmp, i, j)})" if extrapolated_mark(cmp, i, j) else ""


def acceptance_cell(cmp: Comparison, i: int, j: int) -> str:
    """AL (the mean acceptance length at the tier's K), * where extrapolated past what was measured."""
    return _length(float(cmp.cells.tokens_per_stretch[i, j]), "AL ") + ("*" if _extrapolated(cmp, i, j) else "")


def break_even_cell(cmp: Comparison, i: int, j: int) -> str:
    return _length(_at(cmp.cells.break_even_length, i, j), "E* ")


def price_break_even_cell(cmp: Comparison, i: int, j: int) -> str:
    return _length(_at(cmp.cells.price_break_even_length, i, j), "E* ")


def margin_cell(cmp: Comparison, i: int, j: int) -> str:
    m = float(cmp.cells.tokens_per_stretch[i, j]) - _at(cmp.cells.break_even_length, i, j)
    return "–" if math.isnan(m) else f"{m:+.2f} tok/step"


def _at(values: object, i: int, j: int) -> float:
    return math.nan if values is None else float(values[i, j])  # type: ignore[index]


def tooltip_lines(cmp: Comparison, i: int, j: int) -> list[str]:
    """The acceptance, E and break-even lines of a cell's tooltip, for a profile or a length."""
    grid = cmp.cells.acceptance
    k = int(cmp.tiers.k[i])
    e = float(cmp.cells.tokens_per_stretch[i, j])
    beyond = extrapolated_words(cmp, i, j)
    if shape(cmp, i, j) == PROFILE:
        measured = grid.profile_list(i, j) or []  # type: ignore[union-attr]
        what = (f"acceptance: a per-position profile ({', '.join(fmt.pct(p, 0) for p in measured)} at positions "
                f"1..{len(measured)}), extended past them by geometric decay; no one alpha is used")
    else:
        what = (f"acceptance: a mean acceptance length of {float(grid.length[i, j]):.2f} measured at "  # type: ignore[union-attr]
                f"K={int(grid.length_k[i, j])}, carried to other K by the i.i.d. rule; no one alpha is used")
    return [
        what + f", source: {cmp.cells.alpha_source[i][j]}",
        f"Tokens per stretch E at K={k}, from the {shape(cmp, i, j)}: {e:.2f}{beyond}; {_interval_words(cmp, i, j)}",
        f"Break-even E* = K*c + v = {break_even_cell(cmp, i, j)[3:]} tokens per step; margin {margin_cell(cmp, i, j)}",
    ]


def _interval_words(cmp: Comparison, i: int, j: int) -> str:
    """The interval on E at the tier's K, or why there is none (too few requests, none given)."""
    lo, hi = _at(cmp.cells.tokens_per_stretch_low, i, j), _at(cmp.cells.tokens_per_stretch_high, i, j)
    if math.isnan(lo) or math.isnan(hi):
        return f"no interval ({cmp.cells.alpha_note[i][j]})"
    return f"{float(cmp.cells.alpha_confidence[i, j]):.0%} interval {lo:.2f} to {hi:.2f}"


def _measured_k(cmp: Comparison, i: int, j: int) -> int:
    grid = cmp.cells.acceptance
    if shape(cmp, i, j) == LENGTH:
        return int(grid.length_k[i, j])  # type: ignore[union-attr]
    return int(grid.positions[i, j])  # type: ignore[union-attr]


def class_alpha_words(row: object) -> tuple[str, str]:
    """For a task class's (or override's) alpha cell: what to show after the alpha, and a tooltip line.

    A profile or a length decides the results, the alpha beside it is their i.i.d. summary; a range (typed or
    measured) is the interval the verdicts carry. ('', '') for a bare alpha. A profile shows no words: the cell
    draws its bars (gui/tables/sparkline.py, from profile_rates)."""
    profile = tuple(getattr(row, "profile", ()) or ())
    length, length_k = getattr(row, "acceptance_length", None), getattr(row, "acceptance_length_k", None)
    if profile:
        rates = ", ".join(fmt.pct(p, 0) for p in profile)
        return "", (f"The acceptance is a per-position profile ({rates} at positions 1..{len(profile)}; the bars, "
                    "position 1 on the left, full height 100%): the "
                             "results use it, and this alpha is its one-number summary (the Excel report computes "
                             "from the alpha). Typing an alpha replaces the profile.")
    if length is not None and length_k is not None:
        return f"· AL {length:.2f} @K{length_k}", (f"The acceptance is a mean acceptance length of {length:.2f} at K={length_k}: the "
                                      "results use it, and this alpha is its one-number summary (the Excel report "
                                      "computes from the alpha). Typing an alpha replaces the length.")
    low, high = getattr(row, "alpha_low", None), getattr(row, "alpha_high", None)
    if low is not None and high is not None:
        confidence = getattr(row, "alpha_confidence", None)
        what = f"the {confidence:.0%} interval measured" if confidence else "the range typed"
        return f"({low * 100:.1f}–{high * 100:.1f}%)", (f"{what.capitalize()}: {fmt.pct(low)} to {fmt.pct(high)}; "
                                                        "the verdicts say 'undecided' where it reaches both sides "
                                                        "of a break-even.")
    return "", ""


PROFILE_ROLE = 0x0100 + 23  # Qt.UserRole + 23: a cell's per-position profile, conditional rates, position 1 first
SHAPE_ROLE = 0x0100 + 24  # 'profile' or 'length' where the cell's acceptance is one (F1 opens their section)


def shape_of(row: object) -> str:
    """'profile', 'length' or '' for a task class's or an override's acceptance."""
    if getattr(row, "profile", None):
        return "profile"
    return "length" if getattr(row, "acceptance_length", None) is not None else ""


def profile_rates(row: object) -> tuple[float, ...] | None:
    """The conditional rates a profile cell draws as bars (PROFILE_ROLE); None for any other acceptance."""
    return tuple(float(p) for p in getattr(row, "profile", ()) or ()) or None


# how to type a range, wherever an alpha is typed (the classes' alpha column, the overrides grid)
RANGE_HINT = ("Give a range in brackets, such as 80% (74–86%), for a vendor's stated range or your doubt: the "
              "verdicts say 'undecided' where it reaches both sides of a break-even. 80% () removes it. "
              "A per-position profile (77% 58% 53%) or a mean acceptance length at its K (AL 2.6 @K4) typed here "
              "stands instead of one alpha.")


def alpha_edit_text(row: Any, decimal: str) -> str:
    """The alpha as the editor offers it, with the row's range in brackets where it has one: it reads back as the
    same alpha and range (a copy and paste onto the cell changes nothing)."""
    if row.profile:  # as typed: it reads back as the same profile (model/workbook/alpha_text.parse_shape_text)
        return " ".join(with_mark(percent_edit_text(p), decimal) for p in row.profile)
    if row.acceptance_length is not None and row.acceptance_length_k is not None:
        return f"AL {with_mark(repr(float(row.acceptance_length)), decimal)} @K{row.acceptance_length_k}"
    text = with_mark(percent_edit_text(row.alpha), decimal)
    if row.alpha_low is None or row.alpha_high is None or row.profile or row.acceptance_length is not None:
        return text
    low, high = (with_mark(percent_edit_text(x), decimal) for x in (row.alpha_low, row.alpha_high))
    return f"{text} ({low}–{high})"
