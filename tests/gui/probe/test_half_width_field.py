"""The probe dock's run until decided takes a half-width as the CLI's --half-width does (through the
validator: a bad value is refused with its reason and the old one kept), on alpha for an alpha class and on E in
tokens per step for a profile or length class, without widening the dock; and it says which classes the prompt
file has too few distinct prompts to decide."""
from __future__ import annotations

import dataclasses

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


def _profile_demo():
    """The demo workbook with code held as a profile (as after a probe's Apply): judged on E at the tier's K."""
    wb = load_demo()
    j = next(j for j, c in enumerate(wb.classes) if c.name == "code")
    wb.classes[j] = dataclasses.replace(wb.classes[j], profile=(0.95, 0.9, 0.85, 0.8, 0.75), acceptance_length_low=3.6,
                                        acceptance_length_high=4.2, alpha_confidence=0.95, alpha_requests=12)
    return wb


@pytest.fixture(params=["alpha classes only"])
def panel(qtbot, request):
    widget = ProbePanel(Document(_profile_demo() if request.param == "code as a profile" else load_demo()))
    qtbot.addWidget(widget)
    widget.endpoint.tier_combo.setCurrentIndex(widget.endpoint.tier_combo.findText(TIER))
    widget.endpoint.url_edit.setText("http://127.0.0.1:9/v1")
    widget.endpoint.model_edit.setText("demo-fast")
    widget.endpoint.baseline_combo.setCurrentIndex(0)  # (none): until decided sends the fast tier only
    widget.run_form.decide_check.setChecked(True)
    return widget


def _type(qtbot, panel, text, edit=None):
    edit = edit or panel.run_form.half_width_edit
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


def test_the_estimate_follows_the_half_width(qtbot, panel):
    qtbot.waitUntil(lambda: "until decided" in panel.estimate_label.text(), timeout=3000)
    _type(qtbot, panel, "0.03")
    qtbot.waitUntil(lambda: "half-width 0.030" in panel.estimate_label.toolTip(), timeout=3000)


def _form_settings(panel) -> ProbeSettings:
    """What the panel's estimate reads from its form, built here as the CLI builds it."""
    wb = panel.document.workbook
    tier = wb.tiers[wb.tier_index(TIER)]
    return ProbeSettings(fast=Endpoint("", TIER), prompts=load_probe_prompts(panel.run_form.prompts_path()),
                         max_tokens=panel.run_form.tokens_spin.value(), fast_name=TIER,
                         fast_prices=Prices(tier.price_in, tier.price_out))


def test_the_dock_says_which_classes_have_too_few_distinct_prompts(qtbot, panel):
    qtbot.waitUntil(lambda: "distinct" in panel.estimate_label.text(), timeout=3000)
    wb, settings = panel.document.workbook, _form_settings(panel)
    short = short_of_prompts(needs_before_run(wb, TIER, settings, wb.settings.confidence, None, 40), settings.prompts)
    assert short, "the demo prompts (8 a class) are short of what deciding code at 95% takes"
    for s in short:  # on one line, each class's full words in the tooltip
        assert f"{s.task_class} ~{s.expected} expected, {s.distinct} in the file" in panel.estimate_label.text()
        assert s.words() in panel.estimate_label.toolTip()
    assert panel.estimate_label.text().count("Too few distinct prompts") == 1
    assert short[0].words().startswith("code: ~") and "8 distinct code prompts: add prompts or expect undecided" in short[0].words()


def test_the_caps_do_not_widen_the_dock(qtbot, window):
    # the run form is never what sets the dock's width: the endpoint form above it is wider
    window.resize(1366, 768)
    show_probe_panel(window)
    qtbot.wait(50)
    panel = window.probe_panel
    assert panel.run_form.minimumSizeHint().width() <= panel.endpoint.minimumSizeHint().width()
    assert panel.run_form.half_width_edit.isVisible() and panel.run_form.length_half_width_edit.isVisible()


