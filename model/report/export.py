"""The Excel report: Summary, Grid, Comparison, Inputs, Curves and Notes sheets, written with XlsxWriter.

Closed-form results (names, baselines, claims, tokens per stretch, trailer fill,
speedup, cost factor, monthly cost, premium, mix speedup, verdicts, the
sensitivity block) are formulas over the Inputs sheet, each saved with
SpecLedger's value so the file reads right before anything recalculates it.
What a spreadsheet cannot solve in closed form (break-even and claim-implied
acceptance, roofline c and v, optimal K) is written as values, shaded grey, and
the report says when the inputs they came from have changed (stale).

`build_report` also returns, for every formula cell, SpecLedger's number for it,
so a test can hold a real spreadsheet engine to it.
"""
from __future__ import annotations

import datetime as _dt
import gc
import io
import os
import re
from collections.abc import Generator
from pathlib import Path
from typing import Any

from model.common.cancel import run_to_end
from model.comparison import compare
from model.report import styles as st
from model.report.charts import ranked_tiers, write_charts, write_curves
from model.report.comparison_sheet import HEADER_ROW as COMPARISON_HEADER_ROW
from model.report.comparison_table import write_comparison
from model.report.context_sheet import FIRST_CLASS_COL as CONTEXT_FIRST_CLASS_COL
from model.report.context_sheet import MAX_BLOCKS, add_context_charts, write_context_curves
from model.report.grid_sheet import HEADER_ROW as GRID_HEADER_ROW
from model.report.grid_sheet import class_width, write_grid
from model.report.inputs_sheet import write_inputs
from model.report.brief_sheet import brief_page, write_brief
from model.report.sensitivity import sensitivity
from model.report.sensitivity_sheet import SENSITIVITY_HEADER_ROW, write_sensitivity
from model.report.layout import (BRIEF, CHARTS, COMPARISON, COMPARISON_COLUMNS, CURVES, GRID, INPUTS, NOTES, SENSITIVITY,
                                 SUMMARY)
from model.report.notes_sheet import choice_ranges, write_notes
from model.report.summary_sheet import HEADER_ROW as SUMMARY_HEADER_ROW
from model.report.summary_sheet import BASELINE_POSITION, SUMMARY_COLUMNS
from model.report.summary_table import write_summary
from model.common.safe_files import atomic_write, check_output_target
from model.workbook.rows import Workbook
from model.acceptance.profiles import kind_of
from model.acceptance.value import ALPHA
from model.workbook.validation import WorkbookError, check_workbook

__all__ = ["COMPARISON_COLUMNS", "COMPARISON_HEADER_ROW", "SUMMARY_COLUMNS", "MAX_PAIRS", "build_report",
           "export_report", "export_steps"]

Expected = dict[tuple[str, str], Any]  # (sheet, cell) -> SpecLedger's value of that formula cell
# A report of more (tier, class) rows than this takes minutes and gigabytes in a spreadsheet program
# (and here); it is refused before any work, naming the size it can take.
MAX_PAIRS = 20_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_STEPS = 7  # six parts built, then the save


def export_report(wb: Workbook, path: str | os.PathLike[str], source_name: str = "") -> None:
    """Write the report for `wb` to `path` atomically; any failure leaves an existing file as it was."""
    run_to_end(export_steps(wb, path, source_name))


def export_steps(wb: Workbook, path: str | os.PathLike[str], source_name: str = "") -> Generator[tuple[int, int], None, Path]:
    """export_report() as long work for a worker thread: yields (steps done, steps in all), returns the path.

    Closing it between steps (a cancel) writes nothing; the save itself is one atomic step.
    """
    check_workbook(wb, source_name or str(path))
    refuse_unexportable(wb, str(path))
    _refuse_if_open_elsewhere(Path(path))
    target = check_output_target(path, "Excel report")
    # the formulas' values are kept in the file; the list of them is for build_report's callers (the tests)
    data, _ = yield from _collector_paused(_build_steps(wb, source_name, None, record=False))

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data)

    try:
        atomic_write(target, write)  # beside the target, fsynced, renamed over it, the folder fsynced
    except OSError as exc:
        raise WorkbookError([f"cannot be written ({exc.strerror or exc}); any existing file was left as it was"],
                            str(target)) from None
    yield _STEPS, _STEPS
    return target


