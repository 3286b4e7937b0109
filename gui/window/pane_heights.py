"""The left pane's three parts (inputs, results, per tier) sized to show their rows whole where the screen has room.

At 1366 x 768 the fixed 340 / 300 / 300 split left the tiers table a blank band under its rows while the results
grid and the Per tier table showed 7 of 8 rows, the last one cut in half. Each part is given the height its rows
need (header, rows, a horizontal scroll bar where the columns overflow) and the inputs take what is left, scrolling
where that is less than their rows need (1350 x 720, the window at 1366 x 768 without a window manager), as long as
a few of their rows still show; on a shorter screen the split is left as it is (each table scrolls). On a taller one
the height to spare is shared by the three (fit_pane_heights).
"""
from __future__ import annotations

from PySide6.QtWidgets import QSplitter, QTableView, QTabWidget, QWidget


def table_height(view: QTableView) -> int:
    """The height that shows every row of `view` whole, with its header and, where needed, its scroll bar."""
    bar = view.horizontalScrollBar()
    scroll = bar.sizeHint().height() if bar.maximum() > 0 else 0
    return view.horizontalHeader().height() + view.verticalHeader().length() + 2 * view.frameWidth() + scroll


def part_height(part: QWidget, view: QTableView) -> int:
    """A part of the pane holding `view` under a title or a tab bar: the part's height less the view's, plus the
    view's full height."""
    return part.height() - view.height() + table_height(view)


# the fewest rows of the inputs kept in view when the outputs take their full height (the rest scrolls)
MIN_INPUT_ROWS = 3


def least_height(part: QWidget, view: QTableView, rows: int = MIN_INPUT_ROWS) -> int:
    """`part` showing `rows` of `view`'s rows (all of them if fewer), its scroll bars taking the rest."""
    shown = min(rows, view.model().rowCount()) if view.model() is not None else 0
    bar = view.horizontalScrollBar()
    scroll = bar.sizeHint().height() if bar.maximum() > 0 else 0
    table = (view.horizontalHeader().height() + shown * view.verticalHeader().defaultSectionSize()
             + 2 * view.frameWidth() + scroll)
    return part.height() - view.height() + table


def fit_pane_heights(splitter: QSplitter, parts: list[tuple[QWidget, QTableView]]) -> bool:
    """Give each part after the first the height its rows need and the first the rest, down to a few of its rows
    (it scrolls: the outputs are what the analyst reads); False (nothing changed) when even that does not fit.
    Where the pane has more than all the parts need, the spare is shared out equally: each table keeps room for the
    rows to come (a tier added is a row in all three), rather than the first holding one blank band (at 1600 x
    1000 the Tiers table had some 230 px blank under its 8 rows, the outputs none)."""
    total = sum(splitter.sizes())
    needs = [part_height(part, view) for part, view in parts]
    first = total - sum(needs[1:])
    if total <= 0 or first < min(needs[0], least_height(*parts[0])):
        return False
    spare = first - needs[0]
    if spare > 0:
        share = spare // len(parts)
        splitter.setSizes([first - share * (len(parts) - 1), *(need + share for need in needs[1:])])
    else:
        splitter.setSizes([first, *needs[1:]])
    return True


def current_view(tabs: QTabWidget) -> QTableView | None:
    view = tabs.currentWidget()
    return view if isinstance(view, QTableView) else None
