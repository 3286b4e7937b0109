"""Export a chart to PNG or SVG: a plain function for tests, a file dialog for people."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
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
        with _closed_paths_tolerated():
            pyqtgraph.exporters.SVGExporter(item).export(fileName=str(out))
    else:
        exporter = pyqtgraph.exporters.ImageExporter(item)
        params = exporter.parameters()
        # the exporter keeps the aspect ratio: setting the width updates the height
        params["width"] = int(params["width"] * PNG_SCALE)
        exporter.export(fileName=str(out))
    return out


@contextmanager
def _closed_paths_tolerated() -> Iterator[None]:
    """While exporting, drop the bare "Z" (close path) tokens Qt 6.12 writes into SVG paths.

    pyqtgraph 0.14's SVG exporter reads every token of a path as "x,y" and raises on
    "Z", which Qt 6.12 now emits for every closed path, the view box's clip rectangle
    included. The paths that carry it already end at their start point (and fills close
    themselves), so the drawing is unchanged. Restored afterwards; a no-op if pyqtgraph's
    internals differ.
    """
    module = sys.modules.get("pyqtgraph.exporters.SVGExporter")
    original = getattr(module, "correctCoordinates", None)
    if original is None:
        yield
        return

    def correct(node, defs, item, options):  # same signature as pyqtgraph's function
        for element in node.getElementsByTagName("path"):
            d = element.getAttribute("d")
            if "Z" in d or "z" in d:
                element.setAttribute("d", " ".join(t for t in d.split() if t not in ("Z", "z")))
        return original(node, defs, item, options)

    module.correctCoordinates = correct
    try:
        yield
    finally:
        module.correctCoordinates = original


def ask_export_path(parent: QWidget | None, kind: str, suggested_name: str) -> Path | None:
    """Ask where to save; None when the user cancels."""
    name, _ = QFileDialog.getSaveFileName(parent, f"Export chart as {kind.upper()}", f"{suggested_name}.{kind}", EXPORT_FILTERS[kind])
    if not name:
        return None
    path = Path(name)
    return path if path.suffix.lower() == f".{kind}" else path.with_suffix(f".{kind}")
