"""Price lists merged into a workbook: only the file's columns change, prices only in the workbook's currency."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from model.report.price_currency import currency_in
from model.report.price_list import KINDS, merge_rows, read_price_list
from model.workbook.json_file import load_demo
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import WorkbookError


def _csv(tmp_path: Path, text: str, name: str = "prices.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_matching_row_takes_only_the_columns_the_file_has(tmp_path: Path) -> None:
    # the file: it names Northwind Turbo (roofline, batch 4, a claim and notes) without those columns
    path = _csv(tmp_path, "Tier,Vendor,Speculative,K,Price out /1M,Price in /1M,Baseline\n"
                          "northwind turbo,Northwind AI,yes,6,22,4,northwind standard\n"
                          "Zeta Fast,Zeta,yes,3,9.5,2,\n")
    wb = load_demo()
    before = wb.tiers[1]
    result = merge_rows(wb, read_price_list(path, "tiers"))
    after = result.workbook.tiers[1]
    assert dataclasses.replace(before, k=6, price_out=22.0, price_in=4.0) == after  # nothing else moved
    assert after.name == "Northwind Turbo" and after.cost_model == "roofline" and after.notes == before.notes
    assert result.workbook.overrides == wb.overrides
    assert (result.added, result.updated, result.unchanged) == (["Zeta Fast"], ["Northwind Turbo"], [])
    assert result.changed_columns == ["K", "Price out /1M", "Price in /1M"]
    assert "Cost model" in result.kept_columns and "Vendor" not in result.kept_columns
    line = result.summary()
    assert "1 added (Zeta Fast)" in line and "1 updated (Northwind Turbo)" in line
    assert "Columns changed: K, Price out /1M, Price in /1M" in line and f"The {len(result.kept_columns)} columns the file lacks were kept" in line
    assert len(result.kept_columns) == len(KINDS["tiers"][1]) - 7
    assert "\n" not in line
    assert wb == load_demo()  # the original is untouched


def test_rows_the_file_repeats_unchanged_are_said_as_such(tmp_path: Path) -> None:
    path = _csv(tmp_path, "Tier,K\nHelix Fast,4\n")
    wb = load_demo()
    assert wb.tiers[3].k == 4
    result = merge_rows(wb, read_price_list(path, "tiers"))
    assert result.updated == [] and result.unchanged == ["Helix Fast"] and result.workbook == wb


@pytest.mark.parametrize("header, cell", [
    ("Price out /1M", "$9.50"),
    ("Price out /1M", "9.50 USD"),
    ("Price out /1M (USD)", "9.50"),
    ("price_out_usd", "9.5"),
])
def test_a_price_in_another_currency_is_refused_naming_the_cell(tmp_path: Path, header: str, cell: str) -> None:
    path = _csv(tmp_path, f"Tier,{header}\nZeta Fast,{cell}\n")
    wb = load_demo()
    wb.settings.currency = "EUR"
    with pytest.raises(WorkbookError) as err:
        merge_rows(wb, read_price_list(path, "tiers"))
    message = str(err.value)
    assert "cell B2" in message and "'Zeta Fast'" in message and "USD" in message and "EUR" in message
    assert "nothing imported" in message and "\n" not in message


def test_a_currency_column_and_matching_prices_are_taken(tmp_path: Path) -> None:
    path = _csv(tmp_path, "Tier,Currency,Price out /1M\nZeta Fast,EUR,€9.50\nZeta Std,eur,4\n")
    wb = load_demo()
    wb.settings.currency = "EUR"
    result = merge_rows(wb, read_price_list(path, "tiers"))
    assert [t.price_out for t in result.workbook.tiers[-2:]] == [9.5, 4.0]
    assert "Prices in EUR, as the file says" in result.summary()
    wb.settings.currency = "USD"
    with pytest.raises(WorkbookError, match="cell C2: 'Zeta Fast', Price out /1M: '€9.50' is in EUR"):
        merge_rows(wb, read_price_list(path, "tiers"))


def test_a_cell_that_contradicts_its_column_is_refused(tmp_path: Path) -> None:
    path = _csv(tmp_path, "Tier,Price out (EUR)\nZeta Fast,$9.50\n")
    with pytest.raises(WorkbookError, match="cell B2: 'Zeta Fast', Price out /1M: '\\$9.50' names another currency"):
        read_price_list(path, "tiers")


def test_unmarked_prices_are_read_as_the_workbooks_and_it_says_so(tmp_path: Path) -> None:
    path = _csv(tmp_path, "Tier,Price out /1M\nZeta Fast,9.5\n")
    wb = load_demo()
    wb.settings.currency = "CHF"
    result = merge_rows(wb, read_price_list(path, "tiers"))
    assert result.workbook.tiers[-1].price_out == 9.5
    assert "names no currency: prices taken as the workbook's CHF" in result.summary()


def test_an_empty_workbook_adopts_the_lists_currency(tmp_path: Path) -> None:
    path = _csv(tmp_path, "Tier,Price out /1M\nZeta Fast,€9.50\n")
    result = merge_rows(Workbook(), read_price_list(path, "tiers"))
    # the file gives no mechanics and no input price: none are taken as known
    made_up = "speculative, k, c, v, gpu, pair, price_in"
    assert result.workbook.settings.currency == "EUR" and result.workbook.tiers == [
        Tier(name="Zeta Fast", price_out=9.5, speculative="unknown", defaulted=made_up)]


def test_an_xlsx_price_formatted_as_money_keeps_its_currency(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Tier", "Price out /1M"])
    ws.append(["Zeta Fast", 9.5])
    ws["B2"].number_format = '"$"#,##0.00'
    path = tmp_path / "prices.xlsx"
    book.save(path)
    wb = load_demo()
    wb.settings.currency = "EUR"
    with pytest.raises(WorkbookError, match="9.5 formatted as USD"):
        merge_rows(wb, read_price_list(path, "tiers"))
    wb.settings.currency = "USD"
    assert merge_rows(wb, read_price_list(path, "tiers")).workbook.tiers[-1].price_out == 9.5


def test_currency_marks() -> None:
    assert currency_in("$12.50") == ("USD", "12.50")
    assert currency_in("12 chf") == ("CHF", "12")
    assert currency_in("C$3") == ("CAD", "3")
    assert currency_in("Price out /1M") == (None, "Price out /1M")
    assert currency_in("1.5M") == (None, "1.5M")


def test_an_acceptance_from_a_list_is_marked_imported_not_left_measured(tmp_path: Path) -> None:
    wb = load_demo()
    wb.classes[0].alpha_source, wb.classes[0].source_note = "measured", "demo pair, K=4"
    path = _csv(tmp_path, "Task class,Acceptance alpha\ncode,70%\njson,85%\nlegal,60%\n", "workload.csv")
    result = merge_rows(wb, read_price_list(path, "classes"))
    code, json_, legal = result.workbook.classes[0], result.workbook.classes[1], result.workbook.classes[-1]
    assert (code.alpha, code.alpha_source, code.source_note) == (0.7, "imported", "imported: workload.csv")
    assert json_ == wb.classes[1]  # the same α: nothing changed, its provenance neither
    assert (legal.alpha_source, legal.source_note) == ("imported", "imported: workload.csv")
    assert legal.defaulted == "context, tokens_out, tokens_in"  # the file gives its acceptance alone
    assert result.updated == ["code"] and result.unchanged == ["json"]
    assert result.changed_columns == ["Acceptance alpha"]


def test_a_new_tier_without_mechanics_is_incomplete_with_no_verdicts_until_they_are_entered(tmp_path: Path) -> None:
    """A list with only tier, vendor, K and prices made new tiers speculative with c 0.1 and v 1,
    and they showed 'gain 1.88x'. Now they are incomplete, say why, and the summary names what was made up."""
    from model.comparison import NOT_APPLICABLE, compare
    path = _csv(tmp_path, "Tier,Vendor,Speculative,K,Price out /1M,Price in /1M,Baseline\n"
                          "Zeta Fast,Zeta,yes,5,12,2,Apex Standard\n")
    result = merge_rows(load_demo(), read_price_list(path, "tiers"))
    wb = result.workbook
    lean = _csv(tmp_path, "Tier,Vendor,K,Price out /1M\nZeta Plain,Zeta,5,12\n", "lean.csv")
    plain = merge_rows(wb, read_price_list(lean, "tiers")).workbook.tiers[-1]
    fast = wb.tiers[-1]
    assert fast.speculative == "yes" and fast.missing_mechanics() == "incomplete: needs c and v"
    assert plain.speculative == "unknown" and plain.missing_mechanics() == "speculative unknown"
    assert "Zeta Fast (incomplete: needs c and v; made up: c, v, gpu, pair)" in result.summary()
    cmp = compare(wb)
    i = cmp.tier_names.index("Zeta Fast")
    assert cmp.tiers.incomplete[i] == "incomplete: needs c and v"
    assert int(cmp.tiers.verdict[i]) == NOT_APPLICABLE and int(cmp.tiers.value_verdict[i]) == NOT_APPLICABLE
    assert (cmp.cells.verdict[i] == NOT_APPLICABLE).all() and cmp.claims.holds[i] is None
    fast.entered("c")
    assert fast.missing_mechanics() == "incomplete: needs v"
    fast.entered("v")
    assert fast.missing_mechanics() == "" and int(compare(wb).tiers.verdict[i]) != NOT_APPLICABLE
    # a row already in the workbook keeps its identity (a probe's result stays bound to it) and its mechanics
    again = merge_rows(wb, read_price_list(_csv(tmp_path, "Tier,Price out /1M\nApex Express,30\n", "b.csv"), "tiers"))
    j = wb.tier_index("Apex Express")
    assert again.workbook.tiers[j].identity == wb.tiers[j].identity and again.workbook.tiers[j].defaulted == ""


def test_a_new_class_from_a_list_takes_only_its_columns(tmp_path: Path) -> None:
    """A list of task classes with names and tokens only gave its new classes alpha 60% 'assumed' and context 4K,
    and every fast tier's mix and verdicts counted them. What the file does not give is not given now."""
    import math

    from model.comparison import compare

    path = _csv(tmp_path, "Task class,Output tokens/month,Input tokens/month\nlegal,5000000,1000000\n", "w.csv")
    result = merge_rows(load_demo(), read_price_list(path, "classes"))
    legal = result.workbook.classes[-1]
    assert legal.defaulted == "alpha, context" and legal.tokens_out == 5e6
    assert "legal (acceptance and context not given)" in result.summary()
    cmp = compare(result.workbook)
    assert math.isnan(cmp.tiers.mix_speedup[result.workbook.tier_index("Helix Fast")])


