"""Starting the window: the QApplication, the first workbook (a file or the demo), the event loop."""
from __future__ import annotations

import gc
import sys
from pathlib import Path

# the model (numpy with it) before PySide6: once PySide6 is imported it reads the source of every module imported
# after it (looking for its `__feature__` switches), about 30 ms of start-up for numpy's and the model's modules
# that nothing gains (docs/dev/benchmarks.md#the-first-painted-window)
from model.comparison import compare  # noqa: F401  (imported here for the order above; the window computes it)
from model.common.messages import is_worded, one_line, worded
from model.workbook.validation import WorkbookError
from model.workbook.rows import Workbook
from model.workbook.json_file import load_demo, load_workbook

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from gui.window.main_window import MainWindow


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setApplicationName("SpecLedger")
    app.setOrganizationName("SpecLedger")
    return app  # type: ignore[return-value]


def first_workbook(path: str | None) -> tuple[Workbook, str | None, str]:
    """The workbook to open with; a bad file falls back to the demo and says why (third item)."""
    if not path:
        return load_demo(), None, ""
    try:
        if path.lower().endswith(".xlsx"):
            # as File > Open does: a report's inputs become a new, unsaved workbook (Save never writes over it)
            from model.report.importer import import_report  # openpyxl only when a report is opened

            wb = import_report(path)
            wb.title = wb.title or Path(path).stem
            return wb, None, ""
        return load_workbook(path), path, ""
    except WorkbookError as exc:
        return load_demo(), None, str(exc)
    except Exception as exc:  # noqa: BLE001  (a damaged file must not stop the window from opening)
        text = one_line(worded(exc))
        return load_demo(), None, text if is_worded(exc) else f"{exc.__class__.__name__}: {text}"


def create_window(path: str | None) -> tuple[MainWindow, str]:
    workbook, opened, error = first_workbook(path)
    window = MainWindow(workbook, opened)
    if opened:
        window.files._remember(opened)
    return window, error


def settle_start_up() -> None:
    """Once the window is up: collect start-up's garbage, then freeze what is left (modules, Qt wrappers, the
    window's items) out of the cyclic garbage collector's full collections. Those walked every object of the
    process, about 80,000 of them start-up's, in the middle of an edit: 50-480 ms pauses at 100 x 30 on a busy
    machine (tests/bench/bench_gui.py), the far end of an edit's time to update. Objects made later are collected as
    before; start-up's are kept for the life of the process anyway. The collector, which main.py turns off for the
    start (docs/dev/benchmarks.md#the-first-painted-window), is on from here."""
    gc.collect()
    gc.freeze()
    gc.enable()


def run_app(path: str | None) -> int:
    app = application()
    window, error = create_window(path)
    window.show()
    # once the charts (built after the first paint) are up: their imports are start-up's too, and a collection
    # before the first paint would only delay it; the timer is for a window that is never painted
    window.after_charts(settle_start_up)
    QTimer.singleShot(3000, settle_start_up)
    # a window manager adds its frame on showing: keep the frame on the screen too
    QTimer.singleShot(300, window.fit_to_screen)
    if error:
        # after the window is up, so the message has a parent and the demo is visible behind it
        QTimer.singleShot(0, lambda: QMessageBox.warning(window, "Cannot open workbook", f"{error}\n\nShowing the demo workbook instead."))
    return app.exec()
