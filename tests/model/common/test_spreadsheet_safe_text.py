"""The OWASP rule for text a spreadsheet opens: formulas neutralised, numbers left as numbers."""
from __future__ import annotations

import pytest

from model.common.formatting import spreadsheet_safe_text


@pytest.mark.parametrize("payload", ["=1+1", "=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-1+1",
                                     "@SUM(A1:A2)", "\t=1+1", "\r=1+1", "-", "+", "=", "@"])
def test_a_field_that_a_spreadsheet_would_run_gets_an_apostrophe(payload: str) -> None:
    assert spreadsheet_safe_text(payload) == "'" + payload


@pytest.mark.parametrize("value", [1.5, -2, 0, None, True, "-0.25", "+3", "-12%", "-1e-5", "-.5", "-1,5",
                                   "Fast tier", "a=b", "", " =1"])
def test_numbers_and_plain_text_pass_unchanged(value: object) -> None:
    assert spreadsheet_safe_text(value) == value
