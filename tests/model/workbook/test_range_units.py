"""A range whose ends are written in different units is refused, never read as a 0.74% low end."""
from __future__ import annotations

import pytest

from model.workbook.alpha_text import parse_alpha_text
from model.workbook.rows import Override, TaskClass
from model.workbook.validation import ValidationError


@pytest.mark.parametrize(("text", "decimal"), [("80% (0.74–86%)", "."), ("80% (0.74-86%)", "."),
                                               ("80% (0,74–86%)", ","), ("0.8 (0.74 to 86%)", ".")])
@pytest.mark.parametrize("row_type", [TaskClass, Override])
def test_a_share_and_a_percent_in_one_range_are_refused(text, decimal, row_type):
    with pytest.raises(ValidationError, match=r"Alpha range: the ends are written in different units"):
        parse_alpha_text(row_type, text, "code", decimal=decimal)


@pytest.mark.parametrize(("text", "decimal", "low"), [("80% (74–86%)", ".", 0.74), ("80% (74,5–86%)", ",", 0.745),
                                                      ("0.8 (0.74–0.86)", ".", 0.74), ("80% (74%–86%)", ".", 0.74)])
def test_one_unit_ranges_still_read(text, decimal, low):
    alpha, rng = parse_alpha_text(TaskClass, text, "code", decimal=decimal)
    assert alpha == pytest.approx(0.8) and rng[0] == pytest.approx(low) and rng[1] == pytest.approx(0.86)
