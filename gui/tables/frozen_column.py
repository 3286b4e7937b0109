"""A frozen first column for a spreadsheet view: the row's name stays in sight when the table scrolls right.

A second view of the same kind lies over the table's first column, sharing its model and selection,
and scrolls with it vertically only. Whichever of the two holds the current cell takes the keyboard,
so typing, Enter, Tab and copy/paste behave the same on a name as on any other cell, and the table
never scrolls a cell it makes current under the frozen column.

Scrolling right stops only where a column begins at the frozen column's edge, so the name column never
half-covers its neighbour (a pixel scroll left "d AI" of "Northwind AI" beside the names); the scroll range
reaches the first such place past its end, so the last column can still be brought fully into view.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QTableView


class FrozenColumn(QObject):
    """Freezes column 0 of ``view``; keep a reference (the window does) for as long as the view lives."""

    def __init__(self, view: QTableView) -> None:
        super().__init__(view)
        self.view = view
        frozen = type(view)(view)  # same class: same keys, same copy/paste, same messages
        self.frozen = frozen
        frozen.setObjectName("frozen_column")
        frozen.setModel(view.model())
        frozen.setSelectionModel(view.selectionModel())
        delegate = view.itemDelegate()
        try:  # its own delegate (a shared one's closeEditor would reach both views), of the same kind
            frozen.setItemDelegate(type(delegate)(frozen))
        except TypeError:
            frozen.setItemDelegate(delegate)
        frozen.verticalHeader().hide()
        frozen.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        frozen.setVerticalScrollMode(view.verticalScrollMode())
        frozen.horizontalHeader().setSectionResizeMode(view.horizontalHeader().sectionResizeMode(0))
        frozen.setFrameShape(QFrame.Shape.NoFrame)
        # a thin rule on its right edge says where the frozen part ends
        frozen.setStyleSheet("QTableView#frozen_column { border-right: 1px solid #9a9a9a; }")
        frozen.setContextMenuPolicy(view.contextMenuPolicy())
        if hasattr(view, "message_posted"):
            frozen.message_posted.connect(view.message_posted)
        view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.viewport().stackUnder(frozen)

        self._snapping = False
        self._last_scroll = 0
        bar = view.horizontalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_scroll_range_changed)
        view.horizontalHeader().sectionResized.connect(self._on_section_resized)
        view.verticalHeader().sectionResized.connect(self._on_row_resized)
        view.verticalScrollBar().valueChanged.connect(frozen.verticalScrollBar().setValue)
        frozen.verticalScrollBar().valueChanged.connect(view.verticalScrollBar().setValue)
        frozen.horizontalHeader().sectionResized.connect(self._on_frozen_section_resized)
        view.selectionModel().currentChanged.connect(self._on_current_changed)
        model = view.model()
        for signal in (model.modelReset, model.columnsInserted, model.columnsRemoved, model.layoutChanged):
            signal.connect(self._on_columns_changed)
        view.installEventFilter(self)
        # the view's Resize reaches this filter before the view lays out its viewport (and a scroll bar coming or
        # going resizes the viewport alone): the frozen column's height follows the viewport's own Resize
        view.viewport().installEventFilter(self)
        frozen.installEventFilter(self)
        self._on_columns_changed()

    def sync_actions(self) -> None:
        """The view's context-menu actions (Add row, Delete rows…) on the frozen column too."""
        self.frozen.setContextMenuPolicy(self.view.contextMenuPolicy())
        for action in self.view.actions():
            if action not in self.frozen.actions():
                self.frozen.addAction(action)

    # --- geometry -------------------------------------------------------------------
    def _on_columns_changed(self, *_args: object) -> None:
        model = self.view.model()
        for col in range(model.columnCount()):
            self.frozen.setColumnHidden(col, col != 0)
        self.frozen.setColumnWidth(0, self.view.columnWidth(0))
        for row in range(model.rowCount()):
            self.frozen.setRowHeight(row, self.view.rowHeight(row))
        self.frozen.setVisible(model.columnCount() > 0)
        self.update_geometry()

    def update_geometry(self) -> None:
        view = self.view
        frame = view.frameWidth()
        self.frozen.setGeometry(view.verticalHeader().width() + frame, frame, view.columnWidth(0),
                                view.viewport().height() + view.horizontalHeader().height())
        self.frozen.verticalScrollBar().setValue(view.verticalScrollBar().value())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest, QEvent.Type.Show) \
                or watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self.update_geometry()
        elif watched is self.view and event.type() == QEvent.Type.FocusIn and self.view.currentIndex().column() == 0:
            # typing on a name must open its editor where the name is seen, not under the frozen column
            self.frozen.setFocus(Qt.FocusReason.OtherFocusReason)
        elif watched is self.frozen and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._frozen_key(event)
        return False

    def _frozen_key(self, event: QKeyEvent) -> bool:
        """Tab and Right leave the name for the next cell, which only the table shows."""
        moving = event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Right) and not (
            event.modifiers() & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier))
        current = self.frozen.currentIndex()
        if not moving or self.frozen.state() == QAbstractItemView.State.EditingState or not current.isValid() \
                or self.view.model().columnCount() < 2:
            return False
        self.view.setCurrentIndex(current.siblingAtColumn(1))
        return True

    def _on_section_resized(self, section: int, _old: int, new: int) -> None:
        if section == 0 and self.frozen.columnWidth(0) != new:
            self.frozen.setColumnWidth(0, new)
        self.update_geometry()
        # the columns' edges moved: the scroll goes to the nearest one (a range change may come first)
        bar = self.view.horizontalScrollBar()
        self._on_scroll_range_changed(bar.minimum(), bar.maximum())
        self._snap_to(self._nearest_stop(bar.value()))

    # --- horizontal scrolling: only to column edges -----------------------------------------
    def _stops(self) -> list[int]:
        """The scroll values at which a column begins exactly at the frozen column's right edge."""
        header = self.view.horizontalHeader()
        first = header.sectionSize(0)
        return sorted({0} | {header.sectionPosition(c) - first for c in range(1, header.count())
                             if not header.isSectionHidden(c) and header.sectionPosition(c) >= first})

    def _nearest_stop(self, value: int) -> int:
        return min(self._stops(), key=lambda stop: (abs(stop - value), stop))

    def _on_scroll_range_changed(self, low: int, high: int) -> None:
        if self._snapping or high <= 0:
            return
        # the table's own end leaves its first visible column part-covered; the next stop shows it whole
        end = next((stop for stop in self._stops() if stop >= high), high)
        if end != high:
            self._snapping = True
            try:
                self.view.horizontalScrollBar().setRange(low, end)
            finally:
                self._snapping = False

    def _on_scrolled(self, value: int) -> None:
        if self._snapping or not self.frozen.isVisible():
            self._last_scroll = value
            return
        stops = self._stops()
        if self.view.horizontalScrollBar().isSliderDown() or value in stops:
            target = self._nearest_stop(value)  # the slider follows the mouse to the nearest edge
        elif value > self._last_scroll:  # a wheel, an arrow or a page moves at least one column its way
            target = next((stop for stop in stops if stop >= value), stops[-1])
        else:
            target = next((stop for stop in reversed(stops) if stop <= value), 0)
        self._snap_to(target)

    def _snap_to(self, target: int) -> None:
        bar = self.view.horizontalScrollBar()
        target = max(bar.minimum(), min(target, bar.maximum()))
        if bar.value() != target:
            self._snapping = True
            try:
                bar.setValue(target)
            finally:
                self._snapping = False
        self._last_scroll = bar.value()

    def _on_frozen_section_resized(self, section: int, _old: int, new: int) -> None:
        # dragging the frozen header's edge resizes the real column too
        if section == 0 and self.view.columnWidth(0) != new:
            self.view.setColumnWidth(0, new)

    def _on_row_resized(self, row: int, _old: int, new: int) -> None:
        self.frozen.setRowHeight(row, new)

    # --- the keyboard follows the current cell ------------------------------------------
    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        view, frozen = self.view, self.frozen
        if current.column() == 0:
            if view.hasFocus():
                frozen.setFocus(Qt.FocusReason.OtherFocusReason)
            frozen.scrollTo(current)
            return
        if frozen.hasFocus():
            view.setFocus(Qt.FocusReason.OtherFocusReason)
        self.reveal(current)

    def reveal(self, index: QModelIndex) -> None:
        """Scroll so the cell is not under the frozen column (QTableView knows nothing of it)."""
        view = self.view
        view.scrollTo(index)
        hidden = view.columnWidth(0) - view.visualRect(index).left()
        if index.column() > 0 and hidden > 0:
            bar = view.horizontalScrollBar()
            bar.setValue(bar.value() - hidden)
