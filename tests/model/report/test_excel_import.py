"""Reading inputs back: the report round trip, errors that name sheet and cell, CSV/xlsx price lists, the CLI."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest

openpyxl = pytest.importorskip("openpyxl")

import main  # noqa: E402
from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.sheet_reader import REPORT_ROWS  # noqa: E402
from model.report.price_list import read_price_list  # noqa: E402
from model.report.layout import CLASS_COLUMNS, INPUTS, NOTES, InputsLayout, SETTING_ROWS, column_of  # noqa: E402
from model.workbook.validation import CLASS_FIELDS, TIER_FIELDS, WorkbookError  # noqa: E402
from model.workbook.rows import TaskClass, Tier, Workbook  # noqa: E402
from model.workbook.json_file import load_workbook  # noqa: E402
from tests.excel_cases import demo, edge_workbook  # noqa: E402


@pytest.mark.parametrize("make", [demo, edge_workbook, Workbook], ids=["demo", "edge", "empty"])
def test_export_then_import_gives_the_same_workbook(tmp_path, make):
    wb = make()
    export_report(wb, tmp_path / "r.xlsx")
    assert import_report(tmp_path / "r.xlsx") == wb


def _edited(tmp_path: Path, edits: dict[tuple[int, int], object], wb: Workbook | None = None) -> Path:
    wb = wb or demo()
    export_report(wb, tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    for (row, col), value in edits.items():
        book[INPUTS].cell(row, col).value = value
    book.save(tmp_path / "edited.xlsx")
    return tmp_path / "edited.xlsx"


def test_edits_made_in_excel_come_back(tmp_path):
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    path = _edited(tmp_path, {
        (lay.class_row(0), column_of(CLASS_FIELDS, "alpha")): "72%",  # typed as text in a cell
        (lay.tier_row(1), column_of(TIER_FIELDS, "price_out")): 18,
        (lay.tier_row(1), column_of(TIER_FIELDS, "speculative")): "Unknown",
        (SETTING_ROWS["marginal_band"], 2): 0.1,
    })
    back = import_report(path)
    assert back.classes[0].alpha == pytest.approx(0.72)
    assert back.tiers[1].price_out == 18.0 and back.tiers[1].speculative == "unknown"
    assert back.settings.marginal_band == 0.1


def test_rows_added_under_the_tables_are_imported(tmp_path):
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    new_tiers = [Tier(name=f"Added {n}", vendor="=Acme", k=3, price_out=2.0) for n in range(2)]
    edits: dict[tuple[int, int], object] = {}
    for n, tier in enumerate(new_tiers):  # two rows: the second one sits right above "Task classes"
        for col, spec in enumerate(TIER_FIELDS, start=1):
            edits[(lay.tier_row(len(wb.tiers) + n), col)] = getattr(tier, spec.name)
    path = _edited(tmp_path, edits)
    book = openpyxl.load_workbook(path)
    book[INPUTS].cell(lay.tier_row(len(wb.tiers)), 2).data_type = "s"  # as Excel keeps '=Acme typed as text
    book[INPUTS].cell(lay.tier_row(len(wb.tiers) + 1), 2).data_type = "s"
    book.save(path)
    back = import_report(path)
    assert back.tiers == wb.tiers + new_tiers
    assert back.classes == wb.classes


def test_bad_cells_are_named_and_nothing_is_imported(tmp_path):
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    k_col, alpha_col = column_of(TIER_FIELDS, "k"), column_of(CLASS_FIELDS, "alpha")
    path = _edited(tmp_path, {
        (lay.tier_row(1), k_col): "five",
        (lay.class_row(2), alpha_col): 1.7,
    })
    with pytest.raises(WorkbookError) as err:
        import_report(path)
    msg = str(err.value)
    k_cell = f"{openpyxl.utils.get_column_letter(k_col)}{lay.tier_row(1)}"
    a_cell = f"{openpyxl.utils.get_column_letter(alpha_col)}{lay.class_row(2)}"
    assert f"sheet Inputs, cell {k_cell}: Tier 'Northwind Turbo', K: must be a whole number" in msg
    assert f"sheet Inputs, cell {a_cell}: Task class 'extraction', Acceptance alpha: must be" in msg
    assert "\n" not in msg


def test_cross_row_problems_name_the_cell(tmp_path):
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    col = column_of(TIER_FIELDS, "baseline")
    path = _edited(tmp_path, {(lay.tier_row(1), col): "Nobody"})
    cell = f"{openpyxl.utils.get_column_letter(col)}{lay.tier_row(1)}"
    with pytest.raises(WorkbookError, match=rf"sheet Inputs, cell {cell}: Tier 'Northwind Turbo', Baseline: no tier is named 'Nobody'"):
        import_report(path)


def test_a_duplicate_name_names_both_cells_not_table_rows(tmp_path):
    # before: "Tier 'Northwind Turbo' in row 3: the name is already used in row 2", counted inside the table
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    path = _edited(tmp_path, {(lay.tier_row(2), 1): "Northwind Turbo", (lay.override_row(0), 2): "poetry"})
    with pytest.raises(WorkbookError) as err:
        import_report(path)
    msg = str(err.value)
    assert (f"sheet Inputs, cell A{lay.tier_row(2)}: Tier 'Northwind Turbo': the name is already used in "
            f"cell A{lay.tier_row(1)}") in msg
    assert f"sheet Inputs, cell B{lay.override_row(0)}: " in msg and "no task class is named 'poetry'" in msg
    assert "in row 3" not in msg


def test_not_a_report(tmp_path):
    plain = tmp_path / "plain.xlsx"
    openpyxl.Workbook().save(plain)
    with pytest.raises(WorkbookError, match="no sheet named 'Inputs'"):
        import_report(plain)
    junk = tmp_path / "junk.xlsx"
    junk.write_text("not a zip")
    with pytest.raises(WorkbookError, match="not an Excel .xlsx file"):
        import_report(junk)
    with pytest.raises(WorkbookError, match="no such file"):
        import_report(tmp_path / "missing.xlsx")


def test_tiers_from_csv_with_loose_headers(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("TIER,vendor,Price Out /1M,price_in,k,Region\n"
                    "Fast,Acme,$12.50,3,5,eu\n"
                    "Slow,Acme,8,2,4,us\n", encoding="utf-8")
    rows = _import_rows(path, "tiers")
    assert rows == [Tier(name="Fast", vendor="Acme", price_out=12.5, price_in=3.0, k=5),
                    Tier(name="Slow", vendor="Acme", price_out=8.0, price_in=2.0, k=4)]


def test_classes_from_simple_xlsx(tmp_path):
    path = tmp_path / "classes.xlsx"
    book = openpyxl.Workbook()
    ws = book.active
    ws.append([])
    ws.append(["Task class", "Output tokens/month", "CONTEXT", "alpha"])
    ws.append(["code", 1.2e8, "16K", 0.8])
    ws.append(["=chat", 5e7, 4096, "55%"])
    ws["A4"].data_type = "s"  # a name that looks like a formula, stored as text the way Excel stores '=chat
    book.save(path)
    rows = _import_rows(path, "classes")
    assert rows == [TaskClass(name="code", tokens_out=1.2e8, context=16384, alpha=0.8),
                    TaskClass(name="=chat", tokens_out=5e7, context=4096, alpha=0.55)]


def test_list_errors_name_the_cell(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("name;price_out;k\nFast;cheap;5\nfast;1;65\n", encoding="utf-8")
    with pytest.raises(WorkbookError) as err:
        _import_rows(path, "tiers")
    msg = str(err.value)
    assert "cell B2: 'Fast', Price out /1M: must be a number" in msg
    assert "cell C3: 'fast', K: must be a whole number from 1 to 64" in msg
    nameless = tmp_path / "nameless.csv"
    nameless.write_text("vendor,price_out\nAcme,3\n", encoding="utf-8")
    with pytest.raises(WorkbookError, match="no 'Tier' \\(name\\) column"):
        _import_rows(nameless, "tiers")
    with pytest.raises(ValueError, match="kind must be"):
        _import_rows(path, "vendors")


def _import_rows(path, kind):
    return read_price_list(path, kind).new_rows()


def test_cli_export_import_round_trip(tmp_path, capsys):
    report, back = tmp_path / "demo.xlsx", tmp_path / "back.json"
    assert main.main(["export", "-o", str(report)]) == 0
    assert main.main(["import", str(report), "-o", str(back)]) == 0
    assert load_workbook(back) == demo()
    prices = tmp_path / "p.csv"
    prices.write_text("name,price_out\nNew tier,4\n", encoding="utf-8")
    merged = tmp_path / "merged.json"
    assert main.main(["import", str(prices), "--tiers", "--into", str(back), "-o", str(merged)]) == 0
    assert json.loads(merged.read_text())["tiers"][-1]["name"] == "New tier"
    out = capsys.readouterr().out
    assert "wrote" in out


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main.main(["export", "-o", str(tmp_path / "r.csv")]) == 1
    assert main.main(["import", str(tmp_path / "missing.xlsx"), "-o", str(tmp_path / "w.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[0].startswith("specledger export:") and "no such file" in err[1]


@pytest.mark.parametrize("args", [("import", "{r}", "-o", "{r}"), ("import", "{r}", "-o", "{d}/copy.xlsx"),
                                  ("import", "{c}", "--tiers", "-o", "{c}")])
def test_cli_import_never_writes_a_workbook_over_a_spreadsheet(tmp_path, capsys, args):
    # before: `import r.xlsx -o r.xlsx` replaced the report with JSON text under its .xlsx name
    report, prices = tmp_path / "r.xlsx", tmp_path / "p.csv"
    assert main.main(["export", "-o", str(report)]) == 0
    prices.write_text("name,price_out\nNew tier,4\n", encoding="utf-8")
    before = report.read_bytes(), prices.read_bytes()
    capsys.readouterr()
    argv = [a.format(r=report, d=tmp_path, c=prices) for a in args]
    assert main.main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the workbook .json to write" in err[0]
    assert (report.read_bytes(), prices.read_bytes()) == before and not (tmp_path / "copy.xlsx").exists()


def test_a_row_cleared_in_excel_drops_that_row_only(tmp_path):
    # clearing a row's cells is how many analysts delete it; before, the import stopped there and
    # silently dropped every row below it (here Orbital Standard and Orbital Rapid)
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    row = lay.tier_row(5)  # Apex Express
    path = _edited(tmp_path, {(row, col): None for col in range(1, len(TIER_FIELDS) + 1)})
    back = import_report(path)
    assert [t.name for t in back.tiers] == [t.name for t in wb.tiers if t.name != "Apex Express"]
    assert back.classes == wb.classes and back.overrides == wb.overrides


def test_a_formula_with_no_saved_result_is_named_as_such(tmp_path):
    # openpyxl and other writers store a formula without its value; before, the message said "(got None)"
    wb = demo()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    col = column_of(CLASS_FIELDS, "alpha")
    path = _edited(tmp_path, {(lay.class_row(0), col): "=0.5+0.2"})
    with pytest.raises(WorkbookError) as err:
        import_report(path)
    msg = str(err.value)
    cell = f"{openpyxl.utils.get_column_letter(col)}{lay.class_row(0)}"
    assert f"sheet Inputs, cell {cell}: " in msg and "=0.5+0.2" in msg and "no computed value" in msg
    assert "got None" not in msg


def test_a_tier_list_read_as_task_classes_is_refused(tmp_path):
    # before: only the name column matched, so two tiers came in as task classes with default
    # tokens and alpha, silently (and the same for classes read as tiers)
    tiers = tmp_path / "tiers.csv"
    tiers.write_text("Name,Vendor,Price out /1M,K,Baseline\nFast A,Acme,12,5,Std A\nStd A,Acme,8,4,\n", encoding="utf-8")
    with pytest.raises(WorkbookError, match=r"only the name column .* Vendor, Price out /1M, K, Baseline"):
        _import_rows(tiers, "classes")
    assert [t.name for t in _import_rows(tiers, "tiers")] == ["Fast A", "Std A"]
    names = tmp_path / "names.csv"  # a bare list of names is fine: there is nothing else to match
    names.write_text("name\ncode\nprose\n", encoding="utf-8")
    assert [c.name for c in _import_rows(names, "classes")] == ["code", "prose"]


def test_a_folder_is_named_as_a_folder(tmp_path):
    # before: "is not an Excel .xlsx file (InvalidFileException)"
    folder = tmp_path / "report.xlsx"
    folder.mkdir()
    with pytest.raises(WorkbookError, match=r"report.xlsx: is a folder, not an Excel file"):
        import_report(folder)
    with pytest.raises(WorkbookError, match=r"report.xlsx: is a folder, not an Excel file"):
        _import_rows(folder, "tiers")


def _referenced() -> Workbook:
    """The demo with Helix Standard both a baseline (Helix Fast's) and overridden, and 'creative' overridden twice."""
    wb = demo()
    wb.set_override("Helix Standard", "creative", 0.5)
    return wb


def _renamed(tmp_path: Path, tiers: dict[str, str], classes: dict[str, str], wb: Workbook) -> Path:
    """The report with names retyped on Inputs, as an analyst renames a row in Excel."""
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    edits: dict[tuple[int, int], object] = {}
    for old, new in tiers.items():
        edits[(lay.tier_row(wb.tier_index(old)), column_of(TIER_FIELDS, "name"))] = new
    for old, new in classes.items():
        edits[(lay.class_row(wb.class_index(old)), column_of(CLASS_FIELDS, "name"))] = new
    return _edited(tmp_path, edits, wb)


@pytest.mark.parametrize("new_tier", ["Helix Classic", "HELIX STANDARD"], ids=["new-name", "case-only"])
def test_a_rename_in_excel_takes_baselines_and_overrides_along(tmp_path, new_tier):
    # before: "no tier is named 'Helix Standard'" for Helix Fast's baseline and the override, and
    # "no task class is named 'creative'" for both overrides: the file was refused
    wb = _referenced()
    path = _renamed(tmp_path, {"Helix Standard": new_tier}, {"creative": "creative writing"}, wb)
    want = wb.copy()
    want.rename_tier("Helix Standard", new_tier)
    want.rename_class("creative", "creative writing")
    assert want.tiers[3].baseline == new_tier and {o.task_class for o in want.overrides} == {"creative writing"}
    assert import_report(path) == want


def _baseline_cell(wb: Workbook, tier: str) -> str:
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    return f"{openpyxl.utils.get_column_letter(column_of(TIER_FIELDS, 'baseline'))}{lay.tier_row(wb.tier_index(tier))}"


@pytest.mark.parametrize("tiers, dangling, holder", [
    # a swap beside a plain rename: the table's names were moved about, so neither is followed
    ({"Helix Standard": "Helix Fast", "Helix Fast": "Helix Standard", "Apex Standard": "Apex Classic"},
     "Apex Standard", "Apex Express"),
    # a name that existed at export: does a reference to 'Apex Standard' mean the row or the name?
    ({"Apex Standard": "Apex Classic", "Helix Standard": "Apex Standard"}, "Helix Standard", "Helix Fast"),
], ids=["swap", "reused-name"])
def test_an_unclear_rename_is_not_followed(tmp_path, tiers, dangling, holder):
    wb = _referenced()
    path = _renamed(tmp_path, tiers, {}, wb)
    with pytest.raises(WorkbookError) as err:
        import_report(path)
    assert (f"sheet Inputs, cell {_baseline_cell(wb, holder)}: Tier {holder!r}, Baseline: no tier is named "
            f"{dangling!r}") in str(err.value)


def _without_notes(path: Path) -> None:
    book = openpyxl.load_workbook(path)
    del book[NOTES]
    book.save(path)


def _notes_edited(edit: Callable[[Any, int], None]) -> Callable[[Path], None]:
    """A change to the Notes sheet, given its "as exported" tier header row."""
    def apply(path: Path) -> None:
        book = openpyxl.load_workbook(path)
        ws = book[NOTES]
        header = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Tier")
        edit(ws, header)
        book.save(path)
    return apply


def _huge_cell(path: Path) -> None:
    """A Notes cell longer than Excel allows (openpyxl cuts such text short, so it goes into the XML afterwards)."""
    _notes_edited(lambda ws, header: setattr(ws.cell(header + 1, 1), "value", "HUGE-CELL"))(path)
    with zipfile.ZipFile(path) as z:
        parts = {info.filename: z.read(info) for info in z.infolist()}
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data.replace(b"HUGE-CELL", b"x" * 40_000))


