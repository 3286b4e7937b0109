"""Issue 21: the probe dock's run until decided takes a half-width as the CLI's --half-width does (through the
validator: a bad value is refused with its reason and the old one kept), without widening the dock; and it says
which classes the prompt file has too few distinct prompts to decide."""
from __future__ import annotations

import pytest

pytest.importorskip("httpx")

from gui.document import Document  # noqa: E402
from gui.probe.dock import show_probe_panel  # noqa: E402
from gui.probe.panel import ProbePanel  # noqa: E402
from model.probe.decide_plan import needs_before_run  # noqa: E402
from model.probe.endpoint import Endpoint  # noqa: E402
from model.probe.plan import Prices, ProbeSettings  # noqa: E402
from model.probe.prompt_file import load_probe_prompts  # noqa: E402
from model.probe.prompt_supply import short_of_prompts  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402

TIER = "Northwind Turbo"


@pytest.fixture
def panel(qtbot):
    widget = ProbePanel(Document(load_demo()))
    qtbot.addWidget(widget)
    widget.endpoint.tier_combo.setCurrentIndex(widget.endpoint.tier_combo.findText(TIER))
    widget.endpoint.url_edit.setText("http://127.0.0.1:9/v1")
    widget.endpoint.model_edit.setText("demo-fast")
    widget.endpoint.baseline_combo.setCurrentIndex(0)  # (none): until decided sends the fast tier only
    widget.run_form.decide_check.setChecked(True)
    return widget


def _type(qtbot, panel, text):
    edit = panel.run_form.half_width_edit
    edit.setText(text)
    edit.editingFinished.emit()


def test_the_half_width_reaches_the_run_s_settings(qtbot, panel):
    _type(qtbot, panel, "0.03")
    settings = panel.settings()
    decide, _ = panel._decide_settings(settings)
    assert decide.half_width == pytest.approx(0.03)
    _type(qtbot, panel, "2.5%")
    assert panel._decide_settings(settings)[0].half_width == pytest.approx(0.025)
    asked = []
    panel.confirm = lambda question: asked.append(question) or False
    panel.run_row.run_button.click()
    assert "or to a half-width of 0.025" in asked[0] and panel.message_label.text() == "Nothing sent."
    _type(qtbot, panel, "")  # blank: none, decide against the break-even
    assert panel._decide_settings(settings)[0].half_width is None


@pytest.mark.parametrize("bad", ["0.7", "0", "-0.02", "three", "50%"])
def test_a_bad_half_width_is_refused_with_its_reason_and_the_old_one_kept(qtbot, panel, bad):
    _type(qtbot, panel, "0.03")
    with qtbot.waitSignal(panel.run_form.refused, timeout=1000) as said:
        _type(qtbot, panel, bad)
    assert panel.run_form.half_width_edit.text() == "0.03" and panel.run_form.half_width() == pytest.approx(0.03)
    text = panel.message_label.text()
    assert said.args[0] == text and text.startswith("Half-width must be") and "below 0.5" in text
    assert text.endswith("; kept 0.03") and not panel.message_label.isHidden()


def test_the_estimate_follows_the_half_width(qtbot, panel):
    qtbot.waitUntil(lambda: "until decided" in panel.estimate_label.text(), timeout=3000)
    _type(qtbot, panel, "0.03")
    qtbot.waitUntil(lambda: "half-width 0.030" in panel.estimate_label.toolTip(), timeout=3000)


def test_the_dock_says_which_classes_have_too_few_distinct_prompts(qtbot, panel):
    qtbot.waitUntil(lambda: "distinct" in panel.estimate_label.text(), timeout=3000)
    wb = panel.document.workbook
    tier = wb.tiers[wb.tier_index(TIER)]
    settings = ProbeSettings(fast=Endpoint("", TIER), prompts=load_probe_prompts(panel.run_form.prompts_path()),
                             max_tokens=panel.run_form.tokens_spin.value(), fast_name=TIER,
                             fast_prices=Prices(tier.price_in, tier.price_out))
    short = short_of_prompts(needs_before_run(wb, TIER, settings, wb.settings.confidence, None, 40), settings.prompts)
    assert short, "the demo prompts (8 a class) are short of what deciding code at 95% takes"
    for s in short:
        assert s.words() in panel.estimate_label.text() and s.words() in panel.estimate_label.toolTip()
    assert short[0].words().startswith("code: ~") and "8 distinct code prompts: add prompts or expect undecided" in short[0].words()


def test_the_caps_do_not_widen_the_dock(qtbot, window):
    # the run form is never what sets the dock's width: the endpoint form above it is wider
    window.resize(1366, 768)
    show_probe_panel(window)
    qtbot.wait(50)
    panel = window.probe_panel
    assert panel.run_form.minimumSizeHint().width() <= panel.endpoint.minimumSizeHint().width()
    assert panel.run_form.half_width_edit.isVisible()
