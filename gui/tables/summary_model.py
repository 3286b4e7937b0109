"""The per-tier summary: one row per tier with the numbers an analyst takes into the negotiation (its columns, their
words and tooltips, and the model that shows them); the colours, roles and changed-cell test are result_models'."""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from model.mechanics import arithmetic as ar
from model.common import formatting as fmt
from model.comparison import VALUE_NAMES, VERDICT_NAMES, Comparison
from model.comparison.guarantee import ALPHA_UNIT, Guarantee, length_text
from model.comparison.measured_speed import AGREES
from model.comparison.quality import flagged, quality_line, quality_verdict
from model.comparison.terms import terms_words
from model.comparison.verdicts import TOO_FEW_LABEL

from gui.tables import result_copy
from gui.document import Document
from gui.tables.input_models import Index, WorkbookTableModel
from gui.tables.shown_cells import ShownCells
from gui.tables.result_models import (ANY_SUMMARY_FIELD, CENTER, RESULT_ROLES, RIGHT, SUMMARY_FIELDS, HELP_HINT,
                                      INCOMPLETE_COLOUR, VALUE_COLOURS, VERDICT_COLOURS, fair_price_text,
                                      fair_price_tip, ratio_text, changed_cells)


ALPHA_MARK = "α "  # before an alpha in a column whose other rows may hold lengths


def _claim_text(cmp: Comparison, i: int) -> str:
    claimed = cmp.claims.speedup[i]
    return "" if math.isnan(claimed) else f"{fmt.times(claimed)} at {fmt.context(cmp.claims.context[i])}"


def _implied_text(cmp: Comparison, i: int) -> str:
    if math.isnan(cmp.claims.speedup[i]) or not cmp.tiers.speculative[i]:
        return ""
    if int(cmp.claims.kind[i]) == ar.NEVER:
        return fmt.OUT_OF_REACH
    return fmt.pct(cmp.claims.alpha[i])


def _holds_text(cmp: Comparison, i: int) -> str:
    holds = cmp.claims.holds[i]
    return "" if holds is None else ("holds" if holds else "does not hold")


def _mix_break_even_text(cmp: Comparison, i: int) -> str:
    if int(cmp.tiers.price_break_even_kind[i]) == -1:
        return ""
    return _unit_text(cmp.tier_parts[i].guarantee, cmp.tier_parts[i].guarantee.text())


def _runs_like_text(cmp: Comparison, i: int) -> str:
    if int(cmp.tiers.price_break_even_kind[i]) == -1:
        return ""
    g = cmp.tier_parts[i].guarantee
    return _unit_text(g, fmt.pct(g.runs_like) if g.unit == ALPHA_UNIT else length_text(g.runs_like, g.k))


def _unit_text(g: Guarantee, text: str) -> str:
    """The guarantee columns mix units by row (an alpha, or a length where a class is a profile or a length):
    an alpha says it is one, as a length's 'AL 2.80 @K4' does."""
    return f"{ALPHA_MARK}{text}" if g.unit == ALPHA_UNIT and text[:1].isdigit() else text


def _measured_text(cmp: Comparison, i: int) -> str:
    m = cmp.tier_parts[i].measured
    return "" if m.measured is None else fmt.times(m.measured) + ("" if m.agreement in ("", AGREES) else " (!)")


def _sla_text(cmp: Comparison, i: int) -> str:
    """The SLA's verdict (met, breached, undecided), "promised" where it is not measured, blank without an SLA."""
    if not (cmp.terms.sla and cmp.terms.sla[i]):
        return ""
    return cmp.terms.sla_verdict[i] or "promised"


def _downgraded_text(cmp: Comparison, i: int) -> str:
    d = float(cmp.terms.downgraded_share[i])
    return "" if math.isnan(d) else fmt.pct(d, 0)


def _incomplete(cmp: Comparison, i: int) -> str:
    # mechanics nobody gave withhold the tier's verdicts, unless a probe measured its speed (judged on that)
    return cmp.tier_made_up(i)


# what a tier's verdicts read while its mix waits for a class nobody described (Comparison.mix_waits: the tooltip)
WAITS_WORDS = "class not given"


