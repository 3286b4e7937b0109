"""A class measured from too few requests for an interval: its verdicts are the measured point's alone, and every
front end says so (compare --json's verdict_basis, compare's text, the brief), for an alpha and for a length."""
from __future__ import annotations

from commands.calc_compare import comparison_text
from model.comparison.records import pair_records, tier_records
from model.comparison.brief import brief
from model.comparison import compare
from model.comparison.verdicts import ON_ASSUMPTION, ON_INTERVAL, ON_TOO_FEW, TOO_FEW_LABEL, labelled
from tests.excel_cases import ranged, too_few


def test_the_cells_resting_on_too_few_requests_are_known_for_an_alpha_and_a_length() -> None:
    wb = too_few()
    cmp = compare(wb)
    code, json_ = wb.class_index("code"), wb.class_index("json")
    turbo, standard = wb.tier_index("Northwind Turbo"), wb.tier_index("Northwind Standard")
    assert cmp.too_few(turbo, code) and cmp.too_few(turbo, json_)
    assert cmp.cells.acceptance.KIND_CODES[int(cmp.cells.acceptance.kind[turbo, json_])] == "length"
    assert not cmp.too_few(turbo, wb.class_index("prose"))  # assumed: labelled as it always was, by its source
    assert not cmp.too_few(standard, code)  # plain decoding uses no acceptance
    assert cmp.too_few_classes(turbo) == ["code", "json"]


def test_compare_json_says_what_each_verdict_rests_on() -> None:
    cmp = compare(too_few())
    records = {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}
    assert records["Northwind Turbo", "code"]["verdict_basis"] == ON_TOO_FEW
    assert records["Northwind Turbo", "json"]["verdict_basis"] == ON_TOO_FEW
    assert records["Northwind Turbo", "json"]["interval_note"] == "too few requests for an interval"
    assert records["Northwind Turbo", "prose"]["verdict_basis"] == ON_ASSUMPTION
    assert records["Northwind Standard", "code"]["verdict_basis"] is None  # n/a: no verdict to rest on anything
    # the verdict itself keeps its name (a reader of the old fields is not broken), its basis says how firm it is
    assert records["Northwind Turbo", "code"]["verdict"] == "gain"
    tiers = {r["tier"]: r for r in tier_records(cmp)}
    assert tiers["Northwind Turbo"]["too_few_requests"] == ["code", "json"]
    assert tiers["Northwind Standard"]["too_few_requests"] is None
    ranged_records = pair_records(compare(ranged()))
    assert {r["verdict_basis"] for r in ranged_records if r["verdict"] != "n/a"} == {ON_INTERVAL}


def test_compare_text_labels_those_verdicts_and_says_why() -> None:
    text = comparison_text(compare(too_few()))
    rows = [line for line in text.splitlines() if line.startswith("Northwind Turbo")]
    code = next(line for line in rows if " code " in line)
    json_ = next(line for line in rows if " json " in line)
    prose = next(line for line in rows if " prose " in line)
    for line in (code, json_):
        assert f"gain ({TOO_FEW_LABEL})" in line and f"worth the premium ({TOO_FEW_LABEL})" in line
    assert TOO_FEW_LABEL not in prose
    assert any(line.startswith(f"({TOO_FEW_LABEL}): ") and "fewer than 5" in line for line in text.splitlines())
    assert TOO_FEW_LABEL not in comparison_text(compare(ranged()))


def test_labelled_leaves_no_verdict_and_undecided_alone() -> None:
    assert labelled("gain", True) == f"gain ({TOO_FEW_LABEL})" and labelled("gain", False) == "gain"
    assert labelled("n/a", True) == "n/a" and labelled("undecided", True) == "undecided"


def test_the_brief_says_where_its_recommendation_rests_on_too_few_requests() -> None:
    wb = too_few()
    got = {b.tier: b for b in brief(wb, compare(wb))}
    assert f"On code and json it rests on {TOO_FEW_LABEL}" in got["Northwind Turbo"].why
    assert TOO_FEW_LABEL not in "".join(b.why for b in brief(ranged(), compare(ranged())))
