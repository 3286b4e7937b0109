"""Read-only models over the comparison: the tier x class results grid, and what it shares with the per-tier summary
(gui.tables.summary_model): colours, roles, changed cells."""
from __future__ import annotations

import math

import numpy as np
from typing import Any, Callable

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from model.mechanics import arithmetic as ar
from model.common import formatting as fmt
from model.comparison import (GAIN, MARGINAL, NOT_APPLICABLE, NOT_WORTH, TAX, UNDECIDED, VALUE_NAMES, VERDICT_NAMES,
                              WORTH, Comparison)
from model.comparison.verdicts import TOO_FEW_LABEL, TOO_FEW_MEANING, labelled

from gui.document import Document
from gui.tables import acceptance_text, result_copy
from gui.tables.input_models import Index, WorkbookTableModel
from gui.tables.shown_cells import ShownCells

# undecided (the interval reaches both sides of a break-even) in one pale violet in both schemes: no verdict's hue
UNDECIDED_COLOUR = QColor("#ddd3f0")
VERDICT_COLOURS = {GAIN: QColor("#c9e8c9"), MARGINAL: QColor("#ffe4b0"), TAX: QColor("#f6c4c4"), NOT_APPLICABLE: QColor("#dedede"),
                   UNDECIDED: UNDECIDED_COLOUR}
# the value verdict in its own hues, so a glance tells which verdict colours the grid
VALUE_COLOURS = {WORTH: QColor("#b9dcf2"), NOT_WORTH: QColor("#f2c6de"), NOT_APPLICABLE: QColor("#dedede"),
                 UNDECIDED: UNDECIDED_COLOUR}
# a verdict resting on a class measured from too few requests for an interval (the point's alone): a sand of its
# own in both schemes, so a glance does not read it as a verdict an interval decided
TOO_FEW_COLOUR = QColor("#e9dfc0")
# a tier whose mechanics nobody gave (an import's missing column, a new row): no verdict, a colour of its own
# (neither grey nor undecided's violet)
INCOMPLETE_COLOUR = QColor("#cfe6e4")
INCOMPLETE_WORDS = "not given"  # its legend entry, shown while a tier's mechanics or a class's inputs have that colour
# what the colours mean, for the legend beside the grid: (colour, words)
LEGENDS = {
    "speed": [(VERDICT_COLOURS[GAIN], "gain"), (VERDICT_COLOURS[MARGINAL], "marginal"), (VERDICT_COLOURS[TAX], "tax"),
              (UNDECIDED_COLOUR, "undecided"), (TOO_FEW_COLOUR, TOO_FEW_LABEL),
              (VERDICT_COLOURS[NOT_APPLICABLE], "not speculative")],
    "value": [(VALUE_COLOURS[WORTH], "worth the premium"), (VALUE_COLOURS[NOT_WORTH], "not worth it"),
              (UNDECIDED_COLOUR, "undecided"), (TOO_FEW_COLOUR, TOO_FEW_LABEL),
              (VALUE_COLOURS[NOT_APPLICABLE], "no baseline / not speculative")],
}
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
CENTER = Qt.AlignmentFlag.AlignCenter
HELP_HINT = "Press F1 or double-click for the guide to these numbers."


def _solved_text(kind: int, alpha: float, k: int, always: str) -> str:
    """An acceptance from the solver (break-even or price break-even) as the tables show it."""
    if kind == -1:
        return "n/a"
    if kind == ar.ALWAYS:
        return always
    if kind == ar.NEVER:
        return f"none at K={k}"
    return fmt.pct(alpha)


def break_even_text(cmp: Comparison, i: int, j: int) -> str:
    if acceptance_text.shape(cmp, i, j):
        return acceptance_text.break_even_cell(cmp, i, j)
    return _solved_text(int(cmp.cells.break_even_kind[i, j]), cmp.cells.break_even_alpha[i, j], int(cmp.tiers.k[i]), "0% (always pays)")


def _margin_text(cmp: Comparison, i: int, j: int) -> str:
    if acceptance_text.shape(cmp, i, j):
        return acceptance_text.margin_cell(cmp, i, j)
    m = cmp.cells.margin[i, j]
    return "–" if math.isnan(m) else f"{m * 100:+.1f} pts"


