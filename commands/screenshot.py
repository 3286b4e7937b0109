"""`specledger screenshot OUT.png [WORKBOOK]`: the main window rendered offscreen, for the README."""
from __future__ import annotations

import argparse
import os
import tempfile

from commands.runner import CommandError


def add_screenshot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="PNG file to write")
    parser.add_argument("workbook", nargs="?", help="workbook .json to show (default: the demo)")
    parser.add_argument("--size", default="1600x980", help="window size WIDTHxHEIGHT (default 1600x980)")
    parser.add_argument("--tab", type=int, default=0, help="which chart tab to show (0 trailer fill, 1 speedup vs acceptance, 2 speedup vs context)")
    parser.add_argument("--tier", type=int, default=-1, help="row of the tier to select (default: the first speculative tier)")


def run_screenshot(args: argparse.Namespace) -> int:
    # a screenshot needs no screen; never let Qt abort for want of a display
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from gui.window.app import application, first_workbook
    from gui.window.main_window import MainWindow

    try:
        width, height = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        raise CommandError(f"--size must look like 1600x980 (got {args.size!r})") from None
    workbook, opened, error = first_workbook(args.workbook)
    if error:
        raise CommandError(error)
    app = application()
    # a throwaway settings file: a screenshot must neither read nor change the user's window geometry
    settings_dir = tempfile.mkdtemp(prefix="specledger-shot-")
    settings = QSettings(os.path.join(settings_dir, "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(workbook, opened, settings)
    window.resize(width, height)
    if 0 <= args.tier < len(workbook.tiers):
        window.tier_view.setCurrentIndex(window.tier_model.index(args.tier, 0))
    tabs = getattr(window.charts, "tabs", None)
    if tabs is not None and 0 <= args.tab < tabs.count():
        tabs.setCurrentIndex(args.tab)
    window.show()
    for _ in range(5):
        app.processEvents()
    ok = window.grab().save(args.out, "PNG")
    window.document.undo_stack.setClean()  # nothing to ask about on close
    window.close()
    if not ok:
        raise CommandError(f"cannot write {args.out}")
    print(args.out)
    return 0
