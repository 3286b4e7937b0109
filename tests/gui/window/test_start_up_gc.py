"""Start-up's objects are frozen out of full garbage collections once the window is up (gui/window/app.py)."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.first_paint import RUN_MAIN
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


_MAIN_CHILD = """
import gc
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(1))
seen = {}
def on_import():
    seen["at import"] = len(collections)
def on_paint(window):
    from PySide6.QtCore import QTimer
    seen["at paint"] = (len(collections) - seen["at import"], gc.isenabled())
    window.document.undo_stack.setClean()
    QTimer.singleShot(100, window.close)
""" + RUN_MAIN + """
print(seen["at paint"][0], seen["at paint"][1], gc.isenabled(), len(gc.get_objects()) < gc.get_freeze_count())
"""

def test_the_collector_waits_for_the_first_paint_and_runs_after_it(tmp_path) -> None:
    """main.py turns the cyclic collector off before the window's imports (their ~90 collections were 20 ms of the
    start); the window turns it back on after its first paint, start-up's objects frozen out of it."""
    out = subprocess.run([sys.executable, "-c", _MAIN_CHILD], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
                              "XDG_CONFIG_HOME": str(tmp_path)}, cwd=str(ROOT))
    collected, enabled_at_paint, enabled_after, frozen = out.stdout.split()[-4:]
    assert (collected, enabled_at_paint) == ("0", "False"), out.stdout + out.stderr
    assert (enabled_after, frozen) == ("True", "True"), out.stdout + out.stderr
