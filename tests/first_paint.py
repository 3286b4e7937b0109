"""Code for a child interpreter: run main.py (the demo workbook) and call ``on_paint(window)`` at the first Paint
event of its main window, ``on_import()`` as main.py starts importing the window's module.

The window's module (gui/window/app.py) is patched as main.py imports it, so what runs is main.py's own start, in
its own order. The child defines ``on_import`` and ``on_paint`` before this code; the start-up benchmark
(tests/bench/bench_gui.py) and the start-up tests use it.
"""

RUN_MAIN = r'''
import importlib.machinery, runpy, sys
def _watch(app_module):
    from PySide6.QtCore import QEvent, QObject
    class FirstPaint(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                obj.removeEventFilter(self)
                on_paint(obj)
            return False
    probe, make = FirstPaint(), app_module.create_window
    def create_window(path):
        window, error = make(path)
        window.installEventFilter(probe)
        return window, error
    app_module.create_window = create_window
class _Hook:
    def find_spec(self, name, path=None, target=None):
        if name != "gui.window.app":
            return None
        sys.meta_path.remove(self)
        on_import()
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        spec.loader.exec_module = lambda module: (run(module), _watch(module))
        return spec
sys.meta_path.insert(0, _Hook())
sys.argv = ["main.py"]
try:
    runpy.run_path("main.py", run_name="__main__")
except SystemExit:
    pass
'''
