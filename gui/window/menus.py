"""The main window's menu bar: File, Edit, View, Tools and Help, each action wired to a window slot.

Kept apart from the window because it is a long list of wiring, not what the window shows or does.
"""
from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from gui.metrics.menu import add_menu_action
from gui.probe.dock import show_probe_panel
from gui.tables.frozen_column import FrozenColumn
from gui.window import help

# the Help menu's sections of the guide, after F1's "Guide to the numbers"
_HELP_SECTIONS = (("Getting &started: the analyst's day", help.DAY), ("&Probe a tier", help.PROBE),
                  ("&Measure acceptance", help.MEASURE), ("Price &lists", help.PRICE_LISTS),
                  ("&Engine metrics", help.METRICS), ("Where to get &c and v", help.WHERE_CV),
                  ("E&xport", help.EXPORT), ("&Negotiate", help.NEGOTIATE))


def add_action(window: Any, menu: QMenu, text: str, slot: Callable[..., object], shortcut=None) -> QAction:  # noqa: ANN001
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcuts(shortcut if isinstance(shortcut, list) else [shortcut])
    action.triggered.connect(slot)
    menu.addAction(action)
    return action


def _presets(window: Any) -> None:
    from gui.window.preset_dialog import show_preset_dialog  # a rarely used dialog: imported when asked for
    show_preset_dialog(window)


def _vendor_presets(window: Any) -> None:
    from gui.window.vendor_preset_dialog import show_vendor_preset_dialog  # likewise
    show_vendor_preset_dialog(window)


def _stated(window: Any) -> None:
    from gui.window.stated_dialog import show_stated_dialog  # likewise
    show_stated_dialog(window)


def build_menus(window: Any) -> None:
    """The menus of ``window`` (a MainWindow: the type is not imported, main_window imports this module). Sets window.undo_action, redo_action, charts_action and frozen_columns as it goes."""
    w = window
    file_menu = w.menuBar().addMenu("&File")
    w.files.build_menu(file_menu)
    add_menu_action(w, file_menu, w.import_metrics)
    edit = w.menuBar().addMenu("&Edit")
    w.undo_action = w.document.undo_stack.createUndoAction(w, "&Undo")
    w.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
    w.redo_action = w.document.undo_stack.createRedoAction(w, "&Redo")
    w.redo_action.setShortcuts([QKeySequence("Ctrl+Y"), QKeySequence("Ctrl+Shift+Z")])
    edit.addAction(w.undo_action)
    edit.addAction(w.redo_action)
    edit.addSeparator()
    # the views handle these keys themselves; WidgetShortcut on a menu action only shows the key
    for text, key, slot in (("&Copy", QKeySequence.StandardKey.Copy, lambda: w._focused_view().copy_selection()),
                            ("&Paste", QKeySequence.StandardKey.Paste, lambda: w._focused_view().paste()),
                            ("C&lear", QKeySequence(Qt.Key.Key_Delete), lambda: w._focused_view().clear_selection_cells())):
        action = add_action(w, edit, text, slot, QKeySequence(key))
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
    edit.addSeparator()
    # one key sequence: Qt reads Ctrl+Shift+= on a US keyboard as Ctrl++ already, and listing
    # both made Qt find two matches ("Ambiguous shortcut overload") and run neither
    rows = [add_action(w, edit, "&Add row", w.add_row, QKeySequence("Ctrl++")),
            add_action(w, edit, "&Duplicate rows", w.duplicate_rows, QKeySequence("Ctrl+D")),
            add_action(w, edit, "D&elete rows", w.delete_rows, QKeySequence("Ctrl+-"))]
    # right-click on an input table offers the same, as spreadsheets do
    edit.addSeparator()
    add_action(w, edit, "Workbook &settings…", w.edit_settings)
    add_action(w, edit, "Assume a &published acceptance…", lambda: _presets(w))
    add_action(w, edit, "Enter a s&tated acceptance…", lambda: _stated(w))
    add_action(w, edit, "Add a &vendor's fast mode…", lambda: _vendor_presets(w))
    for view in (w.tier_view, w.class_view):
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for action in rows:
            view.addAction(action)
    view_menu = w.menuBar().addMenu("&View")
    w.charts_action = add_action(w, view_menu, "&Charts", w.set_charts_visible)
    w.charts_action.setCheckable(True)
    w.charts_action.setChecked(True)
    w.charts_action.setToolTip("Show or hide the chart pane; the tables take its room")
    add_action(w, view_menu, "Message &log…", lambda: w.message_log.show(w))
    # names stay in sight when the input tables scroll right (results and summary name rows in their headers);
    # made after the row actions, which the frozen column's context menu offers too
    w.frozen_columns = [FrozenColumn(view) for view in (w.tier_view, w.class_view)]
    for frozen in w.frozen_columns:
        frozen.sync_actions()
    tools = w.menuBar().addMenu("&Tools")
    add_action(w, tools, "&Measure acceptance (ONNX draft/target)…", w.show_sampling_panel, QKeySequence("Ctrl+M"))
    add_action(w, tools, "&Probe a tier…", lambda: show_probe_panel(w))
    help_menu = w.menuBar().addMenu("&Help")
    add_action(w, help_menu, "&Guide to the numbers", w._on_help_requested, QKeySequence(QKeySequence.StandardKey.HelpContents))
    help_menu.addSeparator()
    for text, anchor in _HELP_SECTIONS:
        add_action(w, help_menu, text, lambda _checked=False, a=anchor: w.show_help(a))
    help_menu.addSeparator()
    add_action(w, help_menu, "&About SpecLedger", w._on_about_requested)