def _speed_verdict(cmp: Comparison, i: int) -> str:
    if _incomplete(cmp, i):
        return _incomplete(cmp, i)
    if cmp.mix_waits(i):
        return WAITS_WORDS
    mark = " (measured)" if cmp.judged_on_measured(i) else " (unconfirmed)" if cmp.tiers.unconfirmed[i] else ""
    return VERDICT_NAMES[int(cmp.tiers.verdict[i])] + mark


def _price_ratio(cmp: Comparison, i: int) -> str:
    """The mix's price ratio wherever the prices give one (a price fact, with or without a value verdict)."""
    if cmp.tiers.baseline_index[i] < 0:
        return ""
    ratio = float(cmp.tiers.price_ratio[i])
    return "n/a" if math.isnan(ratio) else ratio_text(ratio, True)


# what a bill from list prices nobody typed reads (Comparison.prices_not_given; the tooltip names whose)
UNPRICED_WORDS = "not given"


def unpriced_tiers(cmp: Comparison, i: int, header: str) -> list[str]:
    """The tiers whose list prices nobody typed that tier i's cell under `header` rests on: its own for its bill,
    its baseline's too for the premium and the price ratio ([] where the prices were typed, 0 included)."""
    if header not in _BILLED:
        return []
    b = int(cmp.tiers.baseline_index[i])
    rests_on = [i, b] if header in ("Premium", "Price ratio") and b >= 0 else [i]
    return [cmp.tier_names[t] for t in rests_on if cmp.prices_not_given(t)]


def _billed(number: Callable[[Comparison, int], str], header: str) -> Callable[[Comparison, int], str]:
    return lambda c, i: UNPRICED_WORDS if unpriced_tiers(c, i, header) else number(c, i)


def _value_verdict(cmp: Comparison, i: int) -> str:
    # its own made-up mechanics, or its baseline's: the core's words (compare and the report say the same)
    if cmp.mix_waits(i) and not _incomplete(cmp, i):
        return WAITS_WORDS
    return cmp.value_withheld(i) or VALUE_NAMES[int(cmp.tiers.value_verdict[i])]