def _added_row(path: Path) -> None:
    wb = _referenced()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    book = openpyxl.load_workbook(path)
    for col, spec in enumerate(TIER_FIELDS, start=1):
        book[INPUTS].cell(lay.tier_row(len(wb.tiers)), col).value = getattr(Tier(name="Added"), spec.name)
    book.save(path)


@pytest.mark.parametrize("spoil", [
    _added_row,
    _without_notes,
    _notes_edited(lambda ws, header: setattr(ws.cell(header + 3, 1), "value", 42)),  # a number for a name
    # the renamed row's old name twice (on Orbital Standard's row too): which row was it?
    _notes_edited(lambda ws, header: setattr(ws.cell(header + 7, 1), "value", "Helix Standard")),
    _notes_edited(lambda ws, header: setattr(ws.cell(header, 1), "value", "Tiers?")),  # no header row
    _notes_edited(lambda ws, header: setattr(ws.cell(REPORT_ROWS + 1, 1), "value", "x")),  # past the row limit
    _huge_cell,
], ids=["row-added", "notes-deleted", "number", "duplicate", "no-header", "past-row-limit", "huge-cell"])
def test_a_rename_is_not_followed_without_a_clear_notes_sheet(tmp_path, spoil):
    # rows added or deleted, or a Notes sheet missing or not as exported: refused as before, by cell
    wb = _referenced()
    path = _renamed(tmp_path, {"Helix Standard": "Helix Classic"}, {}, wb)
    spoil(path)
    with pytest.raises(WorkbookError) as err:
        import_report(path)
    msg = str(err.value)
    assert (f"sheet Inputs, cell {_baseline_cell(wb, 'Helix Fast')}: Tier 'Helix Fast', Baseline: no tier is "
            "named 'Helix Standard'") in msg
    assert "\n" not in msg


