"""The probe dock says, before a run, what deciding each class would take: the requests (in one run, or at the
looks of a run until decided) and their cost at the tier's prices with the workbook's currency symbol, the
numbers `specledger probe` prints (model.probe.decide_plan); it follows the form and the workbook."""
from __future__ import annotations

import math

import pytest

pytest.importorskip("httpx")

from gui.document import Document  # noqa: E402
from gui.probe.panel import ProbePanel  # noqa: E402
from model.common import formatting as fmt  # noqa: E402
from model.probe.decide_plan import needs_before_run  # noqa: E402
from model.probe.endpoint import Endpoint  # noqa: E402
from model.probe.plan import Prices, ProbeSettings  # noqa: E402
from model.probe.prompt_file import load_probe_prompts  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402

TIER = "Northwind Turbo"


@pytest.fixture
def panel(qtbot, tmp_path):
    widget = ProbePanel(Document(load_demo()))
    qtbot.addWidget(widget)
    widget.endpoint.tier_combo.setCurrentIndex(widget.endpoint.tier_combo.findText(TIER))
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "def parse_orders(orders):\\n    result = []\\n"}\n'
                       '{"task_class": "summarisation", "prompt": "Summarise the minutes of the meeting."}\n'
                       '{"task_class": "haiku", "prompt": "An old pond"}\n')
    widget.run_form.prompts_edit.setText(str(prompts))
    widget.run_form.tokens_spin.setValue(100)
    return widget


def _expected(panel, max_requests):
    wb = panel.document.workbook
    tier = wb.tiers[wb.tier_index(TIER)]
    settings = ProbeSettings(fast=Endpoint("", TIER), prompts=load_probe_prompts(panel.run_form.prompts_path()),
                             max_tokens=100, fast_name=TIER, fast_prices=Prices(tier.price_in, tier.price_out))
    return needs_before_run(wb, TIER, settings, wb.settings.confidence, None, max_requests)


def test_each_class_s_requests_and_cost_as_the_cli_says_them(qtbot, panel):
    qtbot.waitUntil(lambda: "Requests to decide at 95%" in panel.estimate_label.text(), timeout=3000)
    code, summarisation, haiku = _expected(panel, None)
    text = panel.estimate_label.text()
    assert "(in one run)" in text
    assert f"code ~{code.need.extra:.0f} {fmt.cost(code.cost, 'USD')}" in text and code.cost > 0
    assert f"summarisation ~{summarisation.need.extra:.0f} $0." in text
    assert summarisation.need.extra > code.need.extra  # 65% against 59.4%: nearer its price break-even than code
    assert "haiku not in the workbook" in text and "USD" not in text
    assert panel.estimate_label.toolTip().splitlines()[0] == code.words("USD")
    # a run until decided: the requests at its looks, more than one fixed run's expected n
    panel.run_form.decide_check.setChecked(True)
    qtbot.waitUntil(lambda: "until decided, at most 40 a class" in panel.estimate_label.text(), timeout=3000)
    until = _expected(panel, 40)[0]
    assert until.need.extra > code.need.extra and f"code ~{until.need.extra:.0f} " in panel.estimate_label.text()


def test_it_follows_the_workbook_s_currency_and_says_why_when_there_is_none(qtbot, panel):
    qtbot.waitUntil(lambda: "$0." in panel.estimate_label.text(), timeout=3000)

    def euros(wb):
        wb.settings.currency = "EUR"
    panel.document.apply("currency", euros)
    qtbot.waitUntil(lambda: "€0." in panel.estimate_label.text(), timeout=3000)
    assert "$" not in panel.estimate_label.text()
    panel.run_form.prompts_edit.setText(str(panel.run_form.prompts_path()) + ".missing")
    qtbot.waitUntil(lambda: "No estimate" in panel.estimate_label.text(), timeout=3000)
    assert ".missing" in panel.estimate_label.text()


def test_a_class_on_its_break_even_is_not_decidable(qtbot, panel):
    from model.probe.until_decided import class_thresholds

    wb = panel.document.workbook
    t = class_thresholds(wb, TIER)["code"]

    def on_it(w):
        w.classes[[c.name for c in w.classes].index("code")].alpha = t
    panel.document.apply("alpha on the break-even", on_it)
    # an expectation from the workbook's value, not a finding (a run measuring another acceptance may decide it)
    qtbot.waitUntil(lambda: "code undecided if its acceptance is the workbook's" in panel.estimate_label.text(),
                    timeout=3000)
    assert "not decidable" not in panel.estimate_label.text()
    assert math.isinf(_expected(panel, None)[0].need.extra)


def test_a_half_width_out_of_reach_leaves_the_requests_that_decide(qtbot, panel):
    # a run until decided stops a class once decided or once the half-width is reached, whichever is first: a
    # half-width of 1% (hundreds of requests) must not turn code's ~N into 'not decidable' (it did: the estimate
    # read only the half-width when one was set)
    panel.run_form.decide_check.setChecked(True)
    qtbot.waitUntil(lambda: "until decided, at most 40 a class" in panel.estimate_label.text(), timeout=3000)
    code = _expected(panel, 40)[0]
    assert math.isfinite(code.need.extra)
    panel.run_form.half_width_edit.setText("1%")
    panel.run_form.half_width_edit.editingFinished.emit()
    qtbot.waitUntil(lambda: "half-width 0.010" in panel.estimate_label.toolTip(), timeout=3000)
    assert f"code ~{code.need.extra:.0f} " in panel.estimate_label.text()
    # on its break-even only the half-width can stop it, and 1% is beyond the cap of 40: said so
    from model.probe.until_decided import class_thresholds
    t = class_thresholds(panel.document.workbook, TIER)["code"]

    def on_it(w):
        w.classes[[c.name for c in w.classes].index("code")].alpha = t
    panel.document.apply("alpha on the break-even", on_it)
    # said as what the workbook's value implies: 'not decidable within the cap' was said of a class a run then
    # decided after 5 requests (its measured acceptance far from the workbook's)
    qtbot.waitUntil(lambda: "code past the cap if its acceptance is the workbook's" in panel.estimate_label.text(),
                    timeout=3000)
    assert "not decidable" not in panel.estimate_label.text()
