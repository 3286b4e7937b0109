"""The File menu: new, open, save, save as, recent files, Excel export/import, and the unsaved-changes prompt."""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Callable, Protocol, TypeVar

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QTabWidget, QWidget

from model.common.messages import one_line, worded
from model.workbook.validation import WorkbookError
from model.workbook.rows import Workbook
from model.workbook.json_file import load_workbook, save_workbook, suggested_stem

from gui.worker import worded_error

from gui.document import Document
from gui.worker import TaskRunner


class FileHost(Protocol):
    """What the file actions need of the window that owns them (the window is one; tests may pass another)."""

    document: Document
    settings: QSettings
    tasks: TaskRunner
    tier_view: QWidget
    class_view: QWidget
    input_tabs: QTabWidget

    def show_message(self, text: str, timeout_ms: int = 8000) -> None: ...
    def fit_columns(self) -> None: ...
    def close(self) -> bool: ...

MAX_RECENT = 8
WORKBOOK_FILTER = "SpecLedger workbooks (*.json);;All files (*)"
EXCEL_FILTER = "Excel workbooks (*.xlsx);;All files (*)"
PRICE_LIST_FILTER = "Price lists (*.csv *.xlsx *.xlsm *.txt);;CSV (*.csv *.txt);;Excel workbooks (*.xlsx *.xlsm);;All files (*)"
_ROW_WORDS = {"tiers": ("tier", "tiers"), "classes": ("task class", "task classes")}


_Action = TypeVar("_Action", bound=Callable[..., Any])


