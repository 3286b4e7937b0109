"""The status bar's messages, kept: a long message cut at the window's edge is read whole in View > Message log…
(and in the status bar's tooltip while it shows)."""
from __future__ import annotations

from collections import deque
from datetime import datetime

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

KEPT = 500  # messages kept for the session, oldest first out


class MessageLog:
    def __init__(self) -> None:
        self.entries: deque[tuple[str, str]] = deque(maxlen=KEPT)

    def record(self, text: str) -> None:
        if text:
            self.entries.append((datetime.now().strftime("%H:%M:%S"), text))

    def text(self) -> str:
        return "\n".join(f"{when}  {text}" for when, text in self.entries)

    def show(self, parent: QWidget) -> QDialog:
        dialog = QDialog(parent)
        dialog.setWindowTitle("Message log")
        dialog.resize(760, 420)
        view = QPlainTextEdit(dialog)
        view.setReadOnly(True)
        view.setPlainText(self.text() or "No messages yet.")
        view.moveCursor(view.textCursor().MoveOperation.End)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(view)
        layout.addWidget(buttons)
        dialog.show()
        return dialog