def test_a_profile_row_whose_name_has_no_saved_value_is_refused(tmp_path):
    """A script that edits the report through openpyxl saves formulas without their values; the profiles table
    names its class by formula, so its rows read as blank and every profile (and E's interval) was dropped
    without a word. Now the import names the rows and changes nothing."""
    from tests.excel_cases import profiled

    wb = profiled()
    assert any(c.profile or c.acceptance_length is not None for c in wb.classes)
    path = _edited(tmp_path, {}, wb)  # loaded and saved by openpyxl: no formula keeps its value
    with pytest.raises(WorkbookError) as err:
        import_report(path)
    assert "the task class's name (a formula over the tables above) has no value saved" in str(err.value)
    export_report(wb, tmp_path / "as_exported.xlsx")  # with the values SpecLedger saved: the profiles come back
    back = import_report(tmp_path / "as_exported.xlsx")
    assert [c.profile for c in back.classes] == [c.profile for c in wb.classes]


@pytest.mark.parametrize("field_name, value", [("alpha_low", 0.99), ("alpha_high", 0.10)])
def test_an_alpha_range_that_misses_its_alpha_names_the_end_s_cell(tmp_path, field_name, value):
    # the range's problem named the row alone ('sheet Inputs: Task class 'code', Alpha range: ...'); a field's
    # own problem names its cell, so this one names the end to change (QA)
    from tests.excel_cases import ranged
    wb = ranged()
    lay = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    col = column_of(CLASS_COLUMNS, field_name)
    path = _edited(tmp_path, {(lay.class_row(0), col): value}, wb)
    cell = f"{openpyxl.utils.get_column_letter(col)}{lay.class_row(0)}"
    with pytest.raises(WorkbookError, match=rf"sheet Inputs, cell {cell}: Task class '{wb.classes[0].name}', "
                                            r"Alpha range: must hold the acceptance itself"):
        import_report(path)


