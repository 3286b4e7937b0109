"""A task class added by Add row (TaskClass.defaulted) in the Excel report: its placeholders feed no formula. Its
Comparison rows read "not given" where the acceptance would be and the reason where the verdicts would be, every fast
tier's Summary row says what its mix waits for instead of a mix, verdict or fair price, and the Inputs sheet keeps
what was not given, so the import gives it back (tests/model/report/test_recalc_formulas.py recalculates these
reports in LibreOffice: every formula there equals compare())."""
from __future__ import annotations

from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.comparison import compare  # noqa: E402
from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW, export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import COMPARISON, SUMMARY  # noqa: E402
from model.report.summary_sheet import HEADER_ROW, SUMMARY_COLUMNS  # noqa: E402
from tests.excel_cases import class_not_given  # noqa: E402

WAITS = "class 'New class': acceptance, context and tokens not given"


def _rows(ws, header_row: int, columns: list[str]) -> list[dict[str, object]]:
    return [dict(zip(columns, (c.value for c in row))) for row in ws.iter_rows(min_row=header_row + 1,
                                                                                max_col=len(columns))]


def test_the_report_says_not_given_and_computes_nothing_from_the_placeholders(tmp_path: Path):
    wb = class_not_given()
    path = tmp_path / "r.xlsx"
    export_report(wb, path)
    book = openpyxl.load_workbook(path)
    rows = [r for r in _rows(book[COMPARISON], COMPARISON_HEADER_ROW, COMPARISON_COLUMNS) if r["Tier"]]
    cmp, j = compare(wb), len(wb.classes) - 1
    for i, tier in enumerate(wb.tiers):
        row = rows[i * len(wb.classes) + j]
        assert row["Acceptance alpha"] == "not given" and row["Alpha source"] == "not given", tier.name
        if cmp.tiers.speculative[i]:
            assert row["Speed verdict"] == row["Value verdict"] == "acceptance and context not given"
            assert {row[n] for n in ("Speedup", "Tokens per stretch E", "c (draft / target)", "Speedup, alpha -10 pts",
                                     "Cost weight on tier")} == {"–"}
    # the Summary's cells are formulas reading Inputs: read the values the export saved with them
    values = openpyxl.load_workbook(path, data_only=True)
    summary = [r for r in _rows(values[SUMMARY], HEADER_ROW, SUMMARY_COLUMNS) if r["Tier"]][:len(wb.tiers)]
    for i, row in enumerate(summary):
        assert row["Monthly cost"] == "–" and row["Premium over baseline"] == "–", row["Tier"]
        if cmp.tiers.speculative[i]:
            assert row["Speed verdict"] == row["Value verdict"] == WAITS, row["Tier"]
            assert row["Mix speedup"] == "–" and row["Price break-even acceptance (SpecLedger)"] == "–"
    assert import_report(path) == wb  # what was not given comes back not given


def test_the_inputs_cells_nobody_gave_read_not_given_while_listed(tmp_path: Path):
    """The class's placeholders on Inputs (60%, 4096, 0) read 'not given' (a conditional number format on the
    row's Not given list: cleared, the number typed shows)."""
    from model.report.layout import CLASS_COLUMNS, INPUTS, InputsLayout, column_of

    wb = class_not_given(tokens=True)
    path = tmp_path / "r.xlsx"
    export_report(wb, path)
    ws = openpyxl.load_workbook(path)[INPUTS]
    row = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides)).class_row(len(wb.classes) - 1)
    marked = {str(rng.sqref): (rule.formula[0], rule.dxf.numFmt.formatCode)
              for rng in ws.conditional_formatting for rule in rng.rules if "not given" in str(rule.dxf.numFmt and
                                                                                                rule.dxf.numFmt.formatCode)}
    listed = openpyxl.utils.get_column_letter(column_of(CLASS_COLUMNS, "defaulted"))
    assert ws[f"{listed}{row}"].value == "alpha, context"
    want = {name: field for name, field in (("alpha", "alpha"), ("alpha_source", "alpha"), ("context", "context"))}
    assert set(marked) == {f"{openpyxl.utils.get_column_letter(column_of(CLASS_COLUMNS, n))}{row}" for n in want}
    for cell, (formula, _) in marked.items():
        assert formula.startswith("AND(ISNUMBER(SEARCH(") and f"${listed}${row}" in formula


def test_a_value_typed_over_a_placeholder_on_inputs_imports_as_given(tmp_path: Path):
    """An analyst types the new class's alpha and context on Inputs and leaves its Not given cell as it is: the
    import reads them as given (they differ from the placeholders); the tokens left alone stay not given."""
    from model.report.layout import CLASS_COLUMNS, INPUTS, InputsLayout, column_of

    wb = class_not_given()
    path, edited = tmp_path / "r.xlsx", tmp_path / "edited.xlsx"
    export_report(wb, path)
    book = openpyxl.load_workbook(path)
    row = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides)).class_row(len(wb.classes) - 1)
    book[INPUTS].cell(row, column_of(CLASS_COLUMNS, "alpha")).value = 0.72
    book[INPUTS].cell(row, column_of(CLASS_COLUMNS, "context")).value = 8192
    book.save(edited)
    new = import_report(edited).classes[-1]
    assert (new.alpha, new.context, new.defaulted) == (0.72, 8192, "tokens_out, tokens_in")
