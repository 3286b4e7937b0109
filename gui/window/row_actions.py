"""Edit > Add row / Duplicate rows / Delete rows on the tiers and task-classes tables.

Each is one Document.apply (one undo step) over model/workbook/row_edits. What the user is
left looking at matters as much as the edit: after Add row only the new row's first cell is
selected and current, so a paste lands there and Delete rows removes only it; deleting
several rows asks first and names them, so a stale selection never takes rows silently.
"""
from __future__ import annotations

from typing import Callable, Protocol

from PySide6.QtWidgets import QMessageBox, QTabWidget, QWidget

from model.workbook import row_edits
from model.workbook.rows import Workbook
from model.workbook.validation import ValidationError

from gui.document import Document
from gui.tables.spreadsheet_view import SpreadsheetView

_WORDS = {"tiers": ("tier", "tiers"), "classes": ("task class", "task classes")}
_NAMES_SHOWN = 6  # a status line, not a list: the rest are counted


class RowHost(Protocol):
    document: Document
    tier_view: SpreadsheetView
    class_view: SpreadsheetView
    input_tabs: QTabWidget

    def show_message(self, text: str, timeout_ms: int = 8000) -> None: ...


def name_list(names: list[str]) -> str:
    """'A', 'B' and 3 more: short enough for the status bar, exact enough to notice a surprise."""
    shown = ", ".join(repr(n) for n in names[:_NAMES_SHOWN])
    return shown + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else "")


class RowActions:
    def __init__(self, host: RowHost, parent: QWidget) -> None:
        self.host = host
        self.parent = parent
        # asked before a block delete; tests replace it (a modal box would block them)
        self.confirm: Callable[[str, str], bool] = self._ask

    def _ask(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self.parent, title, text,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                                      QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Yes

    def _apply(self, text: str, mutate: Callable[[Workbook], object], where: tuple[str, int, int]) -> bool:
        # a row edit the validator refuses is a message in the status bar, never an exception out of a slot
        try:
            self.host.document.apply(text, mutate, where=where)
        except (ValidationError, ValueError) as exc:
            self.host.show_message(f"Refused, nothing changed: {text}: {exc}", 15000)
            return False
        return True

    def target(self) -> tuple[str, SpreadsheetView]:
        """The table the row commands act on: the task classes if shown, else the tiers."""
        h = self.host
        return ("classes", h.class_view) if h.input_tabs.currentWidget() is h.class_view else ("tiers", h.tier_view)

    @staticmethod
    def selected_rows(view: SpreadsheetView) -> list[int]:
        rows = {i.row() for i in view.selectionModel().selectedIndexes()}
        if not rows and view.currentIndex().isValid():
            rows = {view.currentIndex().row()}
        return sorted(rows)

    def add_row(self) -> int:
        """A new row under the current one; it alone is then selected and current. Returns its index."""
        kind, view = self.target()
        doc = self.host.document
        current = view.currentIndex()
        at = current.row() + 1 if current.isValid() else len(row_edits.rows_of(doc.workbook, kind))
        if not self._apply("Add row", lambda wb: row_edits.add_row(wb, kind, at), (kind, at, 0)):
            return -1
        doc.flush()
        self.host.input_tabs.setCurrentWidget(view)
        # explicit selection, not setCurrentIndex: with Ctrl still held from the shortcut that
        # would toggle the new cell into the old selection, and a paste would start at the old row
        view.select_block(at, 0, at, 0)
        view.setFocus()
        one = _WORDS[kind][0]
        name = row_edits.rows_of(doc.workbook, kind)[at].name
        policy = row_edits.NEW_TIER_POLICY if kind == "tiers" else row_edits.NEW_CLASS_POLICY
        self.host.show_message(f"Added {one} {name!r} in row {at + 1}, {policy}. Ctrl+Z undoes it.", 8000)
        return at

    def duplicate_rows(self) -> list[int]:
        kind, view = self.target()
        rows = self.selected_rows(view)
        if not rows:
            return []
        doc = self.host.document
        made: list[int] = []

        def mutate(wb) -> None:  # noqa: ANN001
            made[:] = row_edits.duplicate_rows(wb, kind, rows)

        if not self._apply(f"Duplicate {len(rows)} row(s)", mutate, (kind, rows[0], 0)):
            return []
        doc.flush()
        view.select_block(made[0], 0, made[-1], view.model().columnCount() - 1)
        return made

    @staticmethod
    def _delete_question(kind: str, names: list[str], orphans: list[str], overrides: int = 0) -> str:
        """``overrides``: how many acceptance overrides go with the rows (none: the question does not mention them)."""
        one, many = _WORDS[kind]
        what = f"these {len(names)} {many}: {name_list(names)}" if len(names) > 1 else f"the {one} {names[0]!r}"
        several = len(names) > 1
        then = ""
        if overrides:
            count = "its" if overrides == 1 and not several else f"the {overrides}"
            noun = "override" if overrides == 1 else "overrides"
            where = " on every tier" if kind == "classes" else ""
            then = f"{count[:1].upper()}{count[1:]} acceptance {noun}{where} {'goes' if overrides == 1 else 'go'} too."
        if kind == "tiers" and orphans:
            lose = "loses its baseline" if len(orphans) == 1 else "lose their baseline"
            then += (" " if then else "") + (f"Priced against {'them' if several else 'it'}, {name_list(orphans)} "
                                            f"{lose} (no value verdict until you set another).")
        return f"Delete {what}?\n\n{then + ' ' if then else ''}Edit > Undo brings everything back."

    def _overrides_of(self, kind: str, names: set[str]) -> int:
        field = "tier" if kind == "tiers" else "task_class"
        return sum(getattr(o, field) in names for o in self.host.document.workbook.overrides)

    def delete_rows(self) -> int:
        """Delete the selected rows; more than one is asked about first and named. Returns how many went."""
        kind, view = self.target()
        rows = self.selected_rows(view)
        if not rows:
            return 0
        doc = self.host.document
        one, many = _WORDS[kind]
        table = row_edits.rows_of(doc.workbook, kind)
        names = [table[i].name for i in rows]
        col = max(view.currentIndex().column(), 0)
        gone = set(names)
        # the tiers that would lose their baseline: a single delete asks about them too, naming them
        orphans = [t.name for t in doc.workbook.tiers if t.baseline in gone and t.name not in gone] \
            if kind == "tiers" else []
        if (len(rows) > 1 or orphans) and not self.confirm(
                f"Delete {len(rows)} {many if len(rows) > 1 else one}?",
                self._delete_question(kind, names, orphans, self._overrides_of(kind, gone))):
            self.host.show_message(f"Nothing deleted: {len(rows)} {many if len(rows) > 1 else one} "
                                   f"{'were' if len(rows) > 1 else 'was'} selected.", 5000)
            return 0
        if not self._apply(f"Delete {len(rows)} {one if len(rows) == 1 else many}",
                           lambda wb: row_edits.delete_rows(wb, kind, rows), (kind, rows[0], 0)):
            return 0
        doc.flush()
        left = len(row_edits.rows_of(doc.workbook, kind))
        if left:
            row = min(rows[0], left - 1)
            view.select_block(row, col, row, col)
        word = one if len(rows) == 1 else f"{len(rows)} {many}"
        self.host.show_message(f"Deleted {word}: {name_list(names)}. Ctrl+Z undoes it.", 10000)
        return len(rows)
