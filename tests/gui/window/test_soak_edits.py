"""Soak: thousands of random edits, pastes, row inserts and deletes, undos and redos, as a user makes them.

Every step goes through what a key or menu item runs: the cell's setData (what the editor commits),
the view's paste and Delete handling, the window's Add / Duplicate / Delete rows and undo / redo
actions. After every hundred steps the window must show exactly what a fresh window on the current
workbook shows, the cached comparison must equal a fresh compare(), and undoing the hundred must give
back the workbook as it was before them (redo, the workbook after them). Seeded, with a fixed count,
so a failure replays.
"""
from __future__ import annotations

import dataclasses
import random

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from gui.document import Document
from gui.tables.result_models import ResultsGridModel
from gui.tables.summary_model import TierSummaryModel
from model.comparison import compare
from model.workbook.json_file import load_demo
from model.workbook.validation import FieldSpec, workbook_problems

SEED = 20261201
ROUNDS = 20  # x STEPS steps
STEPS = 100
MAX_ROWS = 14
_NAMES = ["code", "json", "prose", "Helix Fast", "Apex Express", "A", "B", "C", "Zeta", "=SUM(A1)", "x" * 30]


def _text_for(rng: random.Random, spec: FieldSpec, tier_names: list[str]) -> str:
    """A value as an analyst might type it: mostly valid, sometimes not (those must be refused cleanly)."""
    if rng.random() < 0.12:
        return rng.choice(["", "lots", "-1", "1e400", "  ", "5O", "101%", "nan"])
    if spec.name == "name" or spec.name == "task_class":
        return rng.choice(_NAMES) + ("" if rng.random() < 0.5 else f" {rng.randint(2, 9)}")
    if spec.name == "baseline":
        return rng.choice(tier_names + [""])
    if spec.kind == "choice":
        return rng.choice(spec.choice_list())
    if spec.kind == "percent":
        return rng.choice([f"{rng.randint(0, 100)}%", f"{rng.random():.3f}"])
    if spec.kind == "int":
        hi = int(min(spec.maximum or 64, 64 if spec.name == "k" else 200_000))
        return str(rng.randint(int(spec.minimum or 0), hi)) + ("K" if spec.context and rng.random() < 0.3 else "")
    if spec.kind in ("float", "optional_float"):
        if spec.kind == "optional_float" and rng.random() < 0.3:
            return ""
        lo, hi = spec.minimum or 0.0, min(spec.maximum or 10.0, 10.0)
        return f"{rng.uniform(lo, hi):.4g}"
    return rng.choice(["", "note", "vendor x", "a, b"])


def _shown(model) -> list[list[object]]:  # noqa: ANN001
    roles = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ToolTipRole)
    out = []
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            index = model.index(r, c)
            values = [model.data(index, role) for role in roles]
            # a brush prints its address: compare its colour
            out.append([v.color().name() if hasattr(v, "color") else str(v) for v in values])
    return out


