"""Memory the undo history holds: traced Python memory and RSS after N edits on the demo workbook.

    QT_QPA_PLATFORM=offscreen python tests/bench/bench_undo_memory.py 10000

Each edit is one Document.apply (one undo step, a whole-workbook snapshot). With the cap
(gui.document.UNDO_LIMIT) the figures stop growing once the stack is full.
"""
from __future__ import annotations

import os
import sys
import tracemalloc
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtWidgets import QApplication  # noqa: E402

from gui.document import UNDO_LIMIT, Document  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402


def _rss() -> int:
    with open("/proc/self/statm") as fh:  # Linux; elsewhere only the traced figure is shown
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main(n: int) -> None:
    _app = QApplication.instance() or QApplication([])
    doc = Document(load_demo())
    tracemalloc.start()
    base, rss0 = tracemalloc.get_traced_memory()[0], _rss()
    marks = sorted({UNDO_LIMIT // 2, UNDO_LIMIT, n})
    for i in range(n):
        doc.apply("edit", lambda wb, i=i: setattr(wb.classes[0], "alpha", 0.1 + (i % 5000) * 1e-4))
        doc.comparison  # as the window reads it after each edit: the comparison's cache (one workbook's cells) counts too
        if i + 1 in marks:
            traced, rss = tracemalloc.get_traced_memory()[0] - base, _rss() - rss0
            kept = doc.undo_stack.count()
            print(f"after {i + 1:>6} steps: {kept} kept, {traced / 1e6:6.1f} MB traced "
                  f"({traced / kept / 1e3:.1f} KB per kept step), RSS +{rss / 1e6:.1f} MB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
