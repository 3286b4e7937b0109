"""`specledger screenshot OUT.png [WORKBOOK]`: the main window rendered offscreen, for the README's screenshot."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from commands.runner import CommandError

# what a screen can be: an 8K display is 7680 x 4320 (33 Mpx); past these Qt's painter fails or the
# process runs out of memory rendering (65535 x 65535 segfaulted after 11.7 GB)
MAX_SIDE = 16384
MAX_PIXELS = 64 * 1024 * 1024
_SIZE = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")


def add_screenshot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="PNG file to write")
    parser.add_argument("workbook", nargs="?", help="workbook .json to show (default: the demo)")
    parser.add_argument("--size", default="1600x980",
                        help=f"window size WIDTHxHEIGHT (default 1600x980; at most {MAX_SIDE} a side and "
                             f"{MAX_PIXELS // (1024 * 1024)} Mpx)")
    parser.add_argument("--tab", type=int, default=0, help="which chart tab to show (0 trailer fill, 1 speedup vs acceptance, 2 speedup vs context, 3 speedup vs concurrency, 4 acceptance per position)")
    parser.add_argument("--tier", type=int, default=-1, help="row of the tier to select (default: the first speculative tier)")
    parser.add_argument("--panel", action="store_true", help="open the Measure acceptance panel, as on a screen of --size")


def _offscreen_screen(width: int, height: int, folder: str) -> str:
    """The offscreen platform with one screen of the window's size, so the window is laid out as on that screen."""
    path = os.path.join(folder, "screen.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"screens": [{"name": "shot", "x": 0, "y": 0, "width": width, "height": height,
                                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}, f)
    return f"offscreen:configfile={path}"


def parse_size(text: str) -> tuple[int, int]:
    """WIDTHxHEIGHT within what a screen can be, or a CommandError saying the bounds."""
    m = _SIZE.fullmatch(text)
    if not m:
        raise CommandError(f"--size must look like 1600x980 (got {text!r})")
    if max(len(m.group(1)), len(m.group(2))) > 6:  # no int() of a 5,000-digit side
        raise CommandError(f"--size {text.strip()[:40]}: each side must be from 1 to {MAX_SIDE} pixels")
    width, height = int(m.group(1)), int(m.group(2))
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise CommandError(f"--size {width}x{height}: each side must be from 1 to {MAX_SIDE} pixels")
    if width * height > MAX_PIXELS:
        # Mpx as the limit is stated: 2**20 pixels
        raise CommandError(f"--size {width}x{height}: {width * height / 2**20:.0f} Mpx is more than a screen can be "
                           f"(at most {MAX_PIXELS // 2**20} Mpx)")
    return width, height


def check_target(out: str) -> Path:
    """Refuse an output PNG that cannot be written, before a window is built for it."""
    from model.common.safe_files import check_output_target

    if not out.strip():
        raise CommandError("OUT is empty: give the PNG file to write")
    path = check_output_target(out, "screenshot")  # a FIFO, a device, a folder, a missing folder
    folder = path.parent if str(path.parent) else Path(".")
    # the PNG is written by rename from a file beside it: the folder must take a new file
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"{out}: the folder {folder} is not writable (permission denied)")
    return path


def run_screenshot(args: argparse.Namespace) -> int:
    width, height = parse_size(args.size)
    target = check_target(args.out)
    # a screenshot needs no screen; never let Qt abort for want of a display
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSettings, qInstallMessageHandler

    from gui.window.app import application, first_workbook
    from gui.window.main_window import MainWindow

    workbook, opened, error = first_workbook(args.workbook)
    if error:
        raise CommandError(error)
    # Qt's own chatter (the offscreen plugin's size hints, a painter that cannot start) would come out
    # before our one line; what matters is whether the image came out, and that is checked below
    previous = qInstallMessageHandler(lambda *_args: None)
    settings_dir = tempfile.mkdtemp(prefix="specledger-shot-")
    try:
        if os.environ.get("QT_QPA_PLATFORM") == "offscreen":
            # a screen of the asked size: the window (and a panel it opens) is fitted to it as on a laptop
            os.environ["QT_QPA_PLATFORM"] = _offscreen_screen(width, height, settings_dir)
        app = application()
        # a throwaway settings file: a screenshot must neither read nor change the user's window geometry
        settings = QSettings(os.path.join(settings_dir, "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(workbook, opened, settings)
        window.resize(width, height)
        if 0 <= args.tier < len(workbook.tiers):
            window.tier_view.setCurrentIndex(window.tier_model.index(args.tier, 0))
        tabs = getattr(window.charts, "tabs", None)
        if tabs is not None and 0 <= args.tab < tabs.count():
            tabs.setCurrentIndex(args.tab)
        window.show()
        if args.panel:
            window.show_sampling_panel()
        for _ in range(5):
            app.processEvents()
        window.fit_to_screen()  # as the app does once the window is up (gui/window/app.py)
        for _ in range(3):
            app.processEvents()
        image = window.grab()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        ok = not image.isNull() and image.save(buffer, "PNG")
        buffer.close()
        window.document.undo_stack.setClean()  # nothing to ask about on close
        window.close()
        settings.sync()
    finally:
        qInstallMessageHandler(previous)
        shutil.rmtree(settings_dir, ignore_errors=True)
    if not ok:
        raise CommandError(f"cannot render the window at {width}x{height} (out of graphics memory?)")
    # Python writes the file, so a failure is an OSError worded with its path, not a Qt warning
    from model.common.safe_files import atomic_write, symlink_note

    png = bytes(data)
    atomic_write(target, lambda tmp: Path(tmp).write_bytes(png))
    note = symlink_note(args.out, target)
    if note:
        print(note)
    print(args.out)
    return 0