@pytest.mark.parametrize("col, value", [(8, 3.9), (9, 1.2)])
def test_an_interval_on_e_that_misses_its_e_names_the_end_s_cell(tmp_path, col, value):
    """The profiles table's E low / high (columns H, I): named by cell, with the class, not by the row alone."""
    from tests.excel_cases import profiled
    wb = profiled()
    export_report(wb, tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    saved = openpyxl.load_workbook(tmp_path / "r.xlsx", data_only=True)[INPUTS]  # the names' values, as exported
    ws = book[INPUTS]
    header = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 8).value == "E low (at the K measured)")
    row = next(r for r in range(header + 1, ws.max_row + 1) if ws.cell(r, 5).value and ws.cell(r, 8).value)
    for r in range(header + 1, ws.max_row + 1):
        for c in (1, 2):
            ws.cell(r, c).value = saved.cell(r, c).value  # openpyxl saves formulas without values
    ws.cell(row, col).value = value
    book.save(tmp_path / "edited.xlsx")
    name = saved.cell(row, 1).value
    with pytest.raises(WorkbookError, match=rf"sheet Inputs, cell {'HI'[col - 8]}{row}: Task class '{name}', "
                                            r"Mean acceptance length range: must hold the length itself"):
        import_report(tmp_path / "edited.xlsx")
