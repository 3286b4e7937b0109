"""The open workbook as the GUI sees it: one Workbook, its file, its undo history, one change signal.

Rule for every panel: never mutate `document.workbook` in place. Call
`document.apply(text, mutate)`; it runs `mutate` on a copy, and only if that
succeeds pushes one undo step that swaps the copy in. Because the current
workbook is never mutated, undo/redo can keep the before/after objects
themselves as snapshots without copying them again.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from model.comparison import Comparison, PairCache, compare
from model.workbook.validation import ValidationError, workbook_problems
from model.workbook.rows import Workbook


UNDO_LIMIT = 500  # undo steps kept (as QUndoStack.setUndoLimit); said in docs/guide/day.md#editing-the-tables


class _SnapshotCommand(QUndoCommand):
    """One undo step: the whole workbook before and after (cheap: a few hundred rows at most)."""

    def __init__(self, document: "Document", text: str, before: Workbook, after: Workbook, where: Any = None) -> None:
        super().__init__(text)
        self._document = document
        self._before = before
        self._after = after
        self._where = where
        self._pushed = False

    def redo(self) -> None:
        self._document._set_workbook(self._after)
        # the first redo is the edit itself: the user is already there (and may have moved on)
        if self._pushed:
            self._document._pending_where = self._where
        self._pushed = True

    def undo(self) -> None:
        self._document._set_workbook(self._before)
        self._document._pending_where = self._where


class Document(QObject):
    """Holds the current Workbook, its path, the dirty flag and the QUndoStack."""

    changed = Signal()  # coalesced: once per event-loop turn however many edits happened
    focus_requested = Signal(object)  # after undo/redo: the `where` given to apply, to show that cell
    path_changed = Signal()
    dirty_changed = Signal(bool)
    # another workbook (File > New, Open, Revert): panels drop results and endpoint fields of the old one
    replaced = Signal()

    def __init__(self, workbook: Workbook | None = None, path: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._workbook = workbook if workbook is not None else Workbook()
        self._path: str | None = path
        self._comparison: Comparison | None = None
        # the last comparison's per-(tier, class) cells: an edit recomputes only the rows and columns it changed
        # (one workbook's worth, whatever the undo history holds)
        self._pairs = PairCache()
        self.undo_stack = QUndoStack(self)
        # each step keeps a whole workbook snapshot (tens of KB for the demo, MBs for a big one):
        # a long session must not grow without bound; the oldest steps go first
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        # zero-delay single shot: a paste of 200 cells or a burst of undos recomputes once
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._pending_where: Any = None

    # --- reading -------------------------------------------------------------
    @property
    def workbook(self) -> Workbook:
        """The current workbook; treat it as read-only and change it through apply()."""
        return self._workbook

    @property
    def comparison(self) -> Comparison:
        """The priced comparison of the current workbook, computed once per change."""
        if self._comparison is None:
            self._comparison = compare(self._workbook, self._pairs)
        return self._comparison

    @property
    def path(self) -> str | None:
        return self._path

    @property
    def dirty(self) -> bool:
        return not self.undo_stack.isClean()

    def display_name(self) -> str:
        if self._path:
            return Path(self._path).name
        return self._workbook.title or "Untitled"

    # --- changing ------------------------------------------------------------
    def apply(self, text: str, mutate: Callable[[Workbook], None], where: Any = None) -> bool:
        """Run `mutate` on a copy and push it as one undoable step named `text`; False if nothing changed.

        If `mutate` raises (a ValidationError, typically), or leaves the workbook with a
        problem it did not have before, nothing changes and a ValidationError propagates
        to the caller, who owns telling the user. A mutation that leaves the workbook equal
        (a paste of the values already there) is no step at all: nothing to undo, not dirty.
        """
        after = self._workbook.copy()
        mutate(after)
        if after == self._workbook:
            return False
        # the safety net for every panel: a change may not introduce a workbook-level problem
        # (duplicate names, a baseline or override naming nothing) that a save would then refuse
        problems = workbook_problems(after)
        if problems:
            known = set(workbook_problems(self._workbook))
            fresh = [p for p in problems if p not in known]
            if fresh:
                raise ValidationError(fresh[0])
        self.undo_stack.push(_SnapshotCommand(self, text, self._workbook, after, where))
        return True

    def replace(self, workbook: Workbook, path: str | None) -> None:
        """A new or opened workbook: a fresh history, clean, nothing to undo into the old file."""
        self.undo_stack.clear()
        self._path = path
        self._pairs = PairCache()  # nothing of the old workbook's cells is wanted again
        self._set_workbook(workbook)
        self.undo_stack.setClean()
        self.replaced.emit()
        self.path_changed.emit()
        self.dirty_changed.emit(False)

    def mark_saved(self, path: str) -> None:
        self._path = path
        self.undo_stack.setClean()
        self.path_changed.emit()

    def flush(self) -> None:
        """Deliver a pending `changed` now (tests and benchmarks; the event loop does it otherwise)."""
        if self._timer.isActive():
            self._timer.stop()
            self._on_timer_timeout()

    def _set_workbook(self, workbook: Workbook) -> None:
        self._workbook = workbook
        self._comparison = None
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        self.changed.emit()
        where, self._pending_where = self._pending_where, None
        if where is not None:
            self.focus_requested.emit(where)

    def _on_clean_changed(self, clean: bool) -> None:
        self.dirty_changed.emit(not clean)
