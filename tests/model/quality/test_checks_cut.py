"""A checked answer cut at the run's max tokens: too short to judge, not a failure
(docs/guide/quality.md#answers-cut-at-the-token-budget). Seen with the demo prompts at the default 64 max tokens: both tiers' code answers ran on into
a next function ('... return counts\\n\\ndef filter_') and failed 'parses as Python', a 50% pass rate on both tiers
that said nothing about quality."""
from __future__ import annotations

import pytest

from model.common.cancel import run_to_end
from model.probe.check_records import checks_of, prompt_checks
from model.probe.demo_server import LoopbackServer
from model.probe.events import BASELINE, FAST, RequestRecord, StreamEvent
from model.probe.prompt_file import load_probe_prompts
from model.probe.quality_apply import quality_of_report
from model.probe.run import run_probe
from model.quality.check_stats import ScoredAnswer, class_checks
from model.quality.checks import parse_check
from tests.probe_servers import DEMO_PROMPTS, FAST_LIMITS, demo_app, settings_for

PROMPT = "def f(x):\n    return"


def _header() -> dict:
    prompts = [type("P", (), {"check": parse_check({"python": True, "on": "prompt+answer"}), "line": 1,
                              "task_class": "code", "messages": ({"role": "user", "content": PROMPT},)})()]
    return {"checks": prompt_checks(prompts)}


def _record(role: str, text: str, finish: str | None, repeat: int = 0) -> RequestRecord:
    r = RequestRecord(f"{role} 0", role, "code", 0, 0, repeat, 16, prompt_key="k0", finish_reason=finish)
    r.events = [StreamEvent(0.1, text, None)]
    return r


def test_a_failing_answer_cut_at_max_tokens_is_too_short_to_judge_not_a_failure():
    cut = " x + 1\n\ndef g("  # ran on into a next function when the budget ended
    records = [_record(FAST, cut, "length"), _record(BASELINE, cut, "length"),
               _record(FAST, " x + 1\n", "stop", 1), _record(BASELINE, " x + 1\n", "stop", 1)]
    result = checks_of(records, _header())
    [c] = result["classes"]
    assert result["failures"] == [] and result["failures_total"] == 0 and result["cut_total"] == 2
    assert (c["cut"], c["answers"]) == (2, 4)
    assert c["fast"]["rate"] == 1.0 and c["fast"]["answers"] == 1 and c["baseline"]["answers"] == 1
    assert "2 of 4 answers cut at max tokens" in c["words"] and "too short to judge" in c["words"]
    # and Apply's quality note says so beside the verdict
    verdict, note = quality_of_report(None, result)
    assert verdict == "undecided" and "answers cut at max tokens, too short to judge: code 2 of 4" in note, note


def test_an_answer_that_stopped_on_its_own_still_fails_and_a_cut_pass_still_passes():
    records = [_record(FAST, " x +\n", "stop"), _record(BASELINE, " x + 1\n", "length")]
    result = checks_of(records, _header())
    [c] = result["classes"]
    assert result["failures_total"] == 1 and result["failures"][0]["tier"] == FAST
    assert result["failures"][0]["other_passed"] is True and result["cut_total"] == 0
    assert c["fast"]["rate"] == 0.0 and c["baseline"]["rate"] == 1.0 and "cut" not in c["words"]


def test_a_class_whose_every_answer_is_cut_has_no_rate_and_says_why():
    [c] = class_checks([ScoredAnswer("code", "p", fast, False, cut=True) for fast in (True, False)])
    assert c.fast is None and c.baseline is None and c.verdict is None
    assert "2 of 2 answers cut at max tokens" in c.words() and "raise max tokens" in c.words()


def test_the_demo_code_answers_at_64_tokens_are_not_failed_for_being_cut(tmp_path):
    pytest.importorskip("uvicorn")
    app, _ = demo_app("vllm")
    code = [p for p in load_probe_prompts(DEMO_PROMPTS) if p.task_class == "code"]
    with LoopbackServer(app) as server:
        settings = settings_for(server.base_url, code)
        settings.max_tokens = 64  # the dock's and the CLI's default
        run = run_to_end(run_probe(settings, {}, tmp_path / "run.jsonl", limits=FAST_LIMITS))
    assert run.error is None, run.error
    cut = [r for r in run.records if r.finish_reason == "length"]
    assert cut, "the demo's code answers no longer reach 64 tokens: the case is gone"
    result = checks_of(run.records, run.header)
    [c] = result["classes"]
    # every failure listed is an answer that ended on its own; none of the failures is the budget's
    assert all(f["tier"] in (FAST, BASELINE) for f in result["failures"])
    assert not {(f["prompt_index"], f["tier"]) for f in result["failures"]} & {(r.prompt_index, r.role) for r in cut}
    assert c["cut"] == result["cut_total"] > 0 and c["answers"] == len(run.records)
    judged = c["fast"]["answers"] + c["baseline"]["answers"]
    assert judged == c["answers"] - c["cut"] and c["fast"]["rate"] == c["baseline"]["rate"] == 1.0
