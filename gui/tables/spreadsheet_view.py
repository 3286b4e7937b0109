"""A QTableView that behaves like a spreadsheet for people who live in Excel.

Enter commits and moves down, Tab commits and moves right, F2 or typing edits,
Backspace edits the cell emptied, Delete clears, Ctrl+C / Ctrl+V copy and paste rectangular blocks as
tab-separated text (what Excel puts on the clipboard). Bulk edits go through
the model's set_cells, so a paste is one undo step and is refused whole; a
paste running past the bottom of the tiers or classes adds the rows it needs
in that same step.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Callable

from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFocusEvent, QGuiApplication, QKeyEvent, QKeySequence, QPaintEvent
from PySide6.QtWidgets import QAbstractItemDelegate, QAbstractItemView, QComboBox, QLineEdit, QTableView, QWidget

from model.common.formatting import spreadsheet_safe_text

from gui.tables.input_models import column_letter
from gui.tables.result_copy import COPY_ROLE


def parse_tsv(text: str) -> list[list[str]]:
    """Excel's clipboard format: rows by newline, cells by tab, quotes around cells holding either."""
    if not text:
        return []
    # Excel ends a copied block with one newline: drop that one only, so a copied blank cell
    # ("\r\n", or '""' from our own copy) still pastes as a blank that clears the target
    body = text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
    # csv counts lines, not line ends: the "\n" makes an empty last line a row of its own
    rows = [row or [""] for row in csv.reader(io.StringIO(body + "\n"), delimiter="\t", quotechar='"')]
    if any(cell.strip() for row in rows for cell in row):
        while rows[-1] == [""]:
            rows.pop()  # extra blank lines after the values, as text editors leave them
    return rows


def _unneutralised(cell: str) -> str:
    """Our own copy's neutralised text back as it was: "'=1+1" pastes as "=1+1", as Excel reads it."""
    if cell.startswith("'") and spreadsheet_safe_text(cell[1:]) == cell:
        return cell[1:]
    return cell


def to_tsv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", quotechar='"', lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    for row in rows:
        if any("\r" in cell for cell in row):
            # csv quotes only the line terminator's characters (before Python 3.13): a lone CR in a
            # cell would end the row in Excel, so that row's cells are quoted here, as csv quotes
            out.write("\t".join(_quoted(cell) if any(ch in cell for ch in '\t\n\r"') else cell
                                for cell in row) + "\n")
        else:
            writer.writerow(row)
    return out.getvalue()


def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


def _editor_text(editor: QWidget) -> str | None:
    line = editor.lineEdit() if isinstance(editor, QComboBox) else editor
    return line.text() if isinstance(line, QLineEdit) else None