# (header, cell text, tooltip explaining the column); the verdicts first, so a laptop screen shows them
SUMMARY_COLUMNS: list[tuple[str, Callable[[Comparison, int], str], str]] = [
    ("Speed verdict", _speed_verdict, "Against plain decoding. Gain: mix speedup at least 1 + marginal band; marginal: 1 up to that; tax: below 1 (slower than plain decoding, and the draft is on the invoice); undecided: the mix speedup's interval reaches across a verdict's line, so measure more. Unconfirmed: the vendor has not confirmed the tier runs speculative decoding; it is computed as if it did."),
    ("Value verdict", _value_verdict, "Does the speed pay for the price? Worth the premium when the mix speedup over the baseline is at least the price ratio (monthly cost / the baseline's): one unit of speed then costs no more than on the baseline; undecided where the interval on the speedup over the baseline reaches both sides of the price ratio. n/a without a baseline or for a tier that does not run speculative decoding."),
    ("Claim holds", _holds_text, "Holds if the mix speedup on the requests served fast reaches the claim within the tolerance in Settings."),
    ("Quality", quality_verdict, "What a probe at a temperature found (lossy: the fast tier's samples do not come from the standard tier's model; lossless: they do, with the size of shift the run could see; undecided) and its checked tasks (worse: fast answers fail more often, beyond the margin). Hover a cell for the sentence."),
    ("SLA", _sla_text, "The vendor's SLA (a share of requests above a number of output tokens per second) against what a probe measured: met where the interval's low end is at or above the promise, breached where its high end is below it, undecided between; promised: not measured yet. Hover a cell for the numbers."),
    ("Downgraded", _downgraded_text, "The share of fast requests the vendor served at standard speed (measured by a probe, or typed). The mix speedup and the monthly cost are as served: those requests run at the baseline's speed and are billed at its prices. Hover a cell for the speed on the requests served fast."),
    ("Mix speedup", lambda c, i: fmt.times_interval(c.tiers.mix_speedup[i], c.tiers.mix_speedup_low[i], c.tiers.mix_speedup_high[i]), "Token-weighted harmonic mean of the per-class speedups: sum(w) / sum(w / S). Time adds up, not speed. In brackets the interval at the workbook's confidence, the classes' intervals combined as independent."),
    ("vs baseline", lambda c, i: fmt.times_interval(c.tiers.speedup_vs_baseline[i], c.tiers.speedup_vs_baseline_low[i], c.tiers.speedup_vs_baseline_high[i]), "Mix speedup divided by the baseline tier's mix speedup."),
    ("Measured", _measured_text, "A probe's measured speedup over the baseline (tokens per second against the baseline's), kept on the tier by Apply in Tools > Probe a tier. Beside the modelled 'vs baseline': (!) marks a disagreement of more than 10%, and the cell's tooltip says which inputs to doubt."),
    ("Fair price", fair_price_text, "The factor on both list prices at which the speed over the baseline is exactly worth the price (speedup over the baseline / price ratio); in brackets the same at the pessimistic end of the interval, the number to open a negotiation with. Hover a cell for the prices per 1M tokens."),
    ("Price ratio", _billed(_price_ratio, "Price ratio"), "Monthly cost / the baseline tier's monthly cost: the speed over the baseline must reach this for the tier to be worth it."),
    ("Value needs", _mix_break_even_text, "The acceptance to guarantee (α: a per-token alpha): the one acceptance that, held by every class, would make the mix speedup over the baseline equal the price ratio. One alpha cannot describe classes that differ, so compare it with 'Runs like'; per class, the results grid shows each class's price break-even (show: Price break-even alpha). Where a class is a profile or a length, no alpha applies: 'AL 2.80 @K4' is the mean acceptance length (tokens per verify step) every class would need at the tier's K."),
    ("Runs like", _runs_like_text, "The one acceptance that, held by every class, gives the mix speedup the workload has now (α: a per-token alpha; AL: a mean acceptance length, where a class is a profile or a length). Worth the premium when it is at least 'Value needs'."),
    ("Premium", _billed(lambda c, i: fmt.signed_pct(c.tiers.premium[i]), "Premium"), "Monthly cost over the baseline tier's monthly cost, minus one."),
    ("Monthly cost", _billed(lambda c, i: fmt.money(c.tiers.monthly_cost[i], c.currency), "Monthly cost"), "Output tokens x output price + input tokens x input price, per month; by context band and cached input where the tier has such prices, and the downgraded share billed at the baseline's prices."),
    ("Cost per 1x", _billed(lambda c, i: fmt.money(c.tiers.price_per_speedup[i], c.currency), "Cost per 1x"), "Monthly cost / mix speedup: what one unit of speed costs you. Worth the premium exactly when this is no higher than the baseline's."),
    ("FLOPs/token", lambda c, i: fmt.times(c.tiers.cost_factor[i]), "The vendor's arithmetic per emitted token vs plain decoding at your acceptance: (K c_flops + K + 1) / E, token-weighted. The cost of the draft."),
    ("Claim", _claim_text, "The vendor's claimed speedup and the context length it was stated at."),
    ("Claim needs alpha", _implied_text, "The per-token acceptance at which the claim comes true at the claim's context (solve S(alpha) = claim)."),
]
_VERDICT_COLUMNS = {"Speed verdict", "Value verdict", "Claim holds", "Quality"}
_BILLED = {"Monthly cost", "Premium", "Cost per 1x", "Price ratio"}  # what a class's tokens nobody gave withhold


_WARNING = QColor("#b00020")


def _background(cmp: Comparison, i: int, header: str) -> QColor | None:
    if header not in ("Speed verdict", "Value verdict"):
        return None
    if cmp.tier_withheld(i) or header == "Value verdict" and cmp.baseline_withheld(i):
        return INCOMPLETE_COLOUR
    if header == "Speed verdict":
        return VERDICT_COLOURS[int(cmp.tiers.verdict[i])]
    return VALUE_COLOURS[int(cmp.tiers.value_verdict[i])]


