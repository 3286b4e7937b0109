"""The per-tier summary states the acceptance to guarantee as a length where a class is a profile or a length."""
from __future__ import annotations

from gui.tables.summary_model import SUMMARY_COLUMNS
from model.comparison import compare
from model.workbook.rows import Settings, TaskClass, Tier, Workbook


def test_summary_guarantee_in_its_unit() -> None:
    tiers = [Tier(name="Std", speculative="no", price_out=10.0, price_in=0.0),
             Tier(name="Fast", k=4, c=0.1, v=1.0, price_out=20.0, price_in=0.0, baseline="Std")]
    cells = {h: text for h, text, _ in SUMMARY_COLUMNS}
    profiled = compare(Workbook(tiers=tiers, settings=Settings(), classes=[
        TaskClass("code", 1e6, 0, 4096, 0.5, profile=(0.9, 0.8, 0.7, 0.6)),
        TaskClass("prose", 3e6, 0, 4096, 0.5, acceptance_length=2.5, acceptance_length_k=4)]))
    # a column that shows a length on one row does not say alpha in its header; an alpha says it is one
    for head, text in cells.items():
        if text(profiled, 1).startswith("AL "):
            assert "alpha" not in head.lower(), head
    assert cells["Value needs"](profiled, 1) == "AL 2.80 @K4"
    assert cells["Runs like"](profiled, 1) == "AL 2.68 @K4"
    plain = compare(Workbook(tiers=tiers, settings=Settings(), classes=[TaskClass("code", 1e6, 0, 4096, 0.7)]))
    assert cells["Value needs"](plain, 1).startswith("α ") and cells["Value needs"](plain, 1).endswith("%")
    assert cells["Runs like"](plain, 1) == "α 70.0%"
