"""Export a chart to PNG or SVG: a plain function for tests, a file dialog for people."""
from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtWidgets import QFileDialog, QWidget

EXPORT_FILTERS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)"}
PNG_SCALE = 2.0  # charts are small on screen; a 2x raster stays sharp in a slide deck


def export_chart(item: pg.GraphicsObject | pg.GraphicsWidget, path: str | Path) -> Path:
    """Write ``item`` (a plot, or a layout holding plot and legend) to ``path``; format from the suffix."""
    out = Path(path)
    kind = out.suffix.lower().lstrip(".")
    if kind not in EXPORT_FILTERS:
        raise ValueError(f"cannot export to {out.name}: use a .png or .svg file name")
    if kind == "svg":
        pyqtgraph.exporters.SVGExporter(item).export(fileName=str(out))
    else:
        exporter = pyqtgraph.exporters.ImageExporter(item)
        params = exporter.parameters()
        # the exporter keeps the aspect ratio: setting the width updates the height
        params["width"] = int(params["width"] * PNG_SCALE)
        exporter.export(fileName=str(out))
    return out


def ask_export_path(parent: QWidget | None, kind: str, suggested_name: str) -> Path | None:
    """Ask where to save; None when the user cancels."""
    name, _ = QFileDialog.getSaveFileName(parent, f"Export chart as {kind.upper()}", f"{suggested_name}.{kind}", EXPORT_FILTERS[kind])
    if not name:
        return None
    path = Path(name)
    return path if path.suffix.lower() == f".{kind}" else path.with_suffix(f".{kind}")
