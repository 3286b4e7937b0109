"""The Help window shows docs/guide/: the same text a reader of the repository reads, rendered by Qt's Markdown,
its headings reachable by the anchors GitHub gives them; read only when Help opens; installed with the app."""
from __future__ import annotations

import fnmatch
import re
import sys

from PySide6.QtCore import QUrl

from gui.window import help
from gui.window.guide_text import GUIDE_DIR, anchors, guide_markdown, guide_pages, headings, sections
from gui.window.help import ANCHOR_FOR_FIELD, ANCHOR_FOR_METRIC, ANCHOR_FOR_SUMMARY
from gui.window.help_dialog import HelpDialog
from tests.paths import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _plain(markdown: str) -> str:
    """What a reader sees of a Markdown fragment: no emphasis marks, code ticks, link targets or tags."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"<[^>]+>", "", text).replace("&nbsp;", " ")
    text = re.sub(r"\*\*|`", "", text)
    text = re.sub(r"(?<![\w\\])\*(?=\S)(.+?)(?<=\S)\*(?!\w)", r"\1", text)  # *emphasis*, not the α* of a break-even
    text = text.replace("\\*", "*")
    text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", text, flags=re.M)  # list markers
    return " ".join(text.split())


def test_the_help_shows_the_guides_text(qtbot):
    dialog = HelpDialog()
    qtbot.addWidget(dialog)
    shown = " ".join(dialog.browser.toPlainText().split())
    # a link out of the guide (to the reference, the design notes) names its file in the window: read past it
    assert ", docs/reference/" in shown
    shown = re.sub(r", docs/[\w/.-]+", "", shown)
    assert len(guide_pages()) >= 6 and all(p.parent == GUIDE_DIR for p in guide_pages())
    for page in guide_pages():
        markdown = page.read_text(encoding="utf-8")
        for _, title in headings(markdown):
            assert _plain(title) in shown, (page.name, title)
        for name, body in sections(markdown).items():
            first = _plain(body.split("\n\n")[0]).split(". ")[0]
            assert first[:60] in shown, (page.name, name, first[:60])


def test_every_section_the_code_opens_is_a_heading_of_the_guide():
    names = set(anchors(guide_markdown()))
    used = {*ANCHOR_FOR_FIELD.values(), *ANCHOR_FOR_SUMMARY.values(), *ANCHOR_FOR_METRIC.values(),
            help.DAY, help.PROBE, help.MEASURE, help.PRICE_LISTS, help.METRICS, help.WHERE_CV, help.SHAPES,
            help.EXPORT, help.NEGOTIATE}
    assert used <= names, sorted(used - names)


def test_every_heading_is_an_anchor_and_the_guides_links_follow(qtbot):
    dialog = HelpDialog()
    qtbot.addWidget(dialog)
    dialog.resize(760, 400)
    dialog.show()
    bar = dialog.browser.verticalScrollBar()
    places = {}
    for name in (help.DAY, help.CERTAINTY, help.SHAPES, help.CLAIM):
        dialog.show_section(name)
        places[name] = bar.value()
    assert len(set(places.values())) == len(places) and min(places.values()) > 0
    # a link inside the guide ([intervals](numbers.md#...) in day.md) lands where F1 does
    bar.setValue(0)
    dialog.browser.setSource(QUrl("#" + help.CERTAINTY))
    assert bar.value() == places[help.CERTAINTY]


def test_an_installed_copy_carries_the_guide():
    # a wheel holds docs/ beside the packages (guide_text finds it at the same place as in the source tree)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert any(fnmatch.fnmatch("docs", pattern) for pattern in config["packages"]["find"]["include"])
    packaged = {p for pattern in config["package-data"]["docs"] for p in (ROOT / "docs").glob(pattern)}
    assert set(GUIDE_DIR.glob("*.md")) <= packaged
    assert GUIDE_DIR == (ROOT / "docs" / "guide").resolve()


def test_contents_goes_back_to_the_top(qtbot):
    from PySide6.QtWidgets import QPushButton

    dialog = HelpDialog()
    qtbot.addWidget(dialog)
    dialog.show_section(help.CLAIM)
    assert dialog.browser.verticalScrollBar().value() > 0
    next(b for b in dialog.findChildren(QPushButton) if b.text() == "Contents").click()
    assert dialog.browser.verticalScrollBar().value() == 0


def test_f1_on_a_vendors_terms_or_quality_opens_their_section():
    # F1 on the per-tier SLA, Downgraded and Quality columns, and on a terms field, opened the mix speedup or
    # nothing: the guide has a section for each
    from model.workbook.validation import TERMS_FIELDS, WORKLOAD_FIELDS

    names = set(anchors(guide_markdown()))
    assert help.TERMS in names and help.QUALITY in names
    assert {ANCHOR_FOR_SUMMARY.get(head) for head in ("SLA", "Downgraded")} == {help.TERMS}
    assert ANCHOR_FOR_SUMMARY.get("Quality") == help.QUALITY
    assert {ANCHOR_FOR_FIELD.get(spec.name) for spec in TERMS_FIELDS + WORKLOAD_FIELDS} == {help.TERMS}