class SpreadsheetView(QTableView):
    message_posted = Signal(str)  # for the status bar: why a paste or clear was refused
    # the row the cursor starts on when the keyboard reaches a view with no current cell (Tab, a tab page shown);
    # Qt's own choice is row 0, which in a view of tiers by row chose the first tier for the charts
    start_row: Callable[[], int] | None = None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                             | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setTabKeyNavigation(True)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.horizontalHeader().setHighlightSections(True)

    def setModel(self, model) -> None:  # noqa: ANN001, N802
        super().setModel(model)
        self._kept_cell = (-1, -1)
        self._enter_goes_up = False
        self._refusals = 0
        self._typed_back: tuple[QPersistentModelIndex, str] | None = None
        self._editor_index: tuple[QWidget, QPersistentModelIndex] | None = None
        if model is not None and hasattr(model, "refused"):
            model.refused.connect(self._on_model_refused)
        if model is not None:
            # rows added or deleted reset the model; keep the cursor where the user was
            model.modelAboutToBeReset.connect(self._on_model_about_to_be_reset)
            model.modelReset.connect(self._on_model_reset)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        # a result model notes the cells painted (gui/tables/shown_cells.py), not those a column fit measures
        shown = getattr(self.model(), "shown_cells", None)
        if shown is None:
            super().paintEvent(event)
            return
        shown.painting += 1
        try:
            super().paintEvent(event)
        finally:
            shown.painting -= 1

    def _on_model_refused(self, _message: str) -> None:
        self._refusals += 1

    def _on_model_about_to_be_reset(self) -> None:
        current = self.currentIndex()
        self._kept_cell = (current.row(), current.column()) if current.isValid() else (-1, -1)

    def _on_model_reset(self) -> None:
        row, col = self._kept_cell
        model = self.model()
        if row < 0 or not model.rowCount() or not model.columnCount():
            return
        self.setCurrentIndex(model.index(min(row, model.rowCount() - 1), min(col, model.columnCount() - 1)))

    def focusInEvent(self, event: QFocusEvent) -> None:
        model = self.model()
        if (self.start_row is not None and model is not None and not self.currentIndex().isValid()
                and event.reason() != Qt.FocusReason.MouseFocusReason and model.columnCount()):
            row = self.start_row()
            if 0 <= row < model.rowCount():
                self.selectionModel().setCurrentIndex(model.index(row, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
        super().focusInEvent(event)

    # --- keys ----------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
            return
        if event.matches(QKeySequence.StandardKey.Paste):
            self.paste()
            return
        editing = self.state() == QAbstractItemView.State.EditingState
        if not editing and event.key() == Qt.Key.Key_Backspace and self._edit_blank():
            return
        if not editing and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.clear_selection_cells()
            return
        if not editing and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            step = -1 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1
            self._move_current(step, 0)
            return
        super().keyPressEvent(event)
        if not editing and self.state() == QAbstractItemView.State.EditingState:
            # the key opened an editor and went into it, yet Qt leaves it ignored, so it travels on to the
            # parent: the table under a frozen column opened a second editor of the same cell, hidden under
            # the first, and the first one's focus-out committed its one letter while the keys that followed
            # went to either ("NT Renamed" became "Nenamed" typed through X at 20 ms a key)
            event.accept()

    def _edit_blank(self) -> bool:
        """Backspace as in Excel: open the current cell's editor emptied; Escape still keeps the value."""
        current = self.currentIndex()
        if not current.isValid() or not self.edit(current, QAbstractItemView.EditTrigger.EditKeyPressed, None):
            return False
        editor = self.indexWidget(current)
        line = editor.lineEdit() if isinstance(editor, QComboBox) else editor
        if isinstance(line, QLineEdit):
            line.clear()
        return True

    def edit(self, index: QModelIndex | QPersistentModelIndex,  # noqa: D102
             trigger: QAbstractItemView.EditTrigger = QAbstractItemView.EditTrigger.AllEditTriggers,
             event: QEvent | None = None) -> bool:
        opened = super().edit(index, trigger, event)
        editor = self.indexWidget(index) if opened else None
        if editor is not None:
            self._editor_index = (editor, QPersistentModelIndex(index))
            # filters run newest first: this sees Enter before the delegate turns it into a bare
            # SubmitModelCache hint, which no longer says whether Shift was held
            editor.installEventFilter(self)
        return opened

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._enter_goes_up = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        return super().eventFilter(watched, event)

    def commitData(self, editor: QWidget) -> None:
        # a refused value must not cost the user what they typed: remember it, and closeEditor
        # opens the cell again with that text in it (the status bar says why it was refused)
        refusals = self._refusals
        typed = _editor_text(editor)
        # the editor's own cell: Tab in a drop-down moves the cursor before the commit arrives
        index = self._editor_index[1] if self._editor_index and self._editor_index[0] is editor \
            else QPersistentModelIndex(self.currentIndex())
        super().commitData(editor)
        if self._refusals != refusals and typed is not None and index.isValid():
            self._typed_back = (index, typed)

    def closeEditor(self, editor: QWidget, hint: QAbstractItemDelegate.EndEditHint) -> None:
        if self._typed_back is not None:
            index, typed = self._typed_back
            self._typed_back = None
            self._enter_goes_up = False
            super().closeEditor(editor, QAbstractItemDelegate.EndEditHint.NoHint)
            if index.isValid():
                self.reopen_with(self.model().index(index.row(), index.column()), typed)
            return
        # Qt's delegate reports Enter as SubmitModelCache and Tab as EditNextItem (which
        # would open the next editor); a spreadsheet commits and just moves instead.
        moves = {
            QAbstractItemDelegate.EndEditHint.SubmitModelCache: (1, 0),
            QAbstractItemDelegate.EndEditHint.EditNextItem: (0, 1),
            QAbstractItemDelegate.EndEditHint.EditPreviousItem: (0, -1),
        }
        move = moves.get(hint) if self.isAncestorOf(editor) else None
        if move == (1, 0) and self._enter_goes_up:
            move = (-1, 0)  # Shift+Enter commits and goes back up, as in Excel
        self._enter_goes_up = False
        super().closeEditor(editor, QAbstractItemDelegate.EndEditHint.NoHint if move else hint)
        if move:
            self._move_current(*move)

    def reopen_with(self, index: QModelIndex, text: str) -> bool:
        """Open the cell's editor holding `text` (what was typed), cursor at its end; Escape drops it."""
        self.setCurrentIndex(index)
        if not self.edit(index, QAbstractItemView.EditTrigger.EditKeyPressed, None):
            return False
        editor = self.indexWidget(index)
        line = editor.lineEdit() if isinstance(editor, QComboBox) else editor
        if not isinstance(line, QLineEdit):
            return False
        line.setText(text)
        line.setCursorPosition(len(text))
        return True

    def _move_current(self, d_row: int, d_col: int) -> None:
        model = self.model()
        current = self.currentIndex()
        if model is None or not current.isValid():
            return
        row = min(max(current.row() + d_row, 0), model.rowCount() - 1)
        col = min(max(current.column() + d_col, 0), model.columnCount() - 1)
        self.setCurrentIndex(model.index(row, col))

    # --- blocks ----------------------------------------------------------------
    def select_block(self, top: int, left: int, bottom: int, right: int) -> None:
        """Make the block (clipped to the table) the whole selection, current at its top-left."""
        model = self.model()
        last_row, last_col = model.rowCount() - 1, model.columnCount() - 1
        top, left = min(top, last_row), min(left, last_col)
        bottom, right = min(max(bottom, top), last_row), min(max(right, left), last_col)
        selection = self.selectionModel()
        # explicit flags: setCurrentIndex would read the keyboard, and with Ctrl still held from
        # Ctrl+Z it toggled the cell out of a selection that kept the old block and stray cells
        selection.setCurrentIndex(model.index(top, left), QItemSelectionModel.SelectionFlag.NoUpdate)
        selection.select(QItemSelection(model.index(top, left), model.index(bottom, right)),
                         QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.scrollTo(model.index(top, left))

    def selected_block(self) -> tuple[int, int, int, int] | None:
        """Bounding rectangle (top, left, bottom, right) of the selection, or of the current cell."""
        indexes = self.selectionModel().selectedIndexes() if self.selectionModel() else []
        if not indexes:
            current = self.currentIndex()
            if not current.isValid():
                return None
            indexes = [current]
        rows = [i.row() for i in indexes]
        cols = [i.column() for i in indexes]
        return min(rows), min(cols), max(rows), max(cols)

    def copy_selection(self) -> str:
        """Put the selected block on the clipboard as Excel-style text; returns it (for tests)."""
        block = self.selected_block()
        model = self.model()
        if block is None or model is None:
            return ""
        top, left, bottom, right = block
        selection = self.selectionModel()
        rows = []
        for r in range(top, bottom + 1):
            cells = []
            for c in range(left, right + 1):
                index = model.index(r, c)
                if selection.hasSelection() and not selection.isSelected(index):
                    cells.append("")
                    continue
                # results: the number behind the cell (result_copy.py); inputs: edit text, which
                # round-trips exactly (78%, 120000000); anything else: what is shown
                value = model.data(index, COPY_ROLE)
                if value is None:
                    value = model.data(index, Qt.ItemDataRole.EditRole)
                if value is None:
                    value = model.data(index, Qt.ItemDataRole.DisplayRole)
                # a name like =HYPERLINK(...) must reach Excel as text, never as a formula; numbers stay numbers
                cells.append("" if value is None else spreadsheet_safe_text(str(value)))
            rows.append(cells)
        text = to_tsv(rows)
        QGuiApplication.clipboard().setText(text)
        n = (bottom - top + 1) * (right - left + 1)
        self.message_posted.emit(f"Copied {n} cell{'s' if n != 1 else ''}.")
        return text

    def _computed(self) -> bool:
        """A results table: read-only cells (its model has set_cells too, but no cell takes it)."""
        model = self.model()
        if model is None or not hasattr(model, "set_cells"):
            return True
        index = self.currentIndex()
        return index.isValid() and not model.flags(index) & Qt.ItemFlag.ItemIsEditable

    def paste(self) -> bool:
        model = self.model()
        if self._computed():
            self.message_posted.emit("This table is computed; it cannot be pasted into.")
            return False
        block = [[_unneutralised(cell) for cell in row] for row in parse_tsv(QGuiApplication.clipboard().text())]
        anchor = self.selected_block()
        current = self.currentIndex()
        if current.isValid() and not self.selectionModel().isSelected(current):
            # a selection left behind (the cursor moved without selecting): the paste goes where
            # the cursor is, never over rows the user has left
            anchor = (current.row(), current.column(), current.row(), current.column())
        if not block or anchor is None:
            self.message_posted.emit("Nothing to paste.")
            return False
        top, left, bottom, right = anchor
        add_rows = 0
        if len(block) == 1 and len(block[0]) == 1:
            # one value into a selected range fills the range, as in Excel
            value = block[0][0]
            cells = [(r, c, value) for r in range(top, bottom + 1) for c in range(left, right + 1)]
        else:
            height, width = len(block), max(len(r) for r in block)
            # past the bottom edge a growing table (tiers, classes) adds rows, as Excel does;
            # past the right edge there is no column to add, and the grid's rows are the tiers
            add_rows = max(0, top + height - model.rowCount()) if getattr(model, "can_add_rows", False) else 0
            if top + height > model.rowCount() + add_rows or left + width > model.columnCount():
                self.message_posted.emit(
                    f"Paste refused, nothing changed: the block is {height} x {width} cells and does not fit "
                    f"from cell {column_letter(left)}{top + 1} (the table is {model.rowCount()} x {model.columnCount()}).")
                return False
            cells = [(top + r, left + c, value) for r, row in enumerate(block) for c, value in enumerate(row)]
        n_rows = max(c[0] for c in cells) - top + 1
        n_cols = max(c[1] for c in cells) - left + 1
        text = f"Paste {n_rows} x {n_cols} cells" + (f", adding {add_rows} row{'s' if add_rows != 1 else ''}" if add_rows else "")
        ok = model.set_cells(cells, text, add_rows=add_rows) if add_rows else model.set_cells(cells, text)
        if ok:
            selection = self.selectionModel()
            selection.select(
                QItemSelection(model.index(top, left), model.index(top + n_rows - 1, left + n_cols - 1)),
                QItemSelectionModel.SelectionFlag.ClearAndSelect)
            added = f", adding {add_rows} row{'s' if add_rows != 1 else ''}" if add_rows else ""
            self.message_posted.emit(f"Pasted {len(cells)} cell{'s' if len(cells) != 1 else ''}{added}.")
        return ok

    def clear_selection_cells(self) -> bool:
        model = self.model()
        if self._computed():
            self.message_posted.emit("This table is computed; it cannot be cleared.")
            return False
        indexes = self.selectionModel().selectedIndexes() or [self.currentIndex()]
        cells = [(i.row(), i.column(), model.cleared_text(i.column())) for i in indexes if i.isValid()]
        if not (cells and model.set_cells(cells, "Clear cells")):
            return False
        # a cell that cannot be blank (alpha, K, context...) takes its default: say which, or
        # Delete on an acceptance would quietly turn it into 60%; 0 is what Excel reads a blank as
        defaults = {}
        for _, col, text in cells:
            if text and text != "0":
                label = model.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
                defaults.setdefault(f"{label} = {text}", None)
        n = len(cells)
        message = f"Cleared {n} cell{'s' if n != 1 else ''}."
        if defaults:
            message += " Cells that cannot be blank took their default: " + ", ".join(defaults) + ". Ctrl+Z undoes it."
        self.message_posted.emit(message)
        return True

