"""The Help dialog: the guide (docs/guide/) in a QTextBrowser, opened at a section gui/window/help.py names.

Imported when Help first opens: the window starts without the dialog's Qt types.
"""
from __future__ import annotations

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget


def name_headings(document: QTextDocument, names: list[str]) -> None:
    """Make each heading of `document` an anchor named as GitHub names it, in order (`names`), so
    scrollToAnchor and the guide's own #links reach it: Qt's Markdown import names no heading."""
    block = document.begin()
    heading = iter(names)
    while block.isValid():
        if block.blockFormat().headingLevel() > 0:
            name = next(heading, None)
            if name is None:
                return
            cursor = QTextCursor(block)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
            anchor = QTextCharFormat()
            anchor.setAnchor(True)
            anchor.setAnchorNames([name])
            cursor.mergeCharFormat(anchor)
        block = block.next()


class HelpDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        from gui.window.guide_text import anchors, guide_markdown  # read when Help opens, not at start-up

        super().__init__(parent)
        self.setWindowTitle("SpecLedger guide")
        self.resize(760, 660)
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(True)
        self.browser.setOpenExternalLinks(True)
        try:
            text = guide_markdown()
        except OSError as exc:  # an installation without docs/: say so in the window rather than fail
            text = f"# The guide could not be read\n\n{exc}"
        self.browser.setMarkdown(text)
        name_headings(self.browser.document(), anchors(text))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        # the contents are the guide's first lines: a long page needs a way back to them
        contents = buttons.addButton("Contents", QDialogButtonBox.ButtonRole.ActionRole)
        contents.setAutoDefault(False)  # Enter in the guide does not jump to the top
        contents.clicked.connect(lambda: self.show_section(""))
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)

    def show_section(self, anchor: str = "") -> None:
        self.show()
        if anchor:
            self.browser.scrollToAnchor(anchor)
        else:
            self.browser.verticalScrollBar().setValue(0)
        self.raise_()
