"""compare with intervals: the JSON fields, the text's brackets and the fair price lines."""
from __future__ import annotations

import io
import json
from argparse import Namespace

import pytest

from commands.calc_compare import run_compare
from model.workbook.json_file import load_demo, save_workbook


def _compare(path: str | None, as_json: bool) -> str:
    out = io.StringIO()
    assert run_compare(Namespace(workbook=path, json=as_json, csv=False), out) == 0
    return out.getvalue()


@pytest.fixture
def ranged(tmp_path) -> str:
    wb = load_demo()
    for c in wb.classes:
        c.alpha_low, c.alpha_high = c.alpha - 0.08, min(1.0, c.alpha + 0.06)
    path = tmp_path / "ranged.json"
    save_workbook(wb, path)
    return str(path)


def test_compare_json_carries_intervals_and_fair_prices(ranged) -> None:
    d = json.loads(_compare(ranged, True))
    tier = next(t for t in d["tiers"] if t["tier"] == "Northwind Turbo")
    assert tier["confidence"] == 0.95 and tier["value_verdict"] == "undecided"
    lo, hi = tier["speedup_interval"]
    assert lo < tier["mix_speedup"] < hi and tier["speedup_vs_baseline_interval"] == [lo, hi]  # a plain baseline
    assert tier["fair_price_factor_low"] < tier["fair_price_factor"]
    assert tier["fair_price_out"] == pytest.approx(20.0 * tier["fair_price_factor"])
    assert tier["fair_price_in_low"] == pytest.approx(2.5 * tier["fair_price_factor_low"])
    assert tier["acceptance_to_guarantee"] == tier["price_break_even_alpha"]
    pair = next(p for p in d["pairs"] if p["tier"] == "Northwind Turbo" and p["task_class"] == "prose")
    assert pair["alpha_interval"] == pytest.approx([0.42, 0.56]) and pair["verdict"] == "undecided"
    assert pair["interval_note"] is None and pair["confidence"] == 0.95
    plain = json.loads(_compare(None, True))
    p = next(p for p in plain["pairs"] if p["tier"] == "Northwind Turbo" and p["task_class"] == "prose")
    assert p["alpha_interval"] is None and p["speedup_interval"] is None
    assert p["interval_note"] == "assumed, no range given" and p["verdict"] == "marginal"


def test_compare_text_shows_brackets_and_the_fair_price(ranged) -> None:
    text = _compare(ranged, False)
    assert "1.44x (1.34–1.52)" in text and "1.05x (0.91–1.17)  undecided" in text
    assert "Northwind Turbo: fair price 1.05x list ($20.93 out, $2.62 in per 1M); open at 0.97x" in text
    assert "acceptance to guarantee 65.8%, runs like 67.9% (64.6–70.5%)" in text
    plain = _compare(None, False)
    assert "(" not in plain.splitlines()[2] and "open at" not in plain


def test_per_class_text_says_why_a_value_verdict_is_withheld(tmp_path) -> None:
    """A tier over a baseline whose mechanics a price list made up printed 'n/a' in every class's value column,
    where the JSON and the window give the reason: the text gives it too, and the tier table's columns stay in
    line after a long 'incomplete: needs c and v'."""
    from tests.excel_cases import made_up
    path = tmp_path / "made_up.json"
    save_workbook(made_up(), path)
    text = _compare(str(path), as_json=False)
    reason = json.loads(_compare(str(path), as_json=True))
    why = next(t["baseline_incomplete"] for t in reason["tiers"] if t["tier"] == "Zeta Over Maybe")
    assert why and why != "n/a"
    rows = [line for line in text.splitlines() if line.startswith("Zeta Over Maybe") and "x  gain" in line]
    per_class = [line for line in rows if any(c in line for c in ("code", "prose", "json"))]
    assert per_class and all(line.endswith(why) for line in per_class)
    tier_table = text.split("\n\n")[0].splitlines()
    pays_at = {len(line.rsplit("  ", 1)[0]) for line in tier_table}
    assert len(pays_at) == 1, "the columns after the verdict moved"


def test_an_out_of_reach_claim_keeps_its_columns_apart() -> None:
    """'needs a' is 9 wide and 'out of reach' 12: the text read '3.0xout of reach' (a probe's Apply set K 4 on
    Northwind Turbo, whose 3x claim no acceptance then reaches)."""
    from commands.calc_compare import comparison_text
    from model.comparison import compare
    from model.workbook.json_file import load_demo

    wb = load_demo()
    wb.tiers[wb.tier_index("Northwind Turbo")].claimed_speedup = 30.0
    lines = comparison_text(compare(wb)).splitlines()
    header, row = lines[0], next(line for line in lines if line.startswith("Northwind Turbo"))
    assert "30.0x  out of reach" in row
    assert row.index("out of reach") + len("out of reach") == header.index("needs a") + len("needs a")


def test_the_text_says_which_confidence_each_bracket_is_at() -> None:
    """A class keeps the confidence it was measured at; the workbook's setting sets the mixes'. At a setting of 80%
    the text said every bracket was at 80% while the classes' were 95% intervals (a probe's Apply)."""
    from commands.calc_compare import comparison_text
    from model.comparison import compare

    wb = load_demo()
    for c in wb.classes:
        c.alpha_low, c.alpha_high, c.alpha_confidence, c.alpha_requests = c.alpha - 0.05, c.alpha + 0.05, 0.95, 12
    wb.settings.confidence = 0.8
    text = comparison_text(compare(wb))
    assert "Intervals in brackets are at 80%" not in text
    assert "a tier's mix at 80% confidence" in text and "measured or typed at (95%)" in text
    wb.settings.confidence = 0.95
    assert "Intervals in brackets are at 95% confidence" in comparison_text(compare(wb))


def test_compare_csv_gives_each_interval_as_two_numbers(ranged) -> None:
    """The CSV wrote an interval as one text field, '[1.61, 2.13]', that a spreadsheet cannot compute with."""
    import csv

    out = io.StringIO()
    assert run_compare(Namespace(workbook=ranged, json=False, csv=True), out) == 0
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    pairs = json.loads(_compare(ranged, True))["pairs"]
    assert len(rows) == len(pairs) and "speedup_interval" not in rows[0]
    for row, pair in zip(rows, pairs):
        for key in ("alpha_interval", "speedup_interval", "speedup_vs_baseline_interval"):
            want = pair[key] or ["", ""]
            got = [row[f"{key}_low"], row[f"{key}_high"]]
            assert got == [str(x) if x != "" else "" for x in want]
    prose = next(r for r in rows if r["tier"] == "Northwind Turbo" and r["task_class"] == "prose")
    assert float(prose["speedup_interval_low"]) < float(prose["speedup"]) < float(prose["speedup_interval_high"])
