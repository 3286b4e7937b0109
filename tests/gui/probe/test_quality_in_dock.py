"""The dock at a temperature: the Temperature field reaches the run's settings; the verdict shows the quality test's
finding and the task checks, the failing answers side by side with the other tier's."""
from __future__ import annotations

import numpy as np

from gui.probe.quality_text import SHOWN_FAILURES
from gui.probe.run_form import RunForm
from gui.probe.verdict_text import verdict_html
from model.probe.analysis import analyse
from model.probe.check_records import prompt_checks
from model.probe.events import BASELINE, FAST, RequestRecord, StreamEvent
from model.quality.checks import parse_check
from model.quality.simulate import simulate_requests


def _sampled(role: str, beta: float, seed: int) -> list[RequestRecord]:
    out = []
    for n, req in enumerate(simulate_requests(np.random.default_rng(seed), 8, 2, 32, beta)):
        r = RequestRecord(f"{role} {n}", role, "prose", req.prompt, 0, n // 8, 32, prompt_key=f"k{req.prompt}",
                          temperature=0.8)
        r.events = [StreamEvent(0.01 * i, f"w{i} ", 1, [f"w{i} "], [list(t.top)], [t.rank])
                    for i, t in enumerate(req.tokens)]
        out.append(r)
    return out


def _checked(role: str, text: str, index: int) -> RequestRecord:
    r = RequestRecord(f"{role} c{index}", role, "json", 100 + index, 0, 0, 16, prompt_key=f"c{index}")
    r.events = [StreamEvent(0.1, text, None)]
    return r


def test_a_lossy_run_and_failing_checks_show_in_the_dock():
    prompts = [type("P", (), {"check": parse_check({"json": True}), "line": 10 + i, "task_class": "json",
                              "messages": ({"role": "user", "content": "x"},)})() for i in range(6)]
    header = {"baseline_name": "standard", "temperature": 0.8,
              "checks": [dict(c, prompt_index=100 + c["prompt_index"]) for c in prompt_checks(prompts)]}
    records = _sampled(FAST, 2.0, 1) + _sampled(BASELINE, 1.0, 2)
    for i in range(6):
        records += [_checked(FAST, '{"a": ' if i < 5 else "{}", i), _checked(BASELINE, '{"a": 1}', i)]
    report = analyse(records, header)
    html = verdict_html(report)
    assert "<b>Quality: logprob score test at temperature 0.8 (p &lt; 0.001" in html and "lossy" in html
    assert "Task checks (margin 2 points)" in html and "json: fast 17%" in html
    # side by side: the fast tier's failing answer, then the baseline's to the same request
    assert html.count("<tr><td>json line") == SHOWN_FAILURES
    assert "<td><tt>{&quot;a&quot;: </tt></td><td><tt>{&quot;a&quot;: 1}</tt></td>" in html
    assert "1 more failing answers in the JSON" in html


def test_the_temperature_field_reaches_the_settings(qtbot, monkeypatch):
    form = RunForm()
    qtbot.addWidget(form)
    assert form.temperature_spin.value() == 0.0
    form.temperature_spin.setValue(0.8)
    form.repeats_spin.setValue(3)
    from gui.probe import run_request
    from model.probe.endpoint import Endpoint
    from model.workbook.json_file import load_demo

    class _Endpoint:  # the endpoint box: a loopback URL, no baseline chosen
        baseline_combo = None

        def endpoint(self):
            return Endpoint("http://127.0.0.1:9/v1", "demo-fast")

        def sla(self):
            return None

    monkeypatch.setattr(run_request, "chosen_tier", lambda combo, wb: None)  # no baseline tier
    settings = run_request.form_settings(None, _Endpoint(), form, load_demo())
    assert settings.temperature == 0.8 and settings.repeats == 3
    form.decide_check.setChecked(True)
    try:
        run_request.form_settings(None, _Endpoint(), form, load_demo())
    except ValueError as exc:
        assert "Temperature" in str(exc)
    else:
        raise AssertionError("until decided at a temperature was not refused")
