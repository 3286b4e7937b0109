"""Every cell whose text or colour an edit changes lies in a range the model signalled (dataChanged, or a
reset): the models signal only the cells they find changed, so a cell left out would show its old value."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont

from gui.document import Document
from gui.tables.input_models import ClassTableModel, TierTableModel
from gui.tables.override_grid import OverrideGridModel
from gui.tables.result_models import METRICS, ResultsGridModel
from gui.tables.summary_model import TierSummaryModel
from model.workbook.acceptance_fields import summary_alpha
from model.workbook.json_file import load_demo
from model.workbook.rows import Workbook

ROLES = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole,
         Qt.ItemDataRole.FontRole, Qt.ItemDataRole.TextAlignmentRole)


def _value(x: Any) -> Any:
    if isinstance(x, QBrush):
        return x.color().name(), x.style().name
    if isinstance(x, QFont):
        return x.toString()
    return x


def _cells(model) -> dict[tuple[int, int], tuple]:  # noqa: ANN001
    return {(r, c): tuple(_value(model.data(model.index(r, c), role)) for role in ROLES)
            for r in range(model.rowCount()) for c in range(model.columnCount())}


def _tier(name: str) -> Callable[[Workbook], int]:
    return lambda wb: [t.name for t in wb.tiers].index(name)


def _set_tier(tier: str, **values: Any) -> Callable[[Workbook], None]:
    def mutate(wb: Workbook) -> None:
        for key, value in values.items():
            setattr(wb.tiers[_tier(tier)(wb)], key, value)
    return mutate


def _set_class(j: int, **values: Any) -> Callable[[Workbook], None]:
    def mutate(wb: Workbook) -> None:
        for key, value in values.items():
            setattr(wb.classes[j], key, value)
    return mutate


def _settings(**values: Any) -> Callable[[Workbook], None]:
    def mutate(wb: Workbook) -> None:
        for key, value in values.items():
            setattr(wb.settings, key, value)
    return mutate


DEMO = load_demo()
FAST, TURBO, STANDARD = "Helix Fast", "Northwind Turbo", "Northwind Standard"
EDITS: list[tuple[str, Callable[[Workbook], None]]] = [
    ("class alpha", _set_class(1, alpha=0.55)),
    ("class tokens", _set_class(2, tokens_out=DEMO.classes[2].tokens_out * 3)),
    ("class context", _set_class(0, context=32768)),
    ("class range", _set_class(0, alpha_low=DEMO.classes[0].alpha - 0.1, alpha_high=min(1.0, DEMO.classes[0].alpha + 0.05))),
    ("class profile", _set_class(3, profile=(0.9, 0.8, 0.7), alpha=summary_alpha((0.9, 0.8, 0.7), None, None))),
    ("tier K", _set_tier(TURBO, k=7)),
    ("tier c", _set_tier(TURBO, c=0.3)),
    ("tier price", _set_tier(TURBO, price_out=DEMO.tiers[1].price_out * 2 + 1)),
    ("tier unconfirmed", _set_tier(TURBO, speculative="unknown")),
    ("tier confirmed", _set_tier(FAST, speculative="yes")),
    ("tier claim", _set_tier(TURBO, claimed_speedup=2.5, claim_context=8192)),
    ("tier measured", _set_tier(TURBO, measured_speedup=1.2, measured_note="probe")),
    ("tier load", _set_tier(TURBO, concurrency=4, measured_by_concurrency="1: 2.1, 4: 1.1")),
    ("tier made up", _set_tier(TURBO, defaulted="k")),
    ("tier baseline", _set_tier(TURBO, baseline="")),
    ("tier not speculative", _set_tier(TURBO, speculative="no")),
    ("tier typed", _set_tier(TURBO, cost_model="typed")),
    ("tier roofline", _set_tier(FAST, cost_model="roofline")),
    ("tier renamed", lambda wb: wb.rename_tier(TURBO, "Northwind Turbo 2")),
    ("confidence", _settings(confidence=0.8)),
    ("marginal band", _settings(marginal_band=0.5)),
    ("claim tolerance", _settings(claim_tolerance=0.4)),
    ("currency", _settings(currency="EUR")),
    ("k max", _settings(k_max=3)),
]


@pytest.mark.parametrize("model_type", [TierSummaryModel, ResultsGridModel, TierTableModel, ClassTableModel,
                                        OverrideGridModel])
@pytest.mark.parametrize("name,edit", EDITS, ids=[name for name, _ in EDITS])
def test_every_changed_cell_is_signalled(qapp, model_type, name, edit):  # noqa: ANN001
    document = Document(load_demo())
    model = model_type(document)
    metrics = list(METRICS) if model_type is ResultsGridModel else [None]
    for metric in metrics:
        if metric is not None:
            model.set_metric(metric)
        before = _cells(model)
        signalled: list[tuple[int, int, int, int]] = []
        reset: list[bool] = []
        model.dataChanged.connect(lambda a, b, *_: signalled.append((a.row(), a.column(), b.row(), b.column())))
        model.modelReset.connect(lambda: reset.append(True))
        try:
            assert document.apply(name, edit)
            document.flush()
            after = _cells(model)
        finally:
            model.dataChanged.disconnect()
            model.modelReset.disconnect()
        if reset:
            continue
        changed = {cell for cell in after if before.get(cell) != after[cell]}
        missed = {cell for cell in changed
                  if not any(top <= cell[0] <= bottom and left <= cell[1] <= right
                             for top, left, bottom, right in signalled)}
        assert not missed, (name, metric, sorted(missed)[:5], [before.get(c) for c in sorted(missed)[:2]],
                            [after[c] for c in sorted(missed)[:2]])
        document.undo_stack.undo()
        document.flush()


def test_a_context_edit_repaints_the_c_and_v_a_roofline_tier_uses(qapp):  # noqa: ANN001
    # at batch 256 a short context makes the verify pass compute-bound: both used numbers move, the tier row not
    wb = load_demo()
    wb.tiers[1].batch = 256
    document = Document(wb)
    model = TierTableModel(document)
    c_col, v_col = model.column_of("c"), model.column_of("v")
    before = _cells(model)
    signalled: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(lambda a, b, *_: signalled.append((a.row(), a.column(), b.row(), b.column())))
    assert document.apply("context", _set_class(5, context=512))
    document.flush()
    after = _cells(model)
    changed = {cell for cell in after if before[cell] != after[cell]}
    assert {(1, c_col), (1, v_col)} <= changed
    for cell in changed:
        assert any(t <= cell[0] <= b and left <= cell[1] <= right for t, left, b, right in signalled), cell
    # and only those: the rest of the tier's row was not repainted
    assert all(left >= min(c_col, v_col) and right <= max(c_col, v_col) for _, left, _, right in signalled)
