"""The File menu's entry for the import dialog: its own module so the window builds its menus without importing
the dialog, and with it every metrics reader (model.metrics.read), before its first paint."""
from __future__ import annotations

from typing import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget


def add_menu_action(window: QWidget, menu: QMenu, open_dialog: Callable[[], object]) -> QAction:
    """File > Import measured acceptance…, placed before the menu's last separator (the one above Quit)."""
    action = QAction("Import &measured acceptance…", window)
    action.setToolTip("Acceptance from vLLM, SGLang, TensorRT-LLM, TGI, llama.cpp metrics, logs and records")
    action.triggered.connect(lambda _checked=False: open_dialog())
    separators = [a for a in menu.actions() if a.isSeparator()]
    if separators:
        menu.insertAction(separators[-1], action)
    else:
        menu.addAction(action)
    return action