def guarded(title: str) -> Callable[[_Action], _Action]:
    """A file action whose every failure becomes the one-line dialog, returning False.

    Readers word what they expect; a damaged file can still fail deeper (a zip, an XML parser, the csv
    module). Out of a slot that would be a traceback on stderr and no word to the user; here it is the
    dialog, and the open workbook stays as it was (nothing is replaced until a read has succeeded).
    """
    def wrap(action: _Action) -> _Action:
        @functools.wraps(action)
        def run(self: "FileActions", *args: Any, **kwargs: Any) -> Any:
            try:
                return action(self, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001  (the point: nothing escapes a file action)
                self._error(title, exc)
                return False
        return run  # type: ignore[return-value]
    return wrap


def is_workbook_path(path: str) -> bool:
    return path.lower().endswith((".json", ".xlsx"))


class FileActions:
    """Owns the file side of the main window; talks to the user only through dialogs it opens itself."""

    def __init__(self, window: FileHost) -> None:
        self.window = window
        self.document = window.document
        self.recent_menu: QMenu | None = None
        self._export_path: str | None = None  # set while an export runs on the worker

    def build_menu(self, menu: QMenu) -> None:
        w = self.window
        for text, key, slot in (("&New", QKeySequence.StandardKey.New, self.new),
                                ("&Open…", QKeySequence.StandardKey.Open, self.open),
                                ("&Save", QKeySequence.StandardKey.Save, self.save),
                                ("Save &As…", QKeySequence.StandardKey.SaveAs, self.save_as)):
            action = QAction(text, w)
            action.setShortcut(QKeySequence(key))
            action.triggered.connect(lambda _checked=False, s=slot: s())
            menu.addAction(action)
        self.recent_menu = menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._on_recent_menu_shown)
        menu.addSeparator()
        for text, slot in (("&Export to Excel…", self.export_excel), ("Export &brief as PDF…", self.export_brief_pdf),
                           ("&Import from Excel…", self.import_excel),
                           ("Import &tiers from CSV/xlsx…", lambda: self.import_rows("tiers")),
                           ("Import task &classes from CSV/xlsx…", lambda: self.import_rows("classes"))):
            action = QAction(text, w)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            menu.addAction(action)
        menu.addSeparator()
        quit_action = QAction("&Quit", w)
        quit_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        quit_action.triggered.connect(w.close)
        menu.addAction(quit_action)

    # --- recent files -------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.window.settings.value("recent_files", [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        return [str(v) for v in (value or []) if v]

    def _remember_folder(self, path: str) -> None:
        """The folder a file was read from or written to: where the next Save As or export starts."""
        self.window.settings.setValue("last_folder", os.path.dirname(os.path.abspath(path)))

    def _remember(self, path: str) -> None:
        path = os.path.abspath(path)
        self._remember_folder(path)
        recent = [p for p in self.recent_files() if p != path]
        self.window.settings.setValue("recent_files", [path, *recent][:MAX_RECENT])

    def _forget(self, path: str) -> bool:
        """Drop `path` from the recent files; True if it was there."""
        path = os.path.abspath(path)
        recent = self.recent_files()
        if path not in recent:
            return False
        self.window.settings.setValue("recent_files", [p for p in recent if p != path])
        return True

    def _on_recent_menu_shown(self) -> None:
        menu = self.recent_menu
        assert menu is not None
        menu.clear()
        files = self.recent_files()
        for path in files:
            action = menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        if not files:
            menu.addAction("(none)").setEnabled(False)

    # --- commands -----------------------------------------------------------------
    def new(self) -> None:
        if self.maybe_save():
            self._show(Workbook(title="Untitled"), None)

    @guarded("Cannot open workbook")
    def open(self) -> None:
        if not self.maybe_save():
            return
        start = os.path.dirname(self.document.path) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self.window, "Open workbook", start, WORKBOOK_FILTER)
        if path:
            self.open_path(path, ask=False)

    @guarded("Cannot open workbook")
    def open_path(self, path: str, ask: bool = True) -> bool:
        """Open a workbook (.json) or import a report (.xlsx); a bad file leaves the current one as it was."""
        if not os.path.exists(path) and self._forget(path):
            # a recent file moved or deleted since: say so plainly (before any save prompt, as
            # nothing will replace the open workbook), and stop offering it
            self._error("Cannot open workbook", FileNotFoundError(
                f"{path} no longer exists (moved or deleted); it has been removed from the recent files."))
            return False
        if ask and not self.maybe_save():
            return False
        if path.lower().endswith(".xlsx"):
            return self._import_excel_path(path)
        try:
            wb = load_workbook(path)
        except WorkbookError as exc:
            self._error("Cannot open workbook", exc)
            return False
        self._show(wb, path)
        self._remember(path)
        return True

    def save(self) -> bool:
        if not self.document.path or not self.document.path.lower().endswith(".json"):
            return self.save_as()
        return self.save_to(self.document.path)

    def suggested_path(self, suffix: str) -> str:
        """Where a Save As or an export dialog starts: the workbook's folder (else the last folder used,
        else home, never the folder the app was launched from), named after the workbook's title."""
        path = self.document.path
        folder = os.path.dirname(os.path.abspath(path)) if path else str(
            self.window.settings.value("last_folder", "") or Path.home())
        title = self.document.workbook.title
        stem = suggested_stem(title) if title else (Path(path).stem if path else "Untitled")
        return os.path.join(folder, stem + suffix)

    def save_as(self) -> bool:
        start = self.suggested_path(".json")
        path, _ = QFileDialog.getSaveFileName(self.window, "Save workbook as", start, WORKBOOK_FILTER)
        if not path:
            return False
        if not path.lower().endswith(".json"):
            path += ".json"
        return self.save_to(path)

    @guarded("Cannot save workbook")
    def save_to(self, path: str) -> bool:
        try:
            save_workbook(self.document.workbook, path)
        except WorkbookError as exc:
            self._error("Cannot save workbook", exc)
            return False
        self.document.mark_saved(path)
        self._remember(path)
        self.window.show_message(f"Saved {path}", 5000)
        return True

    def maybe_save(self) -> bool:
        """True if it is fine to drop the current workbook (saved, discarded, or clean)."""
        if not self.document.dirty:
            return True
        answer = QMessageBox.question(
            self.window, "Unsaved changes", f"Save the changes to {self.document.display_name()}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # --- Excel (openpyxl loads only here, never at start-up) ------------------------------
    @guarded("Cannot export to Excel")
    def export_excel(self) -> bool:
        """Ask for a file, then write the report on the shared worker (a 100 x 30 report takes seconds)."""
        try:
            from model.report.export import export_steps
        except Exception as exc:  # noqa: BLE001  (a missing openpyxl or module must not crash the window)
            self._error("Excel export is not available", exc)
            return False
        if self.window.tasks.is_busy():
            self.window.show_message(f"Wait for '{self.window.tasks.label}' to finish (or cancel it), then export.", 8000)
            return False
        path, _ = QFileDialog.getSaveFileName(self.window, "Export report to Excel", self.suggested_path(".xlsx"),
                                              EXCEL_FILTER)
        if not path:
            return False
        if not path.lower().endswith(".xlsx"):
            path += ".xlsx"
        # the worker gets its own copy: edits made while it runs must not race with it
        workbook, name = self.document.workbook.copy(), self.document.display_name()
        tasks = self.window.tasks
        self._export_path = path
        tasks.finished.connect(self._on_export_finished)
        tasks.errored.connect(self._on_export_errored)
        if not tasks.start("Exporting to Excel", lambda _cancel: export_steps(workbook, path, source_name=name)):
            self._disconnect_export()
            return False
        return True

    def export_brief_pdf(self, path: str | None = None) -> bool:
        """The report's first page, the brief, as a PDF printed by Qt (for a mail); one page for a few tiers."""
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self.window, "Export brief as PDF", self.suggested_path(".pdf"),
                                                  "PDF (*.pdf)")
            if not path:
                return False
        if not path.lower().endswith(".pdf"):
            path += ".pdf"
        from gui.window.brief_pdf import save_brief_pdf
        try:
            save_brief_pdf(self.document.workbook, self.document.comparison, path)
        except (OSError, ValueError) as exc:  # FileRefused is a ValueError: a FIFO, a device, a NUL in the name
            self._error("Cannot export the brief", exc)
            return False
        self.window.show_message(f"Exported the brief to {path}", 8000)
        return True

    def _disconnect_export(self) -> None:
        self._export_path = None
        self.window.tasks.finished.disconnect(self._on_export_finished)
        self.window.tasks.errored.disconnect(self._on_export_errored)

    def _on_export_finished(self, _result: object) -> None:
        path = self._export_path
        self._disconnect_export()
        self.window.show_message(f"Exported report to {path}", 8000)

    def _on_export_errored(self, message: str) -> None:
        self._disconnect_export()
        if message.lower().startswith("cancelled"):
            self.window.show_message("Excel export cancelled; nothing was written", 8000)
        else:
            self._error("Cannot export to Excel", RuntimeError(worded_error(message)))

    @guarded("Cannot import from Excel")
    def import_excel(self) -> bool:
        if not self.maybe_save():
            return False
        path, _ = QFileDialog.getOpenFileName(self.window, "Import report from Excel", "", EXCEL_FILTER)
        return bool(path) and self._import_excel_path(path)

    @guarded("Cannot import from Excel")
    def _import_excel_path(self, path: str) -> bool:
        try:
            from model.report.importer import import_report
        except Exception as exc:  # noqa: BLE001
            self._error("Excel import is not available", exc)
            return False
        try:
            wb = import_report(path)
        except (WorkbookError, ValueError, OSError) as exc:
            self._error("Cannot import from Excel", exc)
            return False
        # an imported report becomes a new, unsaved workbook: saving asks where, never overwrites the .xlsx
        wb.title = wb.title or Path(path).stem
        self._show(wb, None)
        self._remember_folder(path)  # Save As then starts beside the report, not in the home folder
        self.window.show_message(f"Imported {path}; save it as a workbook to keep it.", 8000)
        return True

    # --- price lists: rows merged into the open workbook ------------------------------------
    @guarded("Cannot import rows")
    def import_rows(self, kind: str) -> bool:
        """Ask for a CSV/xlsx of tiers or task classes and merge it into the workbook (one undo step)."""
        start = os.path.dirname(self.document.path) if self.document.path else ""
        title = f"Import {_ROW_WORDS[kind][1]} from CSV or Excel"
        path, _ = QFileDialog.getOpenFileName(self.window, title, start, PRICE_LIST_FILTER)
        return bool(path) and self.import_rows_path(path, kind)

    @guarded("Cannot import rows")
    def import_rows_path(self, path: str, kind: str) -> bool:
        """Merge a price list: rows named like existing ones take only the file's columns, others are
        appended; any problem (a price in another currency included) keeps the workbook as it was."""
        one, many = _ROW_WORDS[kind]
        try:
            from model.report.price_list import merge_rows, read_price_list  # openpyxl stays out of start-up
        except Exception as exc:  # noqa: BLE001
            self._error("Importing from CSV/xlsx is not available", exc)
            return False
        name = Path(path).name
        try:
            prices = read_price_list(path, kind)
        except (WorkbookError, ValueError, OSError) as exc:
            self._error(f"Cannot import {many}", exc)
            return False
        if not prices.rows:
            self.window.show_message(f"{name} has no {many} under its header row; nothing changed.", 8000)
            return False
        old = self.document.workbook.tiers if kind == "tiers" else self.document.workbook.classes
        existing = {r.name.lower(): i for i, r in enumerate(old)}
        first = min((existing.get(r["name"].lower(), len(old)) for r in prices.rows), default=0)
        merged: list = []

        def mutate(wb: Workbook) -> None:
            result = merge_rows(wb, prices)  # a checked copy: raises if the result has any problem
            wb.tiers, wb.classes, wb.overrides = result.workbook.tiers, result.workbook.classes, result.workbook.overrides
            wb.settings = result.workbook.settings  # an empty workbook takes the list's currency
            merged.append(result)

        n = len(prices.rows)
        try:
            self.document.apply(f"Import {n} {one if n == 1 else many} from {name}", mutate, where=(kind, first, 0))
        except (WorkbookError, ValueError) as exc:
            self._error(f"Cannot import {many} from {name}", exc)
            return False
        self.document.flush()
        view = self.window.tier_view if kind == "tiers" else self.window.class_view
        self.window.input_tabs.setCurrentWidget(view)
        view.setCurrentIndex(view.model().index(first, 0))
        self._remember_folder(path)
        self.window.show_message(f"Imported {name}: {merged[-1].summary()} Ctrl+Z undoes it.", 20000)
        return True

    # --- helpers -----------------------------------------------------------------------
    def _show(self, wb: Workbook, path: str | None) -> None:
        self.document.replace(wb, path)
        self.document.flush()
        self.window.fit_columns()

    def _error(self, title: str, exc: BaseException) -> None:
        text = one_line(worded(exc))
        problems = getattr(exc, "problems", None)
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self.window)
        if problems and len(problems) > 1:
            box.setText(f"{title}: {len(problems)} problems. The current workbook is unchanged.")
            box.setDetailedText("\n".join(problems))
        box.exec()
        self.window.show_message(f"{title}: {text}", 15000)
