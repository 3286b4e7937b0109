"""Every formula in the report, recalculated by a real spreadsheet engine (LibreOffice), equals SpecLedger and the
value saved with it in the file; the report saved by LibreOffice imports back; a title and a currency typed on
Inputs reach the printed pages."""
from __future__ import annotations

import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.excel_cases import demo  # noqa: E402
from tests.model.report.recalc_cases import EXPORTED, measured  # noqa: E402
from tests.model.report.recalc_checks import check_all_formulas, close, same  # noqa: E402
from tests.office import convert, printed_pages  # noqa: E402
from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import INPUTS, SENSITIVITY, SETTING_ROWS, SUMMARY  # noqa: E402

pytestmark = pytest.mark.libreoffice


@pytest.mark.parametrize("case", list(EXPORTED))
def test_every_formula_equals_specledger_and_its_saved_value(recalculated, case):
    c = recalculated[case]
    count, worst = check_all_formulas(c.original, c.recalculated, c.expected)
    print(f"{case}: {count} formula cells recalculated by LibreOffice, max relative error {worst:.2e}")
    assert count == len(c.expected) and count > 40
    # the values saved in the file, read as a viewer that does not calculate reads them, are SpecLedger's too
    saved, _ = check_all_formulas(c.original, c.original, c.expected)
    assert saved == count


def test_nan_is_compared_strictly():
    """The comparison these tests rest on: a number where SpecLedger says NaN fails, and the reverse."""
    nan = float("nan")
    assert close("–", nan) and close(None, nan) and close("", nan) and close("#DIV/0!", nan)
    assert not close(1.5, nan) and not close(0.0, nan) and not close(nan, nan) and not close(nan, 1.5)
    assert not close("–", 1.5) and not close(None, 0.0) and close(1.5, 1.5 * (1 + 1e-12))
    assert same(2.0, nan) is None and same(nan, 2.0) is None and same(float("inf"), 2.0) is None


def test_report_saved_by_libreoffice_imports_back(recalculated):
    for case in ("demo", "edge", "edited", "priced", "ranged", "measured", "narrowed", "made up", "profiled",
                 "profile edited", "treed", "too few", "too few ranged", "class not given", "class tokens given",
                 "class acceptance given", "prices not given"):
        c = recalculated[case]
        assert import_report(c.recalculated) == c.workbook, case
    # the intervals on E (profiles table on Inputs) come back, typed anew too
    back = import_report(recalculated["profile edited"].recalculated)
    assert (back.classes[0].acceptance_length_low, back.classes[0].acceptance_length_high) == (3.0, 3.3)
    assert (back.overrides[0].acceptance_length_low, back.overrides[0].acceptance_length_high) == (2.0, 2.5)
    # what the round trip must keep, spelled out: a typed range, a measured interval's provenance, the confidence
    back = import_report(recalculated["measured"].recalculated)
    want = measured()
    assert back.settings.confidence == 0.9
    for got, exp in zip(back.classes + back.overrides, want.classes + want.overrides):
        for field in ("alpha_low", "alpha_high", "alpha_confidence", "alpha_requests", "alpha_steps", "alpha_method",
                      "alpha_prompts"):
            assert getattr(got, field) == getattr(exp, field), (field, exp)


def test_currency_and_title_edited_in_the_file_show_on_the_pages(tmp_path):
    """Currency and title are shaded inputs too: printed, the money cells take the new currency's symbol
    and the Summary's line names the new title and currency."""
    src = tmp_path / "report.xlsx"
    export_report(demo(), src, "demo.json")
    book = openpyxl.load_workbook(src)
    book[INPUTS].cell(SETTING_ROWS["title"], 2).value = "Q3 negotiation"
    book[INPUTS].cell(SETTING_ROWS["currency"], 2).value = "EUR"
    book.save(src)
    convert([src], "pdf", tmp_path, tmp_path / "profile")
    pages = [p.text for p in printed_pages(tmp_path / "report.pdf")]
    by_sheet = {name: "".join(p for p in pages if p.splitlines() and name in p.splitlines()[0])
                for name in (SUMMARY, SENSITIVITY, INPUTS)}
    summary = by_sheet[SUMMARY]
    assert "Workbook: Q3 negotiation" in summary and "Currency: EUR" in summary and "File: demo.json" in summary
    for name, text in by_sheet.items():
        assert "€" in text and "$" not in text, f"{name} still prints dollars after the currency became EUR"