def price_break_even_text(cmp: Comparison, i: int, j: int) -> str:
    if acceptance_text.shape(cmp, i, j):
        return acceptance_text.price_break_even_cell(cmp, i, j)
    return _solved_text(int(cmp.cells.price_break_even_kind[i, j]), cmp.cells.price_break_even_alpha[i, j], int(cmp.tiers.k[i]),
                        "0% (always)")


def ratio_text(ratio: float, applicable: bool) -> str:
    if not applicable:
        return "n/a"
    return "free baseline" if math.isinf(ratio) else fmt.times(ratio)


def _speed_verdict_text(cmp: Comparison, i: int, j: int) -> str:
    # a made-up tier's cells say why they have none, as the report's Comparison does
    return cmp.made_up(i) or labelled(VERDICT_NAMES[int(cmp.cells.verdict[i, j])], cmp.too_few(i, j))


UNPRICED_CELL = "prices not given"  # a value cell's words where a price nobody typed withholds it


def unpriced_words(cmp: Comparison, i: int) -> str:
    """Why tier i has no price ratio or value verdict: its list prices or its baseline's nobody typed ("its prices
    not given", "baseline X: prices not given"; docs/design/verdicts.md#prices-nobody-gave); "" otherwise."""
    why = cmp.baseline_withheld(i)
    return why if why.endswith("prices not given") else ""


def _value_verdict_text(cmp: Comparison, i: int, j: int) -> str:
    if cmp.made_up(i):
        return "incomplete"
    if unpriced_words(cmp, i) and cmp.tiers.speculative[i]:
        return UNPRICED_CELL
    return labelled(VALUE_NAMES[int(cmp.cells.value_verdict[i, j])], cmp.too_few(i, j))


# metric key -> (menu label, cell text)
METRICS: dict[str, tuple[str, Callable[[Comparison, int, int], str]]] = {
    # * as on the acceptance cell: E, and so the speedup, extrapolated past the K a profile or length was measured at
    "speedup": ("Speedup", lambda c, i, j: fmt.times_interval(c.cells.speedup[i, j], c.cells.speedup_low[i, j], c.cells.speedup_high[i, j])
                + acceptance_text.extrapolated_mark(c, i, j)),
    "speed_verdict": ("Speed verdict (vs plain decoding)", _speed_verdict_text),
    "value_verdict": ("Value verdict (speed vs price)", _value_verdict_text),
    # a profile's or a length's cell is in tokens per verify step (E*): the labels name both units
    "price_break_even": ("Price break-even (alpha or E*)", price_break_even_text),
    "price_ratio": ("Price ratio (tier / baseline)",
                    lambda c, i, j: UNPRICED_CELL if unpriced_words(c, i) and c.tiers.speculative[i] else
                    ratio_text(c.cells.price_ratio[i, j], int(c.cells.value_verdict[i, j]) != NOT_APPLICABLE)),
    "break_even": ("Break-even (alpha* or E*)", break_even_text),
    "margin": ("Margin over break-even", _margin_text),
    "trailer_fill": ("Trailer fill", lambda c, i, j: fmt.pct(c.cells.trailer_fill[i, j])),
    # a tier that drafts nothing accepts nothing: the class's alpha would read as if it were used
    # a profile or a length: its mean acceptance length, not the alpha kept beside it (acceptance_text)
    "alpha": ("Acceptance used", lambda c, i, j: "n/a" if not c.tiers.speculative[i] else
              acceptance_text.acceptance_cell(c, i, j) if acceptance_text.shape(c, i, j) else fmt.pct(c.cells.alpha[i, j])),
    "optimal_k": ("Best K (speedup)", lambda c, i, j: "n/a" if not c.tiers.speculative[i] else "–" if c.made_up(i) else
                  f"K={int(c.cells.optimal_k[i, j])} ({fmt.times(c.cells.optimal_speedup[i, j])})"),
    "cost_factor": ("FLOPs per token", lambda c, i, j: fmt.times(c.cells.cost_factor[i, j])),
}
# metrics about the price are coloured by the value verdict, the rest by the speed verdict
VALUE_METRICS = {"value_verdict", "price_break_even", "price_ratio"}


