"""The window paints before the charts, the metrics readers, the Help dialog and the standard library's modules that
only an error or a rare case needs are imported (docs/dev/benchmarks.md), and the charts follow at once."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.paths import ROOT

_CHILD = """
import sys
from PySide6.QtCore import QEvent, QObject, QTimer
from gui.window.app import application, create_window
app = application()
window, _ = create_window(None)
seen = {}
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not seen:
            seen['at paint'] = sorted(m for m in ('pyqtgraph', 'gui.charts.panel', 'model.metrics.read',
                                                  'gui.metrics.dialog', 'gui.window.help_dialog', 'statistics',
                                                  'difflib', 'hashlib') if m in sys.modules)
        return False
probe = FirstPaint()
window.installEventFilter(probe)
window.show()
for _ in range(50):
    app.processEvents()
    if seen and window._charts is not None:
        break
import json
print(json.dumps([seen.get('at paint'), type(window._charts).__name__, window._charts.isVisible()]))
"""


def test_the_first_paint_needs_neither_the_charts_nor_the_metrics_readers_nor_help_and_the_charts_follow() -> None:
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))
    at_paint, built, visible = json.loads(out.stdout.strip().splitlines()[-1])
    assert at_paint == [], out.stdout + out.stderr
    assert built == "ChartsPanel" and visible, out.stdout + out.stderr


def test_asking_for_the_charts_before_the_first_paint_builds_them(qtbot, settings) -> None:
    from model.workbook.json_file import load_demo
    from gui.window.main_window import MainWindow

    win = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(win)
    assert win._charts is None  # nothing painted yet: not built
    charts = win.charts
    assert type(charts).__name__ == "ChartsPanel" and win.charts is charts
    assert charts.parent() is win.charts_pane


_ORDER_CHILD = """
import sys
first = []
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in ('numpy', 'PySide6') and not first:
            first.append(name)
        return None
sys.meta_path.insert(0, Watch())
import gui.window.app
print(first[0])
"""


def test_start_up_imports_the_model_before_pyside6() -> None:
    """PySide6 reads the source of every module imported after it (its `__feature__` check): the model and numpy
    come first, so start-up does not pay that for them."""
    out = subprocess.run([sys.executable, "-c", _ORDER_CHILD], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))
    assert out.stdout.split()[:1] == ["numpy"], out.stdout + out.stderr

