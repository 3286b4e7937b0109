"""A per-position profile drawn in its acceptance cell: one small bar per draft position, the cell's number beside.

The cell of a class (or an override) held as a profile shows its shape, not only a word: the
bars are the conditional rates p_1..p_K as stored (position 1 on the left, full height = 100%), so a draft whose
later positions fail reads as bars falling to the right. A model gives the rates under PROFILE_ROLE; any other
cell paints as QStyledItemDelegate paints it. The tooltip (the model's) lists the rates in numbers.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from gui.tables.acceptance_text import PROFILE_ROLE

Index = QModelIndex | QPersistentModelIndex
_GAP = 6  # between the number and the bars


def bars_width(positions: int) -> int:
    """The bars' width in pixels: 4 px a position (3 past 8 positions), a pixel between, so 16 stay short."""
    bar = 4 if positions <= 8 else 3
    return positions * (bar + 1) + 1


def bar_rects(area: QRect, rates: Sequence[float]) -> list[QRect]:
    """One rectangle per position inside ``area`` (its right end), height in proportion to the rate."""
    bar = 4 if len(rates) <= 8 else 3
    left = area.right() - bars_width(len(rates)) + 2
    top, height = area.top() + 3, max(4, area.height() - 6)
    out = []
    for i, rate in enumerate(rates):
        h = max(1, round(height * min(1.0, max(0.0, float(rate)))))
        out.append(QRect(left + i * (bar + 1), top + height - h, bar, h))
    return out


class SparklineDelegate(QStyledItemDelegate):
    """Paints a cell with PROFILE_ROLE as its text with the profile's bars right of it; others as usual."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        rates = index.data(PROFILE_ROLE)
        if not rates:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        text = opt.text
        opt.text = ""  # the background, selection and focus over the whole cell first
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        width = bars_width(len(rates))
        opt.text = text
        opt.rect = option.rect.adjusted(0, 0, -(width + _GAP), 0)
        opt.state &= ~QStyle.StateFlag.State_HasFocus  # one focus frame, the whole cell's
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        colour = opt.palette.highlightedText().color() if selected else QColor(opt.palette.text().color())
        foreground = index.data(Qt.ItemDataRole.ForegroundRole)
        if foreground is not None and not selected:
            colour = foreground.color() if hasattr(foreground, "color") else QColor(foreground)
        area = option.rect.adjusted(0, 0, -3, 0)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        faint = QColor(colour)
        faint.setAlpha(60)
        for rect in bar_rects(area, [1.0] * len(rates)):  # each position's full height, faint: the scale
            painter.fillRect(rect, faint)
        for rect in bar_rects(area, rates):
            painter.fillRect(rect, colour)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        size = super().sizeHint(option, index)
        rates = index.data(PROFILE_ROLE)
        return QSize(size.width() + bars_width(len(rates)) + _GAP, size.height()) if rates else size