def colour_scheme(metric: str) -> str:
    return "value" if metric in VALUE_METRICS else "speed"


# the comparison arrays some cell of each view shows (tooltips are built on demand, not diffed)
_PAIR_FIELDS = ("cells.speedup", "cells.speedup_low", "cells.speedup_high", "cells.verdict", "cells.break_even_alpha",
                "cells.break_even_kind", "cells.margin", "cells.trailer_fill", "cells.alpha", "cells.optimal_k",
                "cells.optimal_speedup", "cells.cost_factor", "cells.price_ratio", "cells.price_break_even_alpha",
                "cells.price_break_even_kind", "cells.value_verdict", "cells.tokens_per_stretch",
                "cells.break_even_length", "cells.price_break_even_length", "cells.extrapolated")
_TIER_FIELDS = ("tiers.mix_speedup", "tiers.speedup_vs_baseline", "tiers.monthly_cost", "tiers.premium",
                "tiers.price_per_speedup", "tiers.cost_factor", "claims.speedup", "claims.context", "claims.alpha",
                "claims.kind", "tiers.verdict", "tiers.price_ratio", "tiers.price_break_even_alpha",
                "tiers.price_break_even_kind", "tiers.effective_alpha", "tiers.value_verdict", "probed.speedup",
                "tiers.mix_speedup_low", "tiers.mix_speedup_high", "tiers.speedup_vs_baseline_low",
                "tiers.speedup_vs_baseline_high", "fair.factor", "fair.factor_low", "tiers.effective_alpha_low",
                "tiers.effective_alpha_high", "tiers.price_break_even_length", "tiers.effective_length",
                "tiers.guarantee_is_length")


# what each summary column shows (text and colours) comes from these fields; an edit repaints a column only
# in the rows where one of its own fields changed (a class's alpha moves the mix, not the prices or the claim).
# A column missing here is diffed on every field, as all were before. tests/gui/tables/test_changed_ranges.py
# checks every cell an edit changes is repainted.
SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {
    "Speed verdict": ("tiers.incomplete", "tiers.verdict", "tiers.unconfirmed", "tiers.on_measured"),
    "Value verdict": ("tiers.incomplete", "tiers.baseline_incomplete", "tiers.value_verdict"),
    "Claim holds": ("claims.holds",),
    "SLA": ("terms.sla", "terms.sla_verdict"),
    "Downgraded": ("terms.downgraded_share",),
    "Mix speedup": ("tiers.mix_speedup", "tiers.mix_speedup_low", "tiers.mix_speedup_high"),
    "vs baseline": ("tiers.speedup_vs_baseline", "tiers.speedup_vs_baseline_low", "tiers.speedup_vs_baseline_high"),
    "Measured": ("probed.speedup", "probed.note", "tiers.baseline_index", "tiers.speedup_vs_baseline", "tiers.mix_speedup",
                 "tiers.on_measured"),
    "Fair price": ("fair.factor", "fair.factor_low"),
    "Price ratio": ("tiers.price_ratio", "tiers.baseline_index"),
    "Value needs": ("tiers.price_break_even_kind", "tiers.price_break_even_alpha", "tiers.k", "tiers.guarantee_is_length",
                    "tiers.price_break_even_length"),
    "Runs like": ("tiers.effective_alpha", "tiers.price_break_even_kind", "tiers.guarantee_is_length",
                  "tiers.effective_length", "tiers.k"),
    "Premium": ("tiers.premium",),
    "Monthly cost": ("tiers.monthly_cost",),
    "Cost per 1x": ("tiers.price_per_speedup",),
    "FLOPs/token": ("tiers.cost_factor",),
    "Claim": ("claims.speedup", "claims.context"),
    "Claim needs alpha": ("claims.speedup", "tiers.speculative", "claims.kind", "claims.alpha"),
}
ANY_SUMMARY_FIELD = tuple(dict.fromkeys((*_TIER_FIELDS, *(f for fs in SUMMARY_FIELDS.values() for f in fs))))


