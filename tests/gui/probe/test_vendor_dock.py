"""The Probe dock speaks the vendors' APIs: API, headers and SLA typed in the endpoint box, saved to the tier
through the one validator (a secret header's value refused), the SLA's requests said before sending, and the
served tier and the SLA's verdict shown with the result."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from gui.document import Document  # noqa: E402
from gui.probe.panel import ProbePanel  # noqa: E402
from model.probe.demo_server import LoopbackServer  # noqa: E402
from model.probe.vendor_server import Pace  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.vendor_servers import vendor_app  # noqa: E402


@pytest.fixture
def panel(qtbot, tmp_path):
    app, truth = vendor_app(Pace(fast_tokens_per_s=400.0, standard_tokens_per_s=160.0, downgrade_share=0.3,
                                 first_token_s=0.005, flush_s=0.01, seed=2))
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(f'{{"task_class": "code", "prompt": "def f{i}():"}}\n' for i in range(10)))
    with LoopbackServer(app) as server:
        wb = load_demo()
        widget = ProbePanel(Document(wb))
        widget.run_folder = tmp_path
        qtbot.addWidget(widget)
        widget.endpoint.tier_combo.setCurrentIndex(0)
        widget.endpoint.baseline_combo.setCurrentIndex(0)  # (none): the tier alone
        widget.endpoint.api_combo.setCurrentText("anthropic-messages")
        widget.endpoint.url_edit.setText(server.base_url)
        widget.endpoint.model_edit.setText("m")
        widget.endpoint.extra_edit.setText('{"speed": "fast"}')
        widget.endpoint.headers_edit.setText("anthropic-beta: fast-mode-2026-02-01")
        widget.endpoint.sla_edit.setText("100@0.99")
        widget.run_form.prompts_edit.setText(str(prompts))
        widget.run_form.tokens_spin.setValue(40)  # long enough to time against the SLA's 100 tok/s
        yield widget, truth
        widget.runner.wait()


def test_api_headers_and_sla_are_saved_to_the_tier_and_a_secret_value_is_refused(qtbot, panel) -> None:
    widget, _ = panel
    widget.endpoint.headers_edit.setText("X-Api-Key: sk-live-999")
    qtbot.mouseClick(widget.endpoint.save_endpoint_button, Qt.MouseButton.LeftButton)
    assert "Not saved" in widget.message_label.text() and "sk-live-999" not in widget.message_label.text()
    widget.endpoint.headers_edit.setText("anthropic-beta: fast-mode-2026-02-01; X-Api-Key: env:VENDOR_KEY")
    qtbot.mouseClick(widget.endpoint.save_endpoint_button, Qt.MouseButton.LeftButton)
    tier = widget.document.workbook.tiers[0]
    assert tier.endpoint_api == "anthropic-messages"
    assert tier.endpoint_headers == "anthropic-beta: fast-mode-2026-02-01\nX-Api-Key: env:VENDOR_KEY"
    assert (tier.sla_tokens_per_s, tier.sla_share) == (100.0, 0.99)
    widget.endpoint.clear()
    widget.endpoint.fill(tier, widget.document.workbook)
    assert widget.endpoint.api_combo.currentText() == "anthropic-messages"
    assert widget.endpoint.sla_edit.text() == "100@0.99"


def test_a_run_says_what_the_sla_needs_first_and_shows_served_and_sla(qtbot, panel) -> None:
    widget, truth = panel
    asked: list[str] = []
    widget.confirm = lambda text: asked.append(text) or True
    with qtbot.waitSignal(widget.runner.finished, timeout=60_000):
        qtbot.mouseClick(widget.run_row.run_button, Qt.MouseButton.LeftButton)
    assert "needs at least 299 requests" in asked[0]
    report = widget.report
    assert report is not None and report.served["standard"] == sum(not s.served_fast for s in truth.served)
    text = widget.verdict_label.text()
    assert "Acceptance cannot be read from this API" in text  # no baseline: speed alone has nothing to compare
    assert "SLA: " in text and "against 99% promised" in text
    if report.served["standard"]:
        assert "Downgraded:" in text
    import json
    (run_file,) = widget.run_folder.glob("probe-*.run.jsonl")
    trailer = [json.loads(x) for x in run_file.read_text().splitlines() if "specledger-probe-sla" in x]
    assert len(trailer) == 1 and trailer[0]["verdict"] == report.sla["verdict"]


def test_run_until_decided_is_refused_through_an_api_that_never_shows_the_steps(qtbot, panel) -> None:
    widget, truth = panel
    widget.confirm = lambda text: True
    widget.run_form.decide_check.setChecked(True)
    qtbot.mouseClick(widget.run_row.run_button, Qt.MouseButton.LeftButton)
    assert "Untick Run until decided" in widget.message_label.text()
    assert not truth.served  # nothing was sent


def test_the_estimate_through_an_api_without_steps_gives_the_slas_requests_not_undecidable_classes(qtbot, panel):
    # it read "code not decidable · json not decidable ..." for an Anthropic tier, without the SLA's 299 requests
    widget, truth = panel
    widget.endpoint.tier_combo.setCurrentIndex(widget.document.workbook.tier_index("Northwind Turbo"))
    widget.endpoint.api_combo.setCurrentText("anthropic-messages")
    widget.endpoint.sla_edit.setText("100@0.99")
    widget.update_estimate()
    text = widget.estimate_label.text()
    assert "not decidable" not in text and "Acceptance cannot be read through this API" in text
    assert "anthropic-messages API shows no steps" in text and "needs at least 299 requests" in text
    widget.endpoint.sla_edit.setText("")
    widget.update_estimate()
    assert "No SLA given" in widget.estimate_label.text()
    widget.endpoint.api_combo.setCurrentText("openai-chat")  # steps may show: the classes' requests again
    widget.update_estimate()
    assert "Requests to decide" in widget.estimate_label.text()
    assert not truth.served  # nothing was sent


def test_apply_after_a_run_without_steps_says_it_applies_speed_not_acceptance(qtbot, panel) -> None:
    widget, _ = panel
    widget.confirm = lambda text: True
    with qtbot.waitSignal(widget.runner.finished, timeout=60_000):
        qtbot.mouseClick(widget.run_row.run_button, Qt.MouseButton.LeftButton)
    widget.apply_row.update_for(True, True, "A tier name longer than twenty-four", False, speed_only=True)
    assert widget.apply_row.apply_button.text() == "Apply probed speed"
    assert "no acceptance to apply" in widget.apply_row.apply_button.toolTip()
    widget._update_apply()  # the panel's own call: the run's stream hid the steps
    assert "acceptance" not in widget.apply_row.apply_button.text().lower()
    assert "no acceptance to apply" in widget.apply_row.apply_button.toolTip()
    # after the run, the estimate for the same tier says so even through an API that might show steps
    widget.endpoint.tier_combo.setCurrentIndex(0)
    widget.endpoint.api_combo.setCurrentText("openai-chat")
    widget.document.workbook.tiers[0].speculative = "unknown"  # a tier with something to decide
    widget.update_estimate()
    assert "the last probe's stream showed no steps" in widget.estimate_label.text()
