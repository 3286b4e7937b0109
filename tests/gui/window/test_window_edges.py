"""Smaller edges of the window: the delete question names overrides only where a tier has some, the status line
stops saying "Ctrl+Z undoes it." once the step is undone, Save As starts beside a report just imported, and the
probe's confirmation says how many of its requests go to the baseline."""
from __future__ import annotations

from pathlib import Path

from model.probe.plan import Estimate
from model.report.export import export_report
from model.workbook.json_file import load_demo


def _select_tier(window, row: int) -> None:
    window.input_tabs.setCurrentWidget(window.tier_view)
    window.tier_view.setCurrentIndex(window.tier_model.index(row, 0))
    window.tier_view.select_block(row, 0, row, 0)


def test_the_delete_question_mentions_overrides_only_where_there_are_some(window):
    asked = []
    window.rows.confirm = lambda title, text: asked.append(text) or False
    wb = window.document.workbook
    plain = wb.tier_index("Northwind Standard")  # a baseline (asked), with no overrides of its own
    assert not any(o.tier == "Northwind Standard" for o in wb.overrides)
    _select_tier(window, plain)
    window.delete_rows()
    assert asked and "override" not in asked[-1] and "Northwind Turbo" in asked[-1]
    with_override = next(i for i, t in enumerate(wb.tiers) if any(o.tier == t.name for o in wb.overrides))
    n = sum(o.tier == wb.tiers[with_override].name for o in wb.overrides)
    window.tier_view.select_block(plain, 0, with_override, 0)
    window.delete_rows()
    assert f"acceptance override{'s' if n > 1 else ''}" in asked[-1]


def test_the_status_line_stops_offering_an_undo_once_it_is_done(window):
    window.rows.confirm = lambda title, text: True
    _select_tier(window, window.document.workbook.tier_index("Helix Fast"))
    window.delete_rows()
    assert window.statusBar().currentMessage().endswith("Ctrl+Z undoes it.")
    window.document.undo_stack.undo()
    message = window.statusBar().currentMessage()
    assert "Ctrl+Z undoes it" not in message and message.startswith("Undone: Delete 1 tier")


def test_save_as_starts_beside_a_report_just_imported(window, tmp_path: Path):
    folder = tmp_path / "reports"
    folder.mkdir()
    export_report(load_demo(), folder / "r.xlsx")
    window.document.undo_stack.setClean()
    assert window.files.open_path(str(folder / "r.xlsx"), ask=False)
    assert Path(window.files.suggested_path(".json")).parent == folder


def test_the_probes_confirmation_says_half_go_to_the_baseline():
    text = Estimate(96, 1000, 6144, None, {"fast": (48, 500, 3072), "baseline": (48, 500, 3072)}).describe("USD")
    assert text.startswith("96 requests (48 to the tier, 48 to its baseline)")
    assert Estimate(48, 500, 3072, None, {"fast": (48, 500, 3072)}).describe().startswith("48 requests, about")