def _same_comparison(a, b) -> bool:  # noqa: ANN001
    """Field by field, into nested dataclasses, lists, tuples and dicts of them (the acceptance grid holds arrays
    of its own; tier_parts, dataclasses holding NaN where there is no number): NaN equals NaN here."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(_same_comparison(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_comparison(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_comparison(a[k], b[k]) for k in a)
    if isinstance(a, float) and a != a:
        return b != b
    return bool(a == b)


class _User:
    """The actions, each as the window runs it for a key press or a menu item."""

    def __init__(self, qtbot, window, rng: random.Random) -> None:  # noqa: ANN001
        self.qtbot, self.w, self.rng = qtbot, window, rng
        self.views = [window.tier_view, window.class_view, window.override_view]
        self.refused = 0

    def _view(self):  # noqa: ANN202
        view = self.rng.choice(self.views)
        self.w.input_tabs.setCurrentWidget(view)
        return view

    def _somewhere(self, view) -> tuple[int, int] | None:  # noqa: ANN001
        model = view.model()
        if not model.rowCount() or not model.columnCount():
            return None
        return self.rng.randrange(model.rowCount()), self.rng.randrange(model.columnCount())

    def edit(self) -> None:
        view = self._view()
        cell = self._somewhere(view)
        if cell is None:
            return
        model = view.model()
        spec = model.specs[cell[1]] if hasattr(model, "specs") else _ALPHA  # the grid holds acceptances
        text = _text_for(self.rng, spec, [t.name for t in self.w.document.workbook.tiers])
        view.setCurrentIndex(model.index(*cell))
        if not model.setData(model.index(*cell), text):
            self.refused += 1

    def type_in_editor(self) -> None:
        """F2, then (sometimes) new text, then Enter: the cell editor's own commit, unchanged text included."""
        view = self._view()
        cell = self._somewhere(view)
        if cell is None:
            return
        model = view.model()
        view.setFocus()
        view.setCurrentIndex(model.index(*cell))
        self.qtbot.keyClick(view, Qt.Key.Key_F2)
        editor = view.indexWidget(view.currentIndex())
        if editor is None:
            return  # a read-only cell opens no editor
        if self.rng.random() < 0.5 and hasattr(editor, "selectAll"):
            spec = model.specs[cell[1]] if hasattr(model, "specs") else _ALPHA
            editor.selectAll()
            self.qtbot.keyClicks(editor, _text_for(self.rng, spec, [t.name for t in self.w.document.workbook.tiers]))
        self.qtbot.keyClick(editor, Qt.Key.Key_Return)
        # the delegate commits through a queued call; a refused value reopens an editor, which Escape leaves
        self.qtbot.waitUntil(lambda: view.state() != view.State.EditingState
                             or view.indexWidget(view.currentIndex()) not in (None, editor), timeout=2000)
        if view.state() == view.State.EditingState:
            self.refused += 1
            self.qtbot.keyClick(view.indexWidget(view.currentIndex()), Qt.Key.Key_Escape)
            self.qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)

    def copy_paste(self) -> None:
        view = self._view()
        src, dst = self._somewhere(view), self._somewhere(view)
        if src is None or dst is None:
            return
        model = view.model()
        height, width = self.rng.randint(1, 3), self.rng.randint(1, 4)
        view.select_block(src[0], src[1], src[0] + height - 1, src[1] + width - 1)
        view.copy_selection()
        if self.rng.random() < 0.1:  # what another program put there
            QGuiApplication.clipboard().setText(self.rng.choice(["junk\tjunk\r\n", "", "1\t2\t3\n4\n", "80%\r\n"]))
        # sometimes past the last row, which adds rows (tiers and classes)
        row = model.rowCount() - 1 if self.rng.random() < 0.2 and model.rowCount() < MAX_ROWS else dst[0]
        view.select_block(row, dst[1], row, dst[1])
        if not view.paste():
            self.refused += 1

    def clear(self) -> None:
        view = self._view()
        cell = self._somewhere(view)
        if cell is None:
            return
        view.select_block(cell[0], cell[1], cell[0] + self.rng.randint(0, 2), cell[1] + self.rng.randint(0, 2))
        view.setFocus()
        self.qtbot.keyClick(view, Qt.Key.Key_Delete)

    def rows(self) -> None:
        view = self.rng.choice(self.views[:2])
        self.w.input_tabs.setCurrentWidget(view)
        cell = self._somewhere(view)
        if cell is not None:
            view.select_block(cell[0], 0, cell[0] + self.rng.randint(0, 2), 0)
        count = len(view.model().rows())
        # tables stay between 2 and ~16 rows: the mix of inserts and deletes, not the size, is the point
        action = self.w.delete_rows if count > MAX_ROWS else self.rng.choice(
            [self.w.add_row, self.w.duplicate_rows, self.w.delete_rows, self.w.delete_rows])
        if action is self.w.delete_rows and count <= 4:
            if count <= 2:
                return  # keep something to edit
            view.select_block(cell[0], 0, cell[0], 0)  # type: ignore[index]
        action()

    def undo_redo(self, floor: int) -> None:
        stack = self.w.document.undo_stack
        if self.rng.random() < 0.6:
            if stack.index() > floor:
                self.w.undo_action.trigger()
        elif stack.canRedo():
            self.w.redo_action.trigger()


_ALPHA = FieldSpec("alpha", "Acceptance alpha", "percent", 0.0, 1.0)


def test_random_user_edits_keep_results_and_undo_exact(qtbot, window) -> None:
    rng = random.Random(SEED)
    user = _User(qtbot, window, rng)
    window.rows.confirm = lambda _title, _text: True
    doc = window.document
    # the window keeps the last 500 steps (each round's undo below stays within that); here every
    # step is kept, so that undoing the whole run can be checked to give the demo back
    assert doc.undo_stack.count() == 0
    doc.undo_stack.setUndoLimit(0)
    original = load_demo()
    assert doc.workbook == original
    actions = [user.edit] * 4 + [user.type_in_editor] * 2 + [user.copy_paste] * 2 + [user.clear, user.rows, user.rows]
    for round_ in range(ROUNDS):
        floor, before = doc.undo_stack.index(), doc.workbook
        for _ in range(STEPS):
            if rng.random() < 0.15:
                user.undo_redo(floor)
            else:
                rng.choice(actions)()
            doc.flush()
        wb = doc.workbook
        assert workbook_problems(wb) == [], f"round {round_}"
        assert _same_comparison(doc.comparison, compare(wb.copy())), f"round {round_}"
        fresh = Document(wb.copy())
        for shown, model_type in ((window.results_model, ResultsGridModel), (window.summary_model, TierSummaryModel)):
            assert _shown(shown) == _shown(model_type(fresh)), f"round {round_}: {model_type.__name__}"
        assert window.tier_model.rowCount() == len(wb.tiers) and window.class_model.rowCount() == len(wb.classes)
        # the round's steps undone give back the workbook before them; redone, the one after them
        end = doc.undo_stack.index()
        doc.undo_stack.setIndex(floor)
        doc.flush()
        assert doc.workbook == before, f"round {round_}: undo"
        doc.undo_stack.setIndex(end)
        doc.flush()
        assert doc.workbook == wb, f"round {round_}: redo"
    assert user.refused > 0  # the bad values were tried, and refused
    assert doc.workbook != original  # the run did change things
    assert doc.undo_stack.count() > 500  # more than the window would keep
    doc.undo_stack.setIndex(0)
    doc.flush()
    assert doc.workbook == original and _shown(window.results_model) == _shown(ResultsGridModel(Document(original)))
