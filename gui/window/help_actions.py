"""F1, a double-click on a result, Help > About: the guide opened at the section about what has the keyboard.

A mixin of MainWindow (it needs its views and results_model, and keeps the one HelpDialog as _help); kept apart
because choosing the guide's section for a cell is its own small job, not what the window shows.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from gui.tables.acceptance_text import SHAPE_ROLE
from gui.tables.input_models import RowTableModel
from gui.tables.result_models import ResultsGridModel
from gui.tables.spreadsheet_view import SpreadsheetView
from gui.tables.summary_model import SUMMARY_COLUMNS
from gui.window.help import ALPHA, ANCHOR_FOR_FIELD, ANCHOR_FOR_METRIC, ANCHOR_FOR_SUMMARY, MIX, SHAPES

if TYPE_CHECKING:
    from gui.window.help_dialog import HelpDialog


class HelpActions:
    """The guide's section for the cell in hand: a result's metric, a summary column, an input's field."""

    _help: HelpDialog | None
    results_model: ResultsGridModel
    tier_view: SpreadsheetView
    class_view: SpreadsheetView
    override_view: SpreadsheetView
    results_view: SpreadsheetView
    summary_view: SpreadsheetView

    def show_help(self, anchor: str = "") -> None:
        if self._help is None:
            from gui.window.help_dialog import HelpDialog  # its Qt types are not start-up's

            self._help = HelpDialog(self)
        self._help.show_section(anchor)

    def _on_about_requested(self) -> None:
        from gui.window.help import about_html
        QMessageBox.about(self, "About SpecLedger", about_html())

    def _on_help_requested(self) -> None:
        # F1 on a results cell opens the guide at that number's section
        if self.results_view.hasFocus():
            self.show_help(ANCHOR_FOR_METRIC.get(self.results_model.metric, ""))
        elif self.summary_view.hasFocus():
            self.show_help(self._summary_anchor())
        else:
            # on an input (or in its editor): the section about that field
            self.show_help(next((self._field_anchor(view) for view in (self.tier_view, self.class_view, self.override_view)
                                 if view.hasFocus() or view.isAncestorOf(self.focusWidget())), ""))

    def _field_anchor(self, view: SpreadsheetView) -> str:
        model, current = view.model(), view.currentIndex()
        if not current.isValid():
            return ""
        if current.data(SHAPE_ROLE):  # a profile's or a length's cell: what it is and what the grid shows then
            return SHAPES
        if not isinstance(model, RowTableModel):
            return ALPHA  # the override grid holds acceptances
        return ANCHOR_FOR_FIELD.get(model.specs[current.column()].name, "")

    def _on_result_double_clicked(self, _index) -> None:  # noqa: ANN001
        anchor = (ANCHOR_FOR_METRIC.get(self.results_model.metric, "") if self.sender() is self.results_view
                  else self._summary_anchor())
        self.show_help(anchor)

    def _summary_anchor(self) -> str:
        """The guide's section for the per-tier summary's current column (the mix where none is more apt)."""
        current = self.summary_view.currentIndex()
        head = SUMMARY_COLUMNS[current.column()][0] if current.isValid() else ""
        return ANCHOR_FOR_SUMMARY.get(head, MIX)
