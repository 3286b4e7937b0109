"""File > Import tiers / task classes from CSV or xlsx: merged as one undo step, errors named, workbook kept."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog


def _menu_action(window, text: str):  # noqa: ANN001
    menu = next(a for a in window.menuBar().actions() if a.text() == "&File").menu()
    return next(a for a in menu.actions() if a.text() == text)


@pytest.fixture
def errors(window, monkeypatch) -> list[str]:  # noqa: ANN001
    shown: list[str] = []
    monkeypatch.setattr(window.files, "_error", lambda title, exc: shown.append(f"{title}: {exc}"))
    return shown


def test_tiers_from_csv_through_the_menu_are_one_undo_step(qtbot, window, tmp_path: Path, monkeypatch, errors) -> None:
    path = tmp_path / "vendor prices.csv"
    path.write_text("Tier,Vendor,K,Price out /1M,Unused column\n"
                    "northwind turbo,Northwind AI,6,22,x\n"
                    "Zeta Fast,Zeta,3,$9.50,y\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    doc = window.document
    before = doc.workbook
    _menu_action(window, "Import &tiers from CSV/xlsx…").trigger()
    assert errors == []
    tiers = doc.workbook.tiers
    assert len(tiers) == len(before.tiers) + 1
    turbo = tiers[1]
    # matched case-insensitively; the workbook's spelling and everything the file lacks stay
    assert turbo == dataclasses.replace(before.tiers[1], vendor="Northwind AI", k=6, price_out=22.0)
    assert (tiers[-1].name, tiers[-1].vendor, tiers[-1].price_out) == ("Zeta Fast", "Zeta", 9.5)
    assert doc.workbook.overrides == before.overrides
    assert doc.undo_stack.count() == 1 and "Import 2 tiers from vendor prices.csv" == doc.undo_stack.undoText()
    assert window.input_tabs.currentWidget() is window.tier_view
    assert window.tier_view.currentIndex().row() == 1
    message = window.statusBar().currentMessage()
    assert "1 added (Zeta Fast); 1 updated (Northwind Turbo)" in message and "Columns changed: K, Price out /1M" in message
    assert window.results_model.rowCount() == len(tiers)
    doc.undo_stack.undo()
    assert doc.workbook is before


def test_task_classes_from_xlsx(qtbot, window, tmp_path: Path, errors) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Workload"
    sheet.append(["Task class", "Acceptance alpha", "Context", "Output tokens/month"])
    sheet.append(["legal", "72%", "32K", 5e6])
    sheet.append(["JSON", 0.9, 8192, 1e7])
    path = tmp_path / "classes.xlsx"
    book.save(path)
    assert window.files.import_rows_path(str(path), "classes")
    classes = window.document.workbook.classes
    # "JSON" matches json: the workbook's spelling stays
    assert [c.name for c in classes] == ["code", "json", "extraction", "summarisation", "prose", "creative", "legal"]
    assert (classes[-1].alpha, classes[-1].context) == (0.72, 32768)
    assert classes[1].alpha == 0.9
    assert window.document.undo_stack.count() == 1
    assert window.input_tabs.currentWidget() is window.class_view


def test_a_bad_value_names_file_row_and_field_and_keeps_the_workbook(qtbot, window, tmp_path: Path, errors) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("name,K,Price out /1M\nGood,4,10\nBad,forty,10\n", encoding="utf-8")
    before = window.document.workbook
    assert not window.files.import_rows_path(str(path), "tiers")
    assert window.document.workbook is before and window.document.undo_stack.count() == 0
    assert len(errors) == 1
    assert str(path) in errors[0] and "cell B3" in errors[0] and "'Bad'" in errors[0] and "K:" in errors[0]


@pytest.mark.parametrize("content, expected", [
    (None, "no such file"),
    ("Vendor,K\nAcme,4\n", "no 'Tier' (name) column"),
])
def test_unusable_files_are_explained(qtbot, window, tmp_path: Path, errors, content, expected) -> None:
    path = tmp_path / "list.csv"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert not window.files.import_rows_path(str(path), "tiers")
    assert len(errors) == 1 and expected in errors[0] and str(path) in errors[0]
    assert window.document.undo_stack.count() == 0


def test_a_header_only_file_changes_nothing(qtbot, window, tmp_path: Path, errors) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("Task class,Acceptance alpha\n", encoding="utf-8")
    assert not window.files.import_rows_path(str(path), "classes")
    assert errors == [] and window.document.undo_stack.count() == 0
    assert "nothing changed" in window.statusBar().currentMessage()


def test_a_cancelled_dialog_does_nothing(qtbot, window, monkeypatch, errors) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))
    _menu_action(window, "Import task &classes from CSV/xlsx…").trigger()
    assert errors == [] and window.document.undo_stack.count() == 0


def test_rows_that_clash_with_the_workbook_are_refused_whole(qtbot, window, tmp_path: Path, errors) -> None:
    path = tmp_path / "tiers.csv"
    path.write_text("Tier,Baseline\nFine,\nOrphan,No Such Tier\n", encoding="utf-8")
    before = window.document.workbook
    assert not window.files.import_rows_path(str(path), "tiers")
    assert window.document.workbook is before and window.document.undo_stack.count() == 0
    assert errors == ["Cannot import tiers from tiers.csv: Tier 'Orphan', Baseline: no tier is named 'No Such Tier'"]


def test_the_issues_price_list_keeps_every_column_it_lacks(qtbot, window, tmp_path: Path, errors) -> None:
    # Tier, Vendor, Speculative, K, prices and Baseline naming Northwind Turbo: its roofline cost
    # model, batch 4, claim and notes were reset to a blank row's before (code speedup 2.17x -> 2.88x)
    path = tmp_path / "northwind.csv"
    path.write_text("Tier,Vendor,Speculative,K,Price out /1M,Price in /1M,Baseline\n"
                    "Northwind Turbo,Northwind AI,yes,5,21,4.5,Northwind Standard\n", encoding="utf-8")
    doc = window.document
    before = doc.workbook
    speedup_before = doc.comparison.cells.speedup[1].copy()
    assert window.files.import_rows_path(str(path), "tiers")
    doc.flush()
    turbo = doc.workbook.tiers[1]
    assert turbo == dataclasses.replace(before.tiers[1], price_out=21.0, price_in=4.5)
    assert (turbo.cost_model, turbo.batch, turbo.claimed_speedup, turbo.notes) == (
        before.tiers[1].cost_model, before.tiers[1].batch, before.tiers[1].claimed_speedup, before.tiers[1].notes)
    assert (doc.comparison.cells.speedup[1] == speedup_before).all()
    message = window.statusBar().currentMessage()
    assert "0 added; 1 updated (Northwind Turbo)" in message and "Columns changed: Price out /1M, Price in /1M" in message


def test_dollars_into_a_euro_workbook_are_refused(qtbot, window, tmp_path: Path, errors) -> None:
    doc = window.document
    doc.apply("EUR", lambda wb: setattr(wb.settings, "currency", "EUR"))
    before = doc.workbook
    path = tmp_path / "usd.csv"
    path.write_text("Tier,Price out /1M\nNorthwind Turbo,$21\n", encoding="utf-8")
    assert not window.files.import_rows_path(str(path), "tiers")
    assert doc.workbook is before and doc.undo_stack.count() == 1
    assert len(errors) == 1 and "cell B2" in errors[0] and "is in USD" in errors[0] and "in EUR" in errors[0]