def refuse_unexportable(wb: Workbook, source: str) -> None:
    """Refuse, in one line and before any work, a workbook the report cannot hold."""
    pairs = len(wb.tiers) * len(wb.classes)
    if pairs > MAX_PAIRS:
        raise WorkbookError([f"too large for an Excel report: {len(wb.tiers):,} tiers x {len(wb.classes):,} task "
                             f"classes is {pairs:,} tier-class rows, and the report takes at most {MAX_PAIRS:,} "
                             "(say 200 tiers x 100 classes); export fewer tiers, or use `specledger compare --csv`"],
                            source)
    # the validator refuses these; should one ever get past it, say where rather than write a broken file
    for kind, rows in (("tier", wb.tiers), ("task class", wb.classes), ("override", wb.overrides)):
        for n, row in enumerate(rows, start=1):
            for name, value in vars(row).items():
                if isinstance(value, str) and _CONTROL.search(value):
                    raise WorkbookError([f"{kind} {n}, {name}: contains a control character, which a report "
                                         "cannot hold"], source)
    if _CONTROL.search(wb.title):
        raise WorkbookError(["the workbook title contains a control character, which a report cannot hold"], source)
    # a tree tier has no numbers for a class given as one alpha (model.comparison.TREE_NEEDS_LENGTH), and the
    # report's live formulas would compute the chain's E there: refused, naming the cells, rather than contradict
    refused = tree_alpha_cells(wb)
    if refused:
        shown = ", ".join(f"{t}/{c}" for t, c in refused[:5]) + (f" and {len(refused) - 5} more" if len(refused) > 5 else "")
        raise WorkbookError([f"a tree draft's classes need a mean acceptance length or a profile, not one alpha ({shown}): "
                             "the report cannot show them; give those classes a length or a profile (Edit > Assume a "
                             "published acceptance…) and export again"], source)


def tree_alpha_cells(wb: Workbook) -> list[tuple[str, str]]:
    """(tier, class) where a speculative tree tier meets a class (or its override) given as one alpha."""
    trees = [t.name for t in wb.tiers if t.tree_size is not None and t.speculative != "no"]
    if not trees:
        return []
    over = {(o.tier, o.task_class): o for o in wb.overrides}
    return [(t, c.name) for t in trees for c in wb.classes if kind_of(over.get((t, c.name), c)) == ALPHA]


def _refuse_if_open_elsewhere(target: Path) -> None:
    """Excel and LibreOffice leave a lock file beside a document they have open.

    Replacing the file under them would lose the analyst's unsaved edits there
    (and Excel on Windows refuses the rename anyway), so say so up front.
    """
    for lock in (target.with_name(f".~lock.{target.name}#"), target.with_name(f"~${target.name}")):
        if lock.exists():
            raise WorkbookError([f"is open in another program (lock file {lock.name}); close it there and export again"],
                                str(target))


def build_report(wb: Workbook, source_name: str = "", now: _dt.datetime | None = None) -> tuple[bytes, Expected]:
    """The report as .xlsx bytes, and SpecLedger's value for each formula cell (also saved in the file)."""
    data, cells = run_to_end(_collector_paused(_build_steps(wb, source_name, now)))
    return data, {(sheet, st.cell_name(row, col)): value for sheet, row, col, value in cells}


