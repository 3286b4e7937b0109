"""The acceptance to guarantee per tier (model/comparison/guarantee.py) against a hand-worked case."""
from __future__ import annotations

import pytest

from model.comparison.records import pair_records, tier_records
from model.mechanics import arithmetic as ar
from model.comparison import compare
from model.comparison.guarantee import ALPHA_WITHHELD
from model.workbook.rows import Settings, TaskClass, Tier, Workbook


def _wb(classes: list[TaskClass]) -> Workbook:
    # typed c = 0.1, v = 1 at K = 4: every class's step costs s = 4 * 0.1 + 1 = 1.4 target steps; output prices
    # only, 20 over 10: the price ratio R = 2 per class and for the mix; the baseline is plain (S_base = 1)
    return Workbook(tiers=[Tier(name="Std", speculative="no", price_out=10.0, price_in=0.0),
                           Tier(name="Fast", k=4, c=0.1, v=1.0, price_out=20.0, price_in=0.0, baseline="Std")],
                    classes=classes, settings=Settings())


def test_length_guarantee_hand_worked() -> None:
    # code: profile 0.9, 0.8, 0.7, 0.6 -> E = 1 + .9 + .72 + .504 + .3024 = 3.4264; prose: AL 2.5 at K = 4.
    # E_g = S_need * s_bar = (R * S_base) * 1.4 = 2.8; E_now = sum(w s) / sum(w s / E) with w = 1, 3:
    # 4 / (1 / 3.4264 + 3 / 2.5) = 2.681226...: below E_g, so not worth it
    cmp = compare(_wb([TaskClass("code", 1e6, 0, 4096, 0.5, profile=(0.9, 0.8, 0.7, 0.6)),
                       TaskClass("prose", 3e6, 0, 4096, 0.5, acceptance_length=2.5, acceptance_length_k=4)]))
    g = cmp.tier_parts[1].guarantee
    assert g.unit == "length" and g.kind == ar.ROOT
    assert g.value == pytest.approx(2.8, rel=1e-12)
    assert g.runs_like == pytest.approx(4 / (1 / 3.4264 + 3 / 2.5), rel=1e-12)
    assert g.text() == "AL 2.80 @K4" and g.runs_text() == "AL 2.68 @K4"
    rec = tier_records(cmp)[1]
    assert rec["value_verdict"] == "not worth it"
    assert rec["guarantee_length"] == pytest.approx(2.8, rel=1e-12)
    assert rec["acceptance_to_guarantee"] is None and rec["price_break_even_alpha"] is None
    assert rec["effective_alpha"] is None and rec["guarantee_note"] == ALPHA_WITHHELD
    # with equal ratios and baseline speed, E_g is the token-weighted mean of the classes' price break-evens
    pairs = [r for r in pair_records(cmp) if r["tier"] == "Fast"]
    mean = (pairs[0]["price_break_even_length"] * 1 + pairs[1]["price_break_even_length"] * 3) / 4
    assert rec["guarantee_length"] == pytest.approx(mean, rel=1e-12)


def test_alpha_mix_keeps_the_alpha_and_its_length_agrees() -> None:
    cmp = compare(_wb([TaskClass("code", 1e6, 0, 4096, 0.8), TaskClass("prose", 3e6, 0, 4096, 0.5)]))
    g = cmp.tier_parts[1].guarantee
    rec = tier_records(cmp)[1]
    assert g.unit == "alpha" and rec["guarantee_note"] is None
    assert rec["acceptance_to_guarantee"] == pytest.approx(g.value) and g.text().endswith("%")
    # the same target: E(alpha_g, K) = E_g = 2.8
    assert float(ar.expected_tokens(g.value, 4)) == pytest.approx(2.8, rel=1e-9)
    assert rec["guarantee_length"] == pytest.approx(2.8, rel=1e-12)


def test_never_and_always_say_so_in_either_unit() -> None:
    prof = TaskClass("code", 1e6, 0, 4096, 0.5, profile=(0.9, 0.8, 0.7, 0.6))
    wb = _wb([prof])
    wb.tiers[1].price_out = 200.0  # R = 20: E_g = 28 > K + 1 = 5
    assert compare(wb).tier_parts[1].guarantee.text() == "none at K=4"
    wb.tiers[1].price_out = 5.0  # R = 0.5: E_g = 0.7 <= 1
    assert compare(wb).tier_parts[1].guarantee.text() == "any (always pays)"


def test_the_brief_compare_text_and_report_state_the_length() -> None:
    from commands.calc_compare import comparison_text
    from model.comparison.brief import brief
    from tests.excel_cases import summarised
    wb = _wb([summarised(TaskClass("code", 1e6, 0, 4096, 0.5, profile=(0.9, 0.8, 0.7, 0.6))),
              summarised(TaskClass("prose", 3e6, 0, 4096, 0.5, acceptance_length=2.5, acceptance_length_k=4))])
    cmp = compare(wb)
    # the brief leaves the guarantee to the detail sheets (its footnote says where): one price to ask for
    ask = next(b for b in brief(wb, cmp) if b.tier == "Fast").ask
    assert "acceptance" not in ask and "per 1M output tokens" in ask
    text = comparison_text(cmp)
    assert "acceptance to guarantee AL 2.80 @K4, runs like AL 2.68 @K4" in text
    assert "E* 2.80" in next(line for line in text.splitlines() if line.startswith("Fast "))
    assert "%" not in next(line for line in text.splitlines() if "acceptance to guarantee" in line).split(";")[-1]


def test_the_report_summary_writes_the_length_grey(tmp_path) -> None:
    import openpyxl
    from model.report.export import export_report
    from tests.excel_cases import summarised
    wb = _wb([summarised(TaskClass("code", 1e6, 0, 4096, 0.5, profile=(0.9, 0.8, 0.7, 0.6))),
              summarised(TaskClass("prose", 3e6, 0, 4096, 0.5, acceptance_length=2.5, acceptance_length_k=4))])
    path = tmp_path / "g.xlsx"
    export_report(wb, path)
    ws = openpyxl.load_workbook(path)["Summary"]
    lengths = sorted(round(c.value, 6) for row in ws.iter_rows() for c in row
                     if isinstance(c.value, float) and c.number_format == '"AL "0.00')
    # the main table's price break-even, and the fair-price table's guarantee and runs-like
    assert lengths == [round(4 / (1 / 3.4264 + 3 / 2.5), 6), 2.8, 2.8]
