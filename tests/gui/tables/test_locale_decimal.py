"""Cells follow the window's locale for the decimal mark: in a German locale 12,50 is 12.5 and 1,500
is refused as ambiguous; in an English one 2,50 is refused, never read as 250."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale, Qt

from tests.gui.tables.test_editing import _cell, _type_into


def _locale(language, country):
    before = QLocale()
    QLocale.setDefault(QLocale(language, country))
    yield
    QLocale.setDefault(before)


@pytest.fixture
def german():
    yield from _locale(QLocale.Language.German, QLocale.Country.Germany)


@pytest.fixture
def english():
    yield from _locale(QLocale.Language.English, QLocale.Country.UnitedStates)


def test_a_decimal_comma_is_read_in_a_comma_locale(qtbot, german, window):
    model = window.tier_model
    price, c = model.column_of("price_out"), model.column_of("c")
    _type_into(qtbot, window.tier_view, 1, price, "12,50")
    assert window.document.workbook.tiers[1].price_out == 12.5
    # what the editor offers back is in the locale's form, and reads back unchanged
    assert model.data(_cell(window.tier_view, 1, price), Qt.ItemDataRole.EditRole) == "12,5"
    _type_into(qtbot, window.tier_view, 1, c, "0.25")  # the app's own point form stays readable
    assert window.document.workbook.tiers[1].c == 0.25
    count = window.document.undo_stack.count()
    _type_into(qtbot, window.tier_view, 1, price, "1,500")
    qtbot.wait(1)
    assert window.document.workbook.tiers[1].price_out == 12.5
    assert "ambiguous" in window.statusBar().currentMessage()
    assert window.document.undo_stack.count() == count


def test_a_value_with_three_decimals_round_trips_through_the_editor(qtbot, german, window):
    model = window.tier_model
    c = model.column_of("c")
    _type_into(qtbot, window.tier_view, 1, c, "1,1250")
    assert window.document.workbook.tiers[1].c == 1.125
    text = model.data(_cell(window.tier_view, 1, c), Qt.ItemDataRole.EditRole)
    assert text == "1,1250"  # "1,125" would read two ways


def test_a_decimal_comma_is_refused_in_a_point_locale(qtbot, english, window):
    price = window.tier_model.column_of("price_out")
    old = window.document.workbook.tiers[1].price_out
    _type_into(qtbot, window.tier_view, 1, price, "2,50")
    qtbot.wait(1)
    assert window.document.workbook.tiers[1].price_out == old
    assert "decimal comma" in window.statusBar().currentMessage()
