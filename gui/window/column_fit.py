"""Column widths of the window's tables: fitted to their contents, with floors for empty tables and caps for notes.

Run on load and when the results grid's classes change, not on every edit (a column jumping while one
types is worse than a cut number).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
from PySide6.QtWidgets import QHeaderView, QTableView

from model.comparison import Comparison
from model.workbook.row_edits import NOT_GIVEN
from model.workbook.rows import NOT_GIVEN_ON_NEW_TIER
from model.workbook.validation import FieldSpec

from gui.tables.input_models import RowTableModel
from gui.tables.result_models import shows_not_given
from gui.tables.summary_model import SUMMARY_COLUMNS, TierSummaryModel

_WIDE_FIELDS = {"notes": 260, "source_note": 260}
_SUMMARY_WIDEST = {"Speed verdict": "gain (unconfirmed)", "Value verdict": "worth the premium",
                   "Claim holds": "does not hold"}
_GRID_MIN_WIDTH = 84  # a class's column in a grid: "K=4 (2.10x)" and a verdict's colour readable


def _sample_text(spec: FieldSpec) -> str:
    """A typical value of a field, to size its column before the table holds any; a field a new tier has not
    been given reads "not given" there (model/workbook/row_edits.py), as wide as its column must be."""
    typical = _typical_text(spec)
    return max(typical, NOT_GIVEN, key=len) if spec.name in NOT_GIVEN_ON_NEW_TIER else typical


def _typical_text(spec: FieldSpec) -> str:
    if spec.name == "alpha":
        return "80.0% (74.0–86.0%)"  # room for a range typed beside it (typing one does not refit the column)
    if spec.kind == "choice":
        return max(spec.choice_list(), key=len, default="")
    if spec.kind == "text":
        return "Northwind Standard" if spec.name in ("name", "baseline", "tier", "task_class") else "Apex Inference"
    return {"percent": "100.0%", "float": "$10,000.00", "optional_float": "10.00x"}.get(spec.kind, "")


def fit_columns(views: Iterable[QTableView]) -> None:
    """Widths to contents, with long free-text columns capped."""
    for view in views:
        view.resizeColumnsToContents()
        model = view.model()
        if isinstance(model, RowTableModel):
            metrics = view.fontMetrics()
            for col, spec in enumerate(model.specs):
                # an empty or new workbook has nothing to size to: a floor fit for typical values
                # ("Northwind Standard", "assumed", "$1,000.00") rather than "A…" and "assu…"
                floor = metrics.horizontalAdvance(_sample_text(spec)) + 18
                width = max(view.columnWidth(col), floor)
                if spec.name in _WIDE_FIELDS:
                    width = min(width, _WIDE_FIELDS[spec.name])
                view.setColumnWidth(col, width)
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        if isinstance(model, TierSummaryModel):
            # the verdicts' longest words, whatever the rows hold now
            for col, (head, _, _) in enumerate(SUMMARY_COLUMNS):
                if head in _SUMMARY_WIDEST:
                    floor = view.fontMetrics().horizontalAdvance(_SUMMARY_WIDEST[head]) + 18
                    view.setColumnWidth(col, max(view.columnWidth(col), floor))
        elif not isinstance(model, RowTableModel):
            # grids of classes: equal, readable widths rather than one huge last column
            _floor_widths(view)


def wider_texts(cmp: Comparison) -> tuple[bool, bool, bool, bool]:
    """Whether the results show intervals per cell, per tier, acceptance beyond one alpha, and a tier whose
    mechanics nobody gave ('speculative unknown' in the Per tier verdicts printed 'speculative unkno…' after an
    Add row or a price list): each brings wider texts, so a change in any is a reason to refit (cheap enough to
    ask on every edit)."""
    kinds = cmp.cells.acceptance.kind
    return (bool(np.isfinite(cmp.cells.speedup_low).any()), bool(np.isfinite(cmp.tiers.mix_speedup_low).any()),
            bool(kinds is not None and kinds.any()), shows_not_given(cmp))


def fit_results_grid(view: QTableView) -> None:
    """The results grid alone: after its classes change (undo, paste) or its metric does (other text widths)."""
    view.resizeColumnsToContents()
    _floor_widths(view)


def _floor_widths(view: QTableView) -> None:
    for col in range(view.model().columnCount()):
        view.setColumnWidth(col, max(view.columnWidth(col), _GRID_MIN_WIDTH))