def _build_steps(wb: Workbook, source_name: str, now: _dt.datetime | None, record: bool = True
                 ) -> Generator[tuple[int, int], None, tuple[bytes, list[tuple[str, int, int, Any]]]]:
    """Builds the report part by part, yielding (parts done, _STEPS) after each; returns the file and, with
    ``record``, each formula cell's value as SpecLedger computed it (an empty list without)."""
    import xlsxwriter

    moment = now or _dt.datetime.now(_dt.timezone.utc)
    when = moment.strftime("%Y-%m-%d %H:%M UTC")
    cmp = compare(wb)
    shifted = sensitivity(wb, cmp)
    out = io.BytesIO()
    # in memory: no temporary files of XlsxWriter's own in /tmp, and nothing to clean after a failure
    book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
                                     "strings_to_urls": False})
    title = wb.title or "SpecLedger report"
    book.set_properties({"title": title, "subject": "Speculative decoding: is the fast tier worth it?",
                         "author": "SpecLedger", "comments": f"Exported by SpecLedger {when}",
                         "created": moment.replace(tzinfo=None)})
    cells: list[tuple[str, int, int, Any]] = []
    formats = st.Formats(book)
    sheets = {name: st.SheetWriter(book, formats, name, cells if record else None) for name in (BRIEF, SUMMARY, CHARTS, GRID, SENSITIVITY,
                                                                          COMPARISON, INPUTS, CURVES, NOTES)}
    refs = write_inputs(sheets[INPUTS], wb, choice_ranges())
    heading = [("Workbook", wb.title or "–"), ("File", source_name or "–"), ("Exported", when),
               ("Currency", wb.settings.currency)]
    notes = write_notes(sheets[NOTES], wb, refs, heading)
    yield 1, _STEPS
    cmp_rows = write_comparison(sheets[COMPARISON], wb, cmp, refs, notes, shifted, BASELINE_POSITION,
                                SUMMARY_HEADER_ROW + 1)
    yield 2, _STEPS
    line = f"Workbook: {wb.title or '–'}   File: {source_name or '–'}   Exported: {when}   Currency: {wb.settings.currency}"
    tail = "   No output tokens entered: the mix weighs every class the same." if cmp.equal_weights else ""
    write_summary(sheets[SUMMARY], wb, cmp, refs, notes, cmp_rows, (line, tail))
    brief_scale = write_brief(sheets[BRIEF], wb, cmp, when)
    write_grid(sheets[GRID], wb, cmp, refs, cmp_rows)
    write_sensitivity(sheets[SENSITIVITY], wb, cmp, refs, cmp_rows, shifted)
    yield 3, _STEPS
    order = ranked_tiers(cmp)
    curve_refs = write_curves(sheets[CURVES], wb, cmp, refs, notes, cmp_rows, order)
    # the premium chart's tiers: none whose bill or its baseline's rests on prices nobody typed (no premium to plot)
    with_base = [i for i in order + [i for i in range(len(wb.tiers)) if i not in order]
                 if (b := int(cmp.tiers.baseline_index[i])) >= 0 and len(wb.classes)
                 and not (cmp.prices_not_given(i) or cmp.prices_not_given(b))]
    next_row, chart_breaks = write_charts(book, sheets[CHARTS], curve_refs, len(wb.classes), order, with_base)
    yield 4, _STEPS
    blocks = write_context_curves(sheets[CURVES], wb, cmp, refs, notes, cmp_rows, curve_refs.parity_row + 4,
                                  order[:MAX_BLOCKS], len(order))
    yield 5, _STEPS
    chart_breaks += add_context_charts(book, sheets[CHARTS], blocks, len(wb.classes), next_row)
    sheets[CHARTS].ws.set_h_pagebreaks(chart_breaks)
    # a context block's class columns as wide as a class name's longest word needs ("summarisation" ran into
    # "extraction" beside it, 12 wide), as on the Grid
    sheets[CURVES].widths({1: 18, **{c: 12 for c in range(2, max(len(order) + 3, len(wb.classes) + 6))},
                           **{CONTEXT_FIRST_CLASS_COL + j: max(12.0, class_width(c.name))
                              for j, c in enumerate(wb.classes)}})
    sheets[CURVES].ws.freeze_panes(0, 1)  # the sections below mean different things by their columns; only A stays
    _page_breaks_between_blocks(sheets[CURVES], blocks, curve_refs.parity_row + 4, sheets[CURVES].print_layout(1)[1])
    # the header row on every page of a sheet that is one table; the Summary repeats its tier table's only where
    # that table runs past a page (summary_table._page_titles_and_breaks): it headed the fair prices below it
    repeat = {COMPARISON: (COMPARISON_HEADER_ROW,) * 2, GRID: (GRID_HEADER_ROW, GRID_HEADER_ROW),
              SENSITIVITY: (SENSITIVITY_HEADER_ROW,) * 2}
    # the columns that name a row, repeated on every page across when a sheet is too wide for one; the
    # Comparison, one row per tier and class, stays one page wide (readable across two, it triples the pages)
    key_cols = {SUMMARY: 1, SENSITIVITY: 1, GRID: 2, INPUTS: 1, CURVES: 1, NOTES: 1}
    for name, sheet in sheets.items():
        sheet.page(title, when, repeat.get(name), key_cols.get(name, 0))
    # portrait, one page up to eight fast tiers; a longer list runs on at the same readable size
    brief_page(sheets[BRIEF], brief_scale)
    sheets[BRIEF].ws.activate()
    yield 6, _STEPS
    book.close()
    return out.getvalue(), cells


def _collector_paused(steps: Generator[tuple[int, int], None, Any]) -> Generator[tuple[int, int], None, Any]:
    """`steps` run with Python's cycle collector off, from the first step to the last or a cancel.

    The sheets are some 100,000 small tuples and strings with no reference
    cycles, made and then written out in one go; each full collection on the
    way walks all of them again. Off only for the Comparison and the save (as
    before), a 100 x 30 build took 1.13-1.45 s of CPU; off from start to end,
    1.01-1.13 s (/tmp figures of eight builds each, side by side). Turned on
    between steps it collects at once, which costs most of the gain, so the
    caller's handling of a step (a progress bar) runs with it off too: a few
    seconds at most. On again when the steps end, fail or are closed.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        return (yield from steps)
    finally:
        steps.close()  # a cancel between steps closes the build too
        if was_on:
            gc.enable()


def _page_breaks_between_blocks(sheet: st.SheetWriter, blocks: list, section_row: int, scale: float) -> None:
    """Manual page breaks so no context block is cut by a page end.

    At `scale` (the sheet's print scale), a page holds about 620 / scale pixels of 20-pixel rows.
    """
    if not blocks:
        return
    per_page = int(620 / (20 * scale))
    breaks = [section_row - 1]
    page_start = section_row
    for block in blocks:
        if block.last_row - page_start + 1 > per_page:
            breaks.append(block.title_row - 1)
            page_start = block.title_row
    sheet.ws.set_h_pagebreaks(breaks[:1000])  # Excel's limit on manual breaks
