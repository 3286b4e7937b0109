"""Render the charts panel offscreen on the demo workbook, one PNG per chart: for looking at."""
from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtWidgets import QApplication  # noqa: E402

from gui.charts.panel import ChartsPanel  # noqa: E402
from model.comparison import compare  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402


def main(out_dir: str = "/tmp", tier_row: int = 1, width: int = 520, height: int = 460) -> None:
    app = QApplication.instance() or QApplication([])
    wb = load_demo()
    panel = ChartsPanel()
    panel.resize(width, height)
    panel.show()
    panel.show_result(wb, compare(wb), tier_row)
    for i, name in enumerate(("trailer", "alpha", "context")):
        panel.tabs.setCurrentIndex(i)
        app.processEvents()
        path = Path(out_dir) / f"charts_{name}.png"
        panel.grab().save(str(path))
        print(path)
    panel.tabs.setCurrentIndex(0)
    app.processEvents()
    panel.grab().save(str(Path(out_dir) / "charts.png"))


if __name__ == "__main__":
    main(*(sys.argv[1:2] or ["/tmp"]), *(int(a) for a in sys.argv[2:]))
