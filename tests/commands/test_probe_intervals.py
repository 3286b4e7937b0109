"""probe --json gives each class's interval on alpha (requests as the unit), or why there is none."""
from __future__ import annotations

import json

import pytest

from main import main
from model.acceptance import TOO_FEW
from model.probe.demo_server import LoopbackServer
from tests.probe_servers import demo_app

pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def server():
    app, _ = demo_app("vllm")
    with LoopbackServer(app) as s:
        yield s


def test_probe_json_has_intervals_and_too_few_says_so(server, tmp_path, capsys):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def parse_{i}(orders):\n    result = []\n"}) + "\n"
                               for i in range(6))
                       + '{"task_class": "prose", "messages": [{"role": "user", "content": "The morning was"}]}\n')
    out = tmp_path / "probe.json"
    code = main(["probe", "--base-url", server.base_url, "--model", "demo-fast", "--prompts", str(prompts),
                 "--max-tokens", "24", "--json", str(out), "--yes", "--confidence", "90%"])
    text = capsys.readouterr().out
    assert code == 0
    result = json.loads(out.read_text())
    assert result["confidence"] == 0.9
    code_c, prose = result["classes"]
    assert code_c["requests"] == 6 and code_c["alpha_interval"] is not None
    lo, hi = code_c["alpha_interval"]
    assert lo <= code_c["alpha"] <= hi and hi - lo < 0.5 and code_c["interval_note"] is None
    assert prose["alpha_interval"] is None and prose["interval_note"] == TOO_FEW
    assert "interval on alpha (90%, distinct prompts as the unit): code " in text and f"prose: {TOO_FEW}" in text


def test_a_bad_confidence_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["probe", "--from-run", "x.jsonl", "--confidence", "1.5"])
    assert "Interval confidence" in capsys.readouterr().err


def test_until_decided_to_a_half_width_in_the_cli(server, tmp_path, capsys):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def parse_{i}(orders):\n    result = []\n"}) + "\n"
                               for i in range(8)))
    out = tmp_path / "probe.json"
    code = main(["probe", "--base-url", server.base_url, "--model", "demo-fast", "--prompts", str(prompts),
                 "--max-tokens", "24", "--json", str(out), "--yes", "--until-decided", "--half-width", "0.45",
                 "--max-requests", "10"])
    text = capsys.readouterr().out
    assert code == 0
    d = json.loads(out.read_text())["until_decided"]
    [c] = d["classes"]
    assert c["decided"] and c["stopped"] == "half-width reached" and c["requests"] == 5 and d["looks"] == [5, 6, 7, 8, 9, 10]
    assert d["total_tokens"] == c["tokens"] > 0 and d["total_cost"] is None
    assert "code: alpha" in text and "half-width reached after 5 requests" in text


def test_until_decided_without_a_threshold_is_refused(capsys):
    assert main(["probe", "--base-url", "http://127.0.0.1:9", "--model", "m", "--prompts", "p.jsonl",
                 "--until-decided"]) != 0
    assert "needs a workbook tier" in capsys.readouterr().err


def _decide_code(server, tmp_path, capsys, margins: tuple[float, float, float]):  # noqa: ANN001
    """probe --until-decided of code on the demo's fast tier (5 prompts, a cap of 5), the workbook holding an
    earlier interval on code of 20 requests at 95%: (low, alpha, high) as margins over its price break-even."""
    from model.probe.until_decided import class_thresholds
    from model.workbook.json_file import load_demo, save_workbook
    from model.workbook.rows import Override

    wb = load_demo()
    fast = next(t for t in wb.tiers if t.baseline)
    fast.endpoint_url, fast.endpoint_model = server.base_url, "demo-fast"
    base = wb.tiers[wb.tier_index(fast.baseline)]
    base.endpoint_url, base.endpoint_model = server.base_url, "demo-standard"  # until decided sends the fast tier only
    t = class_thresholds(wb, fast.name)["code"]
    low, alpha, high = (t + m for m in margins)
    wb.overrides.append(Override(fast.name, "code", alpha, "probed", alpha_low=low, alpha_high=high,
                                 alpha_confidence=0.95, alpha_requests=20, alpha_steps=2000, alpha_method="cluster"))
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def parse_{i}(orders):\n"}) + "\n"
                               for i in range(5)))
    out = tmp_path / "decide.json"
    code = main(["probe", str(path), "--tier", fast.name, "--prompts", str(prompts), "--max-tokens", "16",
                 "--until-decided", "--max-requests", "5", "--json", str(out), "--yes"])
    return code, capsys.readouterr().err, out