def _type_e(qtbot, panel, text):
    _type(qtbot, panel, text, panel.run_form.length_half_width_edit)


def test_the_e_half_width_reaches_the_run_s_settings_apart_from_alpha_s(qtbot, panel):
    settings = panel.settings()
    _type_e(qtbot, panel, "0.1")
    decide = panel._decide_settings(settings)[0]
    assert decide.length_half_width == pytest.approx(0.1) and decide.half_width is None
    _type(qtbot, panel, "3%")
    decide = panel._decide_settings(settings)[0]
    assert decide.half_width == pytest.approx(0.03) and decide.length_half_width == pytest.approx(0.1)
    asked = []
    panel.confirm = lambda question: asked.append(question) or False
    panel.run_row.run_button.click()
    assert "or to a half-width of 0.03, or E to ±0.1 tokens/step." in asked[0]
    _type_e(qtbot, panel, "")
    assert panel._decide_settings(settings)[0].length_half_width is None


# alpha's half-width is a share below 0.5; E's is tokens per step, no percent, up to half of K max
REFUSED = [("alpha", bad, "Half-width must be blank or a share (0.78 or 78%) from 0.001 to below 0.5")
           for bad in ("0.7", "0", "-0.02", "three", "50%")] + [
          ("E", bad, "E half-width must be blank or a number from 0.001 to 32") for bad in ("0", "-0.1", "a tenth", "10%", "40")] + [
          # the cost cap too: '-5' stayed in its field, unsaid until Run
          ("cost", bad, "Max cost must be blank or a number from 0 to 1e+12") for bad in ("-5", "five", "nan", "inf")]


@pytest.mark.parametrize("field, bad, reason", REFUSED)
def test_a_bad_half_width_is_refused_with_its_reason_and_the_old_one_kept(qtbot, panel, field, bad, reason):
    form = panel.run_form
    edit, value, other = {"alpha": (form.half_width_edit, form.half_width, form.length_half_width),
                          "E": (form.length_half_width_edit, form.length_half_width, form.half_width),
                          "cost": (form.max_cost_edit, form.max_cost, form.half_width)}[field]
    _type(qtbot, panel, "0.03", edit)
    with qtbot.waitSignal(form.refused, timeout=1000) as said:
        _type(qtbot, panel, bad, edit)
    assert edit.text() == "0.03" and value() == pytest.approx(0.03)
    text = panel.message_label.text()
    assert said.args[0] == text and text.startswith(reason) and not panel.message_label.isHidden()
    assert text.endswith("; kept 0.03") and other() is None  # the other unit's target is untouched


@pytest.mark.parametrize("panel", ["code as a profile"], indirect=True)
def test_the_estimate_of_a_profile_class_follows_the_e_half_width(qtbot, panel):
    qtbot.waitUntil(lambda: "until decided" in panel.estimate_label.text(), timeout=3000)
    _type(qtbot, panel, "0.03")  # alpha's: not read for code, which is judged on E
    qtbot.waitUntil(lambda: "half-width 0.030" in panel.estimate_label.toolTip(), timeout=3000)
    assert "code: E " in panel.estimate_label.toolTip() and "tokens per step" not in panel.estimate_label.toolTip()
    _type_e(qtbot, panel, "0.1")
    qtbot.waitUntil(lambda: "half-width 0.100 tokens per step of E" in panel.estimate_label.toolTip(), timeout=3000)
    wb, settings = panel.document.workbook, _form_settings(panel)
    needs = needs_before_run(wb, TIER, settings, wb.settings.confidence, 0.03, 40, length_half_width=0.1)
    code = next(n for n in needs if n.task_class == "code")
    assert code.words(wb.settings.currency) in panel.estimate_label.toolTip().splitlines()
    assert code.words(wb.settings.currency) != next(
        n for n in needs_before_run(wb, TIER, settings, wb.settings.confidence, 0.03, 40) if n.task_class == "code"
    ).words(wb.settings.currency)  # without the E target the line differs: the estimate did read it