def _warns(cmp: Comparison, i: int, header: str) -> bool:
    """The cell's text in red: a claim that does not hold, a measured speed that disagrees with the model."""
    return (header == "Claim holds" and cmp.claims.holds[i] is False
            or header == "Measured" and _measured_text(cmp, i).endswith("(!)")
            or header == "Quality" and flagged(cmp, i))


def _look(cmp: Comparison, i: int, col: int) -> tuple[str, int, bool]:
    """What a summary cell shows: text, background and red text (alignment follows the column alone)."""
    header, text, _ = SUMMARY_COLUMNS[col]
    colour = _background(cmp, i, header)
    return text(cmp, i), -1 if colour is None else colour.rgba(), _warns(cmp, i, header)


class TierSummaryModel(WorkbookTableModel):
    """One row per tier: the numbers an analyst takes into the negotiation."""

    def __init__(self, document: Document) -> None:
        self.shown_cells = ShownCells()
        super().__init__(document)
        self._reshaped()

    def _snapshot(self) -> Any:
        return self.document.comparison

    def _changed_block(self, old: Any, new: Any) -> tuple[int, int, int, int] | list[tuple[int, int, int, int]] | None:
        if old is None or old.tier_names != new.tier_names or old.currency != new.currency:
            return 0, 0, self.rowCount() - 1, self.columnCount() - 1
        n = len(new.tier_names)
        by_field = {name: changed_cells(old, new, (name,)).reshape(-1) for name in ANY_SUMMARY_FIELD}
        spans = []  # per column: (top, bottom) of the rows whose fields changed, or None
        for header, _, _ in SUMMARY_COLUMNS:
            rows = np.zeros(n, dtype=bool)
            for name in SUMMARY_FIELDS.get(header, ANY_SUMMARY_FIELD):
                changed = by_field[name]
                rows |= changed if changed.size == n else bool(changed.any())
            hit = np.flatnonzero(rows)
            spans.append((int(hit[0]), int(hit[-1])) if hit.size else None)
        # neighbouring columns with the same rows in one signal
        blocks: list[tuple[int, int, int, int]] = []
        for col, span in enumerate(spans):
            if span is None:
                continue
            if blocks and blocks[-1][3] == col - 1 and (blocks[-1][0], blocks[-1][2]) == span:
                blocks[-1] = (span[0], blocks[-1][1], span[1], col)
            else:
                blocks.append((span[0], col, span[1], col))
        return blocks or None

    def _headers_changed(self, old: Any, new: Any) -> bool:
        return old is None or old.tier_names != new.tier_names

    def _reshaped(self) -> None:
        self.shown_cells.fit(self.rowCount(), self.columnCount())

    def _narrow(self, old: Any, new: Any, blocks: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
        if old is None or old.tier_names != new.tier_names or old.currency != new.currency:
            return blocks
        return self.shown_cells.narrow(blocks, lambda i, col: _look(old, i, col) == _look(new, i, col))

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.document.workbook.tiers)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(SUMMARY_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical:
            tiers = self.document.workbook.tiers
            return tiers[section].name if role == Qt.ItemDataRole.DisplayRole and section < len(tiers) else None
        if role == Qt.ItemDataRole.DisplayRole:
            return SUMMARY_COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return SUMMARY_COLUMNS[section][2]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in RESULT_ROLES or not index.isValid():
            return None
        cmp = self.document.comparison
        i, col = index.row(), index.column()
        header, text, explain = SUMMARY_COLUMNS[col]
        if role == Qt.ItemDataRole.DisplayRole:
            self.shown_cells.mark(i, col)
            return text(cmp, i)
        if role == result_copy.COPY_ROLE:
            return result_copy.copy_text(cmp, result_copy.SUMMARY.get(header), (i,), text(cmp, i))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return CENTER if header in _VERDICT_COLUMNS else RIGHT
        if role == Qt.ItemDataRole.BackgroundRole:
            colour = _background(cmp, i, header)
            return None if colour is None else QBrush(colour)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(_WARNING) if _warns(cmp, i, header) else None
        if role == Qt.ItemDataRole.ToolTipRole and header == "Quality" and text(cmp, i):
            return quality_line(cmp, i)
        if role == Qt.ItemDataRole.ToolTipRole and header in ("SLA", "Downgraded") and text(cmp, i):
            return "\n".join(terms_words(cmp, i))
        if role == Qt.ItemDataRole.ToolTipRole and header == "Monthly cost" and cmp.terms.price_source and cmp.terms.price_source[i]:
            return f"{explain}\nPrices: {cmp.terms.price_source[i]}"  # a preset's date shows wherever its prices are used
        if role == Qt.ItemDataRole.ToolTipRole and header in ("Speed verdict", "Value verdict") and _incomplete(cmp, i):
            made_up = self.document.workbook.tiers[i].defaulted if i < len(self.document.workbook.tiers) else ""
            return (f"{cmp.tier_names[i]}: {_incomplete(cmp, i)}. Nobody gave {made_up or 'its mechanics'} (a new "
                    "row, or a file without them); enter them in the Tiers table (each edit counts) to get "
                    f"verdicts.\n{HELP_HINT}")
        if role == Qt.ItemDataRole.ToolTipRole and cmp.mix_waits(i) and not _incomplete(cmp, i) and not text(cmp, i)[:1].isdigit():
            return (f"{cmp.tier_names[i]}, {header}: {text(cmp, i) or '(none)'}. No mix, verdict or fair price: "
                    f"{cmp.mix_waits(i)}. Type them in the Task classes table (each edit counts), or delete the "
                    f"class.\n{HELP_HINT}")
        unpriced = unpriced_tiers(cmp, i, header) if role == Qt.ItemDataRole.ToolTipRole else []
        if unpriced:  # no bill from list prices nobody typed (a free tier's typed 0 is a price)
            return (f"{cmp.tier_names[i]}, {header}: not given. Nobody typed the list prices of "
                    f"{' and '.join(unpriced)} (a new row, or a price list without them): type them in the Tiers "
                    f"table (0 for a free tier) to see what it costs.\n{HELP_HINT}")
        untold = ([c.name for c in self.document.workbook.classes if c.tokens_not_given()]
                  if role == Qt.ItemDataRole.ToolTipRole and header in _BILLED else [])
        if untold:  # no bill from tokens nobody gave
            return (f"{cmp.tier_names[i]}, {header}: {text(cmp, i) or '(none)'}. No bill while a task class's tokens "
                    f"are not given ({', '.join(untold[:3])}{' …' if len(untold) > 3 else ''}): type them in the Task "
                    f"classes table (0 for none).\n{HELP_HINT}")
        if role == Qt.ItemDataRole.ToolTipRole and header in ("Value verdict", "vs baseline") and cmp.baseline_withheld(i):
            return (f"{cmp.tier_names[i]}: no value verdict, {cmp.baseline_withheld(i)}: enter them in the Tiers "
                    "table to judge the speed against the price.\n" + HELP_HINT)
        if role == Qt.ItemDataRole.ToolTipRole:
            said = cmp.tier_parts[i].measured.words() if header in ("Measured", "vs baseline", "Claim") else ""
            # the verdict at the tier's own load, where a probe measured it there (compare and the report say it too)
            said = cmp.tier_parts[i].at_load.words() if header == "Value verdict" else said
            said = f"\n{said[0].upper()}{said[1:]}" if said else ""
            few = cmp.too_few_classes(i) if header in ("Speed verdict", "Value verdict") else []
            if few:  # the mix's interval counts no uncertainty from them: the verdict is less firm than it reads
                said += (f"\n{', '.join(few)}: {TOO_FEW_LABEL} for an interval, so the mix's interval leaves their "
                         "uncertainty out; measure more there.")
            extra = f"\n{fair_price_tip(cmp, i)}" if header == "Fair price" and fair_price_tip(cmp, i) else ""
            return f"{cmp.tier_names[i]}, {header}: {text(cmp, i) or '(none)'}{said}{extra}\n{explain}\n{HELP_HINT}"
        return None