def test_the_estimate_before_a_run_until_decided_counts_from_zero_as_the_run_does(server, tmp_path, capsys):
    # measured before from 20 requests: the workbook keeps the interval, not the requests' own counts (an interval
    # reaching across the break-even: one wholly above it decides the class, and nothing is sent)
    code, err, out = _decide_code(server, tmp_path, capsys, (-0.01, 0.04, 0.09))
    assert code == 0, err
    line = next(x for x in err.splitlines() if x.strip().startswith("code:"))
    assert "the run starts afresh, the workbook's 20 earlier requests not reused" in line
    assert "about 5 requests" in line or "more than the cap of 5 requests" in line  # the one look of a 5-request cap
    assert "USD" not in line
    assert "about $0." in line or "not decidable" in line
    [c] = json.loads(out.read_text())["until_decided"]["classes"]
    assert c["requests"] == 5  # the run sent its 5 from zero: nothing of the earlier 20 was pooled


def test_until_decided_text_gives_alpha_and_its_interval_in_one_unit() -> None:
    """It printed 'alpha 87.4% (0.796–0.924)': a percentage beside shares, read as a different number."""
    from commands.probe_decide import decide_text
    from model.probe.until_decided import ClassDecision, UntilDecidedRun

    run = UntilDecidedRun(classes=[ClassDecision("code", 0.7205, decided=True, side="above", requests=5, tokens=320,
                                                 alpha=0.8736, alpha_interval=[0.7961, 0.9245], stopped="decided")],
                          looks=[5, 6], look_confidences=[0.964, 0.972], cost=0.03)
    text = decide_text(run, "USD")
    assert "code: alpha 87.4% (79.6–92.5%); decided: at or above 72.0% after 5 requests" in text


@pytest.mark.parametrize("args, said", [
    # a target no run reaches, or none at all: it took any positive number
    (["--half-width", "1e-9"], "argument --half-width: must be blank or a share (0.78 or 78%) from 0.001 to below 0.5"
                               " on alpha, or a number from 0.001 to 32 tokens per step on E (got '1e-9')"),
    (["--half-width", "100"], "(got '100')"),
    (["--max-cost", "-1"], "argument --max-cost: must be blank or a number from 0 to 1e+12 (got '-1')"),
    (["--max-cost", "five"], "(got 'five')"),
])
def test_until_decided_caps_are_checked_by_the_docks_validator(tmp_path, capsys, args, said):
    with pytest.raises(SystemExit) as stopped:  # argparse's refusal: one line, exit code 2
        main(["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", str(tmp_path / "p.jsonl"),
              "--until-decided", *args])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and said in err and len(err.strip().splitlines()) == 1


def test_until_decided_half_width_takes_a_percentage_as_the_dock_does():
    from commands.probe_decide import half_width_arg

    assert half_width_arg("3%") == pytest.approx(0.03) and half_width_arg("0.2") == pytest.approx(0.2)
    assert half_width_arg("0.7") == pytest.approx(0.7)  # on E, tokens per step


def test_a_run_until_decided_leaves_out_the_classes_the_workbook_already_decides(server, tmp_path, capsys):
    # an applied probe's interval wholly above code's price break-even: decided, so the estimate counts nothing
    code, err, out = _decide_code(server, tmp_path, capsys, (0.01, 0.06, 0.11))
    assert code == 0, err
    assert "decided by the workbook's interval over 20 requests" in err and "nothing to send" in err
    assert "nothing to send, the workbook's intervals already decide code" in err and not out.exists()
