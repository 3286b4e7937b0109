"""The probe's results per task class, as a read-only table model."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from model.common.formatting import pct
from model.probe.analysis import ClassProbe, ProbeReport

Index = QModelIndex | QPersistentModelIndex

COLUMNS = ("Task class", "Requests", "α used", "α interval", "Source", "α reported", "α timing", "Tokens/step",
           "TTFT", "Decode tok/s", "Speedup")
_INTERVAL = 3
_DISAGREEING = (2, 4, 5, 6)  # α used, Source, α reported, α timing: marked where the two readings disagree
_CAUTION = QColor("#8a5a00")


def interval_text(c: ClassProbe) -> str:
    if c.alpha_interval:
        return f"{c.alpha_interval[0] * 100:.1f}–{c.alpha_interval[1] * 100:.1f}%"
    return "too few requests" if c.interval_note and "too few" in c.interval_note else "–"


def _x(value: float | None, spec: str, suffix: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{suffix}"


def _cell(c: ClassProbe, column: int) -> str:
    if column == _INTERVAL:
        return interval_text(c)
    if column > _INTERVAL:
        column -= 1
    if column == 0:
        return c.task_class
    if column == 1:
        return str(c.requests)
    if column in (2, 4, 5):
        value = {2: c.alpha, 4: c.alpha_reported, 5: c.alpha_timing}[column]
        return "–" if value is None else pct(value)
    if column == 3:  # a mark where the two readings disagree (its tooltip says how and which is used)
        return (c.alpha_source or "–") + (" ⚠" if c.sources_disagree else "")
    if column == 6:
        return _x(c.mean_tokens_per_step, ".2f")
    if column == 7:
        return _x(None if c.ttft_s is None else c.ttft_s * 1000, ".0f", " ms")
    if column == 8:
        return _x(c.decode_tokens_per_s, ",.0f")
    speeds = c.speedup_measured or {}
    return ", ".join(f"{_x(v, '.2f', 'x')} at {k}" for k, v in speeds.items()) or "–"


class ProbeResultsModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._classes: list[ClassProbe] = []

    def set_report(self, report: ProbeReport | None) -> None:
        self.beginResetModel()
        self._classes = list(report.classes) if report is not None else []
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._classes)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        c = self._classes[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _cell(c, index.column())
        if c.sources_disagree and index.column() in _DISAGREEING:
            if role == Qt.ItemDataRole.ToolTipRole:
                return (f"{c.task_class}: {c.sources_disagree}. The α used, and stored by Apply, is the "
                        f"{c.alpha_source} one.")
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(_CAUTION)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 5 and c.reported_convention:
            return c.reported_convention
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == _INTERVAL:
            conf = f"{c.interval_confidence:.0%} interval, " if c.interval_confidence else ""
            return (f"{conf}{c.prompts} distinct prompts as the unit ({c.interval_method})" if c.alpha_interval
                    else (c.interval_note or "no alpha"))
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() not in (0, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None
