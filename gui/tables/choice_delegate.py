"""Choice cells (Speculative, Cost model, GPU, pair, Source) edit with a drop-down, typing still works."""
from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QComboBox, QStyleOptionViewItem, QWidget

from gui.tables.input_models import RowTableModel
from gui.tables.sparkline import SparklineDelegate

Index = QModelIndex | QPersistentModelIndex


class ChoiceDelegate(SparklineDelegate):
    """A combo box for FieldSpec kind 'choice'; every other cell gets the usual line edit (a profile's cell its
    bars, gui/tables/sparkline.py)."""

    def _choices(self, index: Index) -> tuple[str, ...]:
        model = index.model()
        if isinstance(model, RowTableModel):
            spec = model.specs[index.column()]
            if spec.kind == "choice":
                return spec.choice_list()
        return ()

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        choices = self._choices(index)
        if not choices:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        # editable, so a typed "rooF" is still validated (case-insensitively) by the model
        combo.setEditable(True)
        combo.addItems(list(choices))
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        if isinstance(editor, QComboBox):
            text = str(index.data(Qt.ItemDataRole.EditRole) or "")
            # setCurrentText alone only fills the line edit and leaves item 0 current, so the arrow
            # keys and the open list would start from the first choice, not from the cell's value
            found = editor.findText(text, Qt.MatchFlag.MatchFixedString)
            if found >= 0:
                editor.setCurrentIndex(found)
            else:
                editor.setCurrentText(text)
            editor.lineEdit().selectAll()
            return
        super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
            return
        super().setModelData(editor, model, index)
