"""The Help menu starts at the beginning (issue 20): a getting-started guide to the analyst's day, sections on
Probe, Measure, price lists, engine metrics and where c and v come from, an About with the version; F1 still
opens the guide at the field."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from gui.window.help import SECTIONS, about_html, guide_html


def _help_actions(window):
    menu = next(a for a in window.menuBar().actions() if a.text() == "&Help").menu()
    return {a.text(): a for a in menu.actions() if not a.isSeparator()}


def test_the_help_menu_opens_each_section_of_the_analysts_day(window):
    actions = _help_actions(window)
    wanted = {"Getting &started: the analyst's day": "day", "&Probe a tier": "probe",
              "&Measure acceptance": "measure", "Price &lists": "price_lists", "&Engine metrics": "metrics",
              "Where to get &c and v": "where_cv"}
    assert set(wanted) <= set(actions) and "&About SpecLedger" in actions and "&Guide to the numbers" in actions
    assert [a for a, _, _ in SECTIONS[:2]] == ["day", "probe"]  # the guide starts at the beginning
    html = guide_html()
    shown: list[str] = []
    window.show_help = lambda anchor="": shown.append(anchor)  # the slot is looked up when triggered
    for text, anchor in wanted.items():
        assert f"name='{anchor}'" in html
        actions[text].trigger()
    assert shown == list(wanted.values())
    day = dict((a, b) for a, _, b in SECTIONS)["day"]
    for step in ("Enter the tiers and their prices", "Probe", "Read the verdicts", "Export"):
        assert step in day


def test_about_names_the_version():
    try:
        expected = version("specledger")
    except PackageNotFoundError:
        expected = "unknown"
    assert f"SpecLedger {expected}" in about_html()
