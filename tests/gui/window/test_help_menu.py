"""The Help menu starts at the beginning: a getting-started guide to the analyst's day, sections on Probe,
Measure, price lists, engine metrics and where c and v come from, an About with the version; F1 still opens the
guide at the field. The guide is docs/guide/, rendered as Markdown."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from gui.window import help
from gui.window.guide_text import anchors, guide_markdown, sections
from gui.window.help import about_html


def _help_actions(window):
    menu = next(a for a in window.menuBar().actions() if a.text() == "&Help").menu()
    return {a.text(): a for a in menu.actions() if not a.isSeparator()}


def test_the_help_menu_opens_each_section_of_the_analysts_day(window):
    actions = _help_actions(window)
    wanted = {"Getting &started: the analyst's day": help.DAY, "&Probe a tier": help.PROBE,
              "&Measure acceptance": help.MEASURE, "Price &lists": help.PRICE_LISTS, "&Engine metrics": help.METRICS,
              "Where to get &c and v": help.WHERE_CV, "E&xport": help.EXPORT, "&Negotiate": help.NEGOTIATE}
    assert set(wanted) <= set(actions) and "&About SpecLedger" in actions and "&Guide to the numbers" in actions
    markdown = guide_markdown()
    assert anchors(markdown)[:2] == ["the-specledger-guide", help.DAY]  # the guide starts at the beginning
    shown: list[str] = []
    window.show_help = lambda anchor="": shown.append(anchor)  # the slot is looked up when triggered
    for text, anchor in wanted.items():
        assert anchor in anchors(markdown)
        actions[text].trigger()
    assert shown == list(wanted.values())
    day = sections(markdown)[help.DAY]
    for step in ("Enter the tiers and their prices", "Probe", "Read the verdicts", "Export"):
        assert step in day
    # the day's last steps have pages of their own: the report, and what to ask the vendor for
    assert "Brief" in sections(markdown)[help.EXPORT] and "fair price" in sections(markdown)[help.NEGOTIATE]


def test_about_names_the_version():
    try:
        expected = version("specledger")
    except PackageNotFoundError:
        expected = "unknown"
    assert f"SpecLedger {expected}" in about_html()