def test_a_new_tier_without_price_columns_has_its_prices_not_given(tmp_path: Path) -> None:
    """A list of tier and vendor only gave the new tiers price 0 as if typed: compare billed them $0 a month.
    Now the prices the file lacks are not given (a free tier is a 0 in a price column), and nothing is billed."""
    import math

    from model.comparison import compare
    path = _csv(tmp_path, "Tier,Vendor\nZephyr Standard,Zephyr\nZephyr Fast,Zephyr\n")
    result = merge_rows(load_demo(), read_price_list(path, "tiers"))
    wb = result.workbook
    for tier in wb.tiers[-2:]:
        assert {"price_out", "price_in"} <= set(tier.defaulted_fields()) and tier.missing_prices()
    assert "Zephyr Fast (speculative unknown; prices not given; made up:" in result.summary()
    cmp = compare(wb)
    assert all(math.isnan(cmp.tiers.monthly_cost[i]) for i in (len(wb.tiers) - 2, len(wb.tiers) - 1))
    free = merge_rows(load_demo(), read_price_list(_csv(tmp_path, "Tier,Vendor,Speculative,Price out /1M,Price in /1M\n"
                                                                  "Zephyr Free,Zephyr,no,0,0\n", "free.csv"), "tiers"))
    tier = free.workbook.tiers[-1]
    assert not tier.missing_prices() and compare(free.workbook).tiers.monthly_cost[-1] == 0.0
