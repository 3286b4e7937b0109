"""Which cells of a result table a view has painted, and of those which an edit really changed on screen.

The result models find the cells an edit touched by comparing the comparison's arrays (cheap, but a mix moved
in its fourth digit reads the same '2.31x'); repainting a cell costs some 35 us (the delegate asks the model for
seven roles, then draws), so the blocks found are narrowed here to the cells whose look (text and colours)
differs between the old and the new comparison. Only painted cells are looked at: one never painted shows
nothing that could be stale, and is signalled as found (off screen, a view's update of it costs nothing).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

Block = tuple[int, int, int, int]  # top, left, bottom, right (inclusive)
# past this many ranges one signal for their bounding block is cheaper than a signal each
MAX_BLOCKS = 64


class ShownCells:
    """The cells a view has painted since the model's shape last changed. A SpreadsheetView counts ``painting``
    up while it paints: a cell's text asked for then is on screen; asked for otherwise (a column fit measuring
    every row, a copy) it is not marked, or every edit would compare the looks of the whole table."""

    def __init__(self) -> None:
        self._painted = np.zeros((0, 0), dtype=bool)
        self.painting = 0

    def mark(self, row: int, col: int) -> None:
        """The model was asked for the cell's text (marked when a view is painting)."""
        if self.painting and row < self._painted.shape[0] and col < self._painted.shape[1]:
            self._painted[row, col] = True

    def fit(self, rows: int, cols: int) -> None:
        """The model's shape now; another shape forgets every cell (a reset repaints them all)."""
        if self._painted.shape != (rows, cols):
            self._painted = np.zeros((rows, cols), dtype=bool)

    def narrow(self, blocks: list[Block], same_look: Callable[[int, int], bool]) -> list[Block]:
        """The parts of ``blocks`` to signal: every cell but the painted ones whose look is the same."""
        out: list[Block] = []
        for top, left, bottom, right in blocks:
            painted = self._painted[top:bottom + 1, left:right + 1]
            if not painted.any():
                out.append((top, left, bottom, right))
                continue
            keep = np.ones((bottom - top + 1, right - left + 1), dtype=bool)
            for r, c in zip(*np.nonzero(painted)):
                if same_look(top + int(r), left + int(c)):
                    keep[r, c] = False
            out.extend((top + t, left + le, top + b, left + ri) for t, le, b, ri in _ranges(keep))
        if len(out) > MAX_BLOCKS:  # scattered: each column's span, or if still too many, the span of them all
            columns: dict[int, Block] = {}
            for top, left, bottom, right in out:
                for col in range(left, right + 1):
                    had = columns.get(col, (top, col, bottom, col))
                    columns[col] = (min(had[0], top), col, max(had[2], bottom), col)
            out = list(columns.values())
        if len(out) > MAX_BLOCKS:
            return [(min(b[0] for b in out), min(b[1] for b in out), max(b[2] for b in out), max(b[3] for b in out))]
        return out


def _ranges(keep: np.ndarray) -> list[Block]:
    """The True cells of a mask as blocks: each column's runs of rows, neighbouring columns with equal runs joined."""
    out: list[Block] = []
    previous: list[tuple[int, int]] = []
    open_blocks: dict[tuple[int, int], int] = {}  # (top, bottom) of a run -> its block's index in out
    for col in range(keep.shape[1]):
        edges = np.flatnonzero(np.diff(np.concatenate(([0], keep[:, col].view(np.int8), [0]))))
        runs = [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2])]
        joined: dict[tuple[int, int], int] = {}
        for run in runs:
            at = open_blocks.get(run) if runs == previous else None
            if at is not None:
                top, left, bottom, _ = out[at]
                out[at] = (top, left, bottom, col)
                joined[run] = at
            else:
                joined[run] = len(out)
                out.append((run[0], col, run[1], col))
        open_blocks, previous = joined, runs
    return out


# fields whose value changes how other cells of the row look (greyed when a tier does not use them)
STYLING_FIELDS = frozenset({"speculative", "cost_model"})


def row_edit_columns(old_rows: Sequence[Any], new_rows: Sequence[Any], columns: Sequence[str]) -> Block | None:
    """The block of an input table (one row per dataclass, one column per field in ``columns``) to repaint:
    the changed rows, and of them only the columns whose own field changed, unless a field changed that another
    cell shows (a profile or a range beside the alpha, the made-up marks) or that greys other cells: then the
    whole rows. A K typed repaints its cell, not the tier's 16."""
    changed = [i for i, (a, b) in enumerate(zip(old_rows, new_rows)) if a is not b and a != b]
    if not changed:
        return None
    whole = (changed[0], 0, changed[-1], len(columns) - 1)
    at = {name: col for col, name in enumerate(columns)}
    cols: set[int] = set()
    for i in changed:
        a, b = old_rows[i], new_rows[i]
        if type(a) is not type(b) or not dataclasses.is_dataclass(a):
            return whole
        for field in dataclasses.fields(a):
            if getattr(a, field.name) != getattr(b, field.name):
                if field.name not in at or field.name in STYLING_FIELDS:
                    return whole
                cols.add(at[field.name])
    return (changed[0], min(cols), changed[-1], max(cols)) if cols else whole

