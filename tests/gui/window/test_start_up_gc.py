"""Start-up's objects are frozen out of full garbage collections once the window is up (gui/window/app.py)."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.paths import ROOT


def test_the_app_freezes_start_up_after_the_first_paint(tmp_path):
    # a fresh interpreter running what `python main.py` runs: the window opens, then the app is asked to quit
    code = ("import gc; from PySide6.QtCore import QTimer; from gui.window.app import application, run_app; "
            "app = application(); frozen = [gc.get_freeze_count()]; "
            "QTimer.singleShot(800, lambda: (frozen.append(gc.get_freeze_count()), app.quit())); run_app(None); "
            "print(frozen)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path)},
                         cwd=str(ROOT))
    before, after = eval(out.stdout.strip().splitlines()[-1])  # noqa: S307  (our own child's list of two ints)
    assert before == 0 and after > 10_000, out.stderr