def changed_cells(old: Comparison, new: Comparison, names: tuple[str, ...]) -> np.ndarray:
    """Boolean mask of entries that differ in any of the named arrays (NaN equals NaN here)."""
    mask: np.ndarray | None = None
    for name in names:
        a, b = old.array(name), new.array(name)
        if (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype
                and a.tobytes() == b.tobytes()):
            # the same bits (most of an edit's arrays): nothing differs, without the elementwise tests below
            diff = np.zeros(a.shape, dtype=bool)
            mask = diff if mask is None else mask | diff
            continue
        a, b = np.asarray(a), np.asarray(b)
        diff = a != b
        if a.dtype.kind == "f":
            diff &= ~(np.isnan(a) & np.isnan(b))
        mask = diff if mask is None else mask | diff
    return mask if mask is not None else np.zeros(0, dtype=bool)


def _block(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    if mask.ndim == 1:
        mask = mask[:, None]
    rows, cols = np.nonzero(mask)
    if rows.size == 0:
        return None
    return int(rows.min()), int(cols.min()), int(rows.max()), int(cols.max())


def shows_not_given(cmp: Comparison) -> bool:
    """Some cell shows the not-given colour: a tier's mechanics, or a class's acceptance or context, nobody gave."""
    return any(cmp.tiers.incomplete) or bool(cmp.cells.not_given.any())


def cell_text(cmp: Comparison, metric: str, i: int, j: int) -> str:
    """A grid cell's text: the metric's, or why its class gives it no number ("acceptance not given")."""
    return cmp.cell_not_given(i, j) or METRICS[metric][1](cmp, i, j)


def pair_tooltip(cmp: Comparison, i: int, j: int) -> str:
    """How the cell was computed, in the seed's terms, with the actual numbers."""
    tier, cls = cmp.tier_names[i], cmp.class_names[j]
    if not cmp.tiers.speculative[i]:
        return f"{tier} on {cls}: plain decoding (Speculative = no), so speedup 1.00x by definition.\n{HELP_HINT}"
    if cmp.cell_not_given(i, j) and not cmp.made_up(i):
        return (f"{tier} on {cls}: no speedup and no verdict, {cls}'s {cmp.cell_not_given(i, j)} (a new row: "
                "nothing is taken from the row above). Type them in the Task classes table; until then no tier's "
                f"mix, verdict or fair price counts this class.\n{HELP_HINT}")
    if cmp.made_up(i):
        return (f"{tier} on {cls}: no speedup and no verdict, {cmp.made_up(i)}. Nobody gave its mechanics (a new "
                "row, or a price list without them); type them in the Tiers table to model its speed.\n" + HELP_HINT)
    k, a, c, v = int(cmp.tiers.k[i]), cmp.cells.alpha[i, j], cmp.cells.c[i, j], cmp.cells.v[i, j]
    e = cmp.cells.tokens_per_stretch[i, j]
    if cmp.is_refused(i, j):
        return (f"{tier} on {cls}: no speedup. {cmp.tier_names[i]} drafts a tree (depth K = {k}; c = {c:.3f}, "
                f"v = {v:.3f}, break-even E* = K*c + v = {k * c + v:.2f} tokens per step) and {cls} has one "
                f"alpha ({fmt.pct(a)}): {cmp.cells.alpha_note[i][j]}.\nGive {cls} a length or a profile on this tier "
                f"(Edit > Assume a published acceptance…, or measure it).\n{HELP_HINT}")
    lines = [
        f"{tier} on {cls}" + ("  (speculative decoding not confirmed)" if cmp.tiers.unconfirmed[i] else ""),
        f"K = {k} draft tokens per stretch; c = {c:.3f} (draft pass / target step); v = {v:.3f} (verify pass / target step)",
        *([f"alpha = {fmt.pct(a)} per token, source: {cmp.cells.alpha_source[i][j]}; " + interval_text(cmp, i, j),
           f"Tokens per stretch E = (1 - alpha^(K+1)) / (1 - alpha) = {e:.2f}"]
          if not acceptance_text.shape(cmp, i, j) else acceptance_text.tooltip_lines(cmp, i, j)[:2]),
        f"Trailer fill F = (E - 1) / K = {fmt.pct(cmp.cells.trailer_fill[i, j])}",
        f"Stretch cost K*c + v = {k * c + v:.2f} target steps",
        f"Speedup S = E / (K*c + v) = {fmt.times_interval(cmp.cells.speedup[i, j], cmp.cells.speedup_low[i, j], cmp.cells.speedup_high[i, j])}"
        + acceptance_text.extrapolated_words(cmp, i, j),
        (f"Break-even alpha* (E = K*c + v): {break_even_text(cmp, i, j)}; margin {_margin_text(cmp, i, j)}"
         if not acceptance_text.shape(cmp, i, j) else acceptance_text.tooltip_lines(cmp, i, j)[2]),
        f"Best K: {int(cmp.cells.optimal_k[i, j])} gives {fmt.times(cmp.cells.optimal_speedup[i, j])}",
        f"FLOPs per emitted token vs plain decoding: {fmt.times(cmp.cells.cost_factor[i, j])}",
        f"Speed verdict: {_speed_verdict_text(cmp, i, j)} (against plain decoding)",
        *value_lines(cmp, i, j),
        *([too_few_words(cmp, i, j)] if cmp.too_few(i, j) else []),
        HELP_HINT,
    ]
    return "\n".join(lines)


def interval_text(cmp: Comparison, i: int, j: int) -> str:
    lo, hi = cmp.cells.alpha_low[i, j], cmp.cells.alpha_high[i, j]
    if math.isnan(lo) or math.isnan(hi):
        return f"no interval ({cmp.cells.alpha_note[i][j]})"
    return f"{cmp.cells.alpha_confidence[i, j]:.0%} interval {fmt.pct(lo)} to {fmt.pct(hi)}"


def fair_price_text(cmp: Comparison, i: int) -> str:
    f = cmp.fair.factor[i]
    if math.isnan(f):
        return ""
    low = cmp.fair.factor_low[i]
    return f"{fmt.times(f)} (open at {fmt.times(low)})" if not math.isnan(low) else fmt.times(f)


def fair_price_tip(cmp: Comparison, i: int) -> str:
    if math.isnan(cmp.fair.factor[i]):
        return ""
    cur = cmp.currency
    text = (f"Fair price: {fmt.money(cmp.fair.price_out[i], cur, 2)} out, {fmt.money(cmp.fair.price_in[i], cur, 2)} in "
            "per 1M tokens")
    if not math.isnan(cmp.fair.factor_low[i]):
        text += (f"; at the pessimistic end of the {cmp.confidence:.0%} interval {fmt.money(cmp.fair.price_out_low[i], cur, 2)}"
                 f" out, {fmt.money(cmp.fair.price_in_low[i], cur, 2)} in: the price to open a negotiation with")
    return text


def value_lines(cmp: Comparison, i: int, j: int) -> list[str]:
    """The value verdict's working for one (tier, class), in words."""
    b = int(cmp.tiers.baseline_index[i])
    if b < 0:
        return ["Value verdict: n/a (no baseline tier to price against)"]
    if unpriced_words(cmp, i):
        return [f"Value verdict: none ({unpriced_words(cmp, i)}): type the list prices in the Tiers table (0 for a "
                "free tier) to price this traffic"]
    if math.isnan(cmp.cells.price_ratio[i, j]):
        return ["Value verdict: n/a (neither tier has a price for this traffic)"]
    base, ratio = cmp.tier_names[b], cmp.cells.price_ratio[i, j]
    over = cmp.cells.speedup[i, j] / cmp.cells.speedup[b, j]
    return [
        f"Price ratio: this class's traffic on {cmp.tier_names[i]} / on {base} = {ratio_text(ratio, True)}",
        f"Speedup over {base}: {fmt.times(over)}; price break-even "
        f"{'E in tokens per step' if acceptance_text.shape(cmp, i, j) else 'alpha'} (speedup over {base} = price ratio): "
        f"{price_break_even_text(cmp, i, j)}",
        f"Value verdict: {_value_verdict_text(cmp, i, j)}",
    ]


def too_few_words(cmp: Comparison, i: int, j: int) -> str:
    """Why a cell's verdicts carry '(too few requests)'."""
    return f"{cmp.class_names[j]} was {TOO_FEW_MEANING}."


# the roles the result models answer: a delegate asks a cell for eight roles each paint, and a role answered
# by nobody (font, icon, check state) returned None only after the lookups the others need
RESULT_ROLES = frozenset((Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole,
                           Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.ToolTipRole, result_copy.COPY_ROLE))
_INK = QBrush(QColor("#202020"))


class ResultsGridModel(WorkbookTableModel):
    """Tier x class; one chosen metric as text, the verdict as the cell colour."""

    def __init__(self, document: Document) -> None:
        self.metric = "speedup"
        self.shown_cells = ShownCells()
        super().__init__(document)
        self._reshaped()

    def set_metric(self, metric: str) -> None:
        self.metric = metric
        self._state = None  # every cell shows another number now
        self.refresh()

    def _snapshot(self) -> Any:
        return self.document.comparison

    def _changed_block(self, old: Any, new: Any) -> tuple[int, int, int, int] | None:
        if old is None or old.tier_names != new.tier_names or old.class_names != new.class_names:
            return 0, 0, self.rowCount() - 1, self.columnCount() - 1
        if any(c.cells.not_given.any() for c in (old, new)):
            return 0, 0, self.rowCount() - 1, self.columnCount() - 1  # a class's words move with no number moving
        block = _block(changed_cells(old, new, _PAIR_FIELDS))
        # a made-up tier's words ("needs c and v" -> "needs v") change with no verdict moving: its whole row
        rows = [i for i, (a, b) in enumerate(zip(old.tiers.incomplete, new.tiers.incomplete)) if a != b]
        if not rows or not new.class_names:
            return block
        top, bottom, last = min(rows), max(rows), len(new.class_names) - 1
        return (top, 0, bottom, last) if block is None else \
            (min(top, block[0]), 0, max(bottom, block[2]), last)

    def _headers_changed(self, old: Any, new: Any) -> bool:
        return old is None or old.tier_names != new.tier_names or old.class_names != new.class_names

    def _reshaped(self) -> None:
        self.shown_cells.fit(self.rowCount(), self.columnCount())

    def _narrow(self, old: Any, new: Any, blocks: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
        if old is None or self._headers_changed(old, new):
            return blocks
        return self.shown_cells.narrow(blocks, lambda i, j: self._look(old, i, j) == self._look(new, i, j))

    def _look(self, cmp: Comparison, i: int, j: int) -> tuple[str, int]:
        """What a cell shows: its text and its colour (the rest of a cell's look follows the metric alone)."""
        return cell_text(cmp, self.metric, i, j), self._background(cmp, i, j).rgba()

    def _background(self, cmp: Comparison, i: int, j: int) -> QColor:
        if cmp.made_up(i) or cmp.cell_not_given(i, j):
            return INCOMPLETE_COLOUR
        value = colour_scheme(self.metric) == "value"
        code = int(cmp.cells.value_verdict[i, j] if value else cmp.cells.verdict[i, j])
        if code != NOT_APPLICABLE and cmp.too_few(i, j):
            return TOO_FEW_COLOUR
        return (VALUE_COLOURS if value else VERDICT_COLOURS)[code]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.document.workbook.tiers)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.document.workbook.classes)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        wb = self.document.workbook
        names = [c.name for c in wb.classes] if orientation == Qt.Orientation.Horizontal else [t.name for t in wb.tiers]
        return names[section] if section < len(names) else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in RESULT_ROLES or not index.isValid():
            return None
        cmp = self.document.comparison
        i, j = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            self.shown_cells.mark(i, j)
            return cell_text(cmp, self.metric, i, j)
        if role == result_copy.COPY_ROLE:
            return result_copy.copy_text(cmp, result_copy.GRID.get(self.metric), (i, j), cell_text(cmp, self.metric, i, j))
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(self._background(cmp, i, j))
        if role == Qt.ItemDataRole.ForegroundRole:
            return _INK
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return CENTER if self.metric in ("speed_verdict", "value_verdict") else RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return pair_tooltip(cmp, i, j)
        return None
