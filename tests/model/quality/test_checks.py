"""Task checks: each kind passes a good answer, fails a bad one with a reason, and refuses a malformed check;
a prompt file with a malformed check is refused naming its line; pass rates and verdicts per class and tier."""
from __future__ import annotations

import json

import pytest

from model.probe.check_records import checks_of, prompt_checks
from model.probe.events import BASELINE, FAST, RequestRecord, StreamEvent
from model.probe.prompt_file import ProbePromptError, load_probe_prompts
from model.quality.check_stats import SAME, UNDECIDED, WORSE, ScoredAnswer, class_checks
from model.quality.checks import CheckError, parse_check

CASES = [
    ({"json": True}, '{"a": 1}', "{'a': 1"),
    ({"json_schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}},
     '{"id": 3}', '{"id": "3"}'),
    ({"regex": r"^\s*\d{4}-\d{2}-\d{2}"}, " 2024-05-01 was a Wednesday", "May 1st"),
    ({"equals": "Paris"}, "  Paris\n", "paris"),
    ({"contains": ["alpha", "beta"]}, "alpha then beta", "alpha only"),
    ({"number": 42, "tolerance": 0.01}, "The answer is 42.005.", "The answer is 41.9"),
    ({"python": True}, "def f(x):\n    return x + 1\n", "def f(x)\n    return"),
]


@pytest.mark.parametrize(("spec", "good", "bad"), CASES, ids=[next(iter(c[0])) for c in CASES])
def test_each_kind_passes_a_good_answer_and_fails_a_bad_one_with_a_reason(spec, good, bad):
    check = parse_check(spec)
    assert check.score(good) == (True, "")
    passed, why = check.score(bad)
    assert not passed and why
    assert parse_check(check.to_dict()).kind == check.kind  # the run header's copy reads back


def test_a_check_on_the_prompt_and_the_answer_finishes_what_the_prompt_began():
    check = parse_check({"python": True, "on": "prompt+answer"})
    assert check.score(" x + 1\n", "def f(x):\n    return") == (True, "")
    assert not check.score(" x +\n", "def f(x):\n    return")[0]


@pytest.mark.parametrize("spec", [
    "json", {"json": False}, {"json": True, "regex": "x"}, {}, {"jsn": True}, {"regex": "("}, {"regex": ""},
    {"equals": 3}, {"contains": []}, {"contains": ["a", 1]}, {"number": "42"}, {"number": float("nan")},
    {"number": 1, "tolerance": -1}, {"regex": "a", "tolerance": 1}, {"json_schema": {"type": "no-such-type"}},
    {"json_schema": []}, {"python": True, "on": "everything"}])
def test_a_malformed_check_is_refused_in_one_line(spec):
    with pytest.raises(CheckError) as info:
        parse_check(spec)
    assert "\n" not in str(info.value) and "check" in str(info.value)


def test_a_prompt_file_with_a_malformed_check_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"task_class": "a", "prompt": "x", "check": {"json": True}}) + "\n"
                    + json.dumps({"task_class": "a", "prompt": "y", "check": {"regex": "(unclosed"}}) + "\n")
    with pytest.raises(ProbePromptError, match=r"p\.jsonl, line 2: 'check\.regex' is not a valid pattern"):
        load_probe_prompts(path)


def test_the_demo_prompt_file_checks_its_json_extraction_code_and_summaries():
    from tests.probe_servers import DEMO_PROMPTS
    prompts = load_probe_prompts(DEMO_PROMPTS)
    checked = {p.task_class for p in prompts if p.check is not None}
    assert checked == {"code", "json", "extraction", "summarisation"}
    assert {p.check.kind for p in prompts if p.task_class == "code"} == {"python"}


def _answers(name, fast_passes, base_passes):
    out = [ScoredAnswer(name, i, True, bool(x)) for i, x in enumerate(fast_passes)]
    return out + [ScoredAnswer(name, i, False, bool(x)) for i, x in enumerate(base_passes)]


def test_verdicts_at_the_margin_with_the_prompt_as_the_unit():
    [worse] = class_checks(_answers("c", [0] * 30, [1] * 30))
    assert worse.verdict == WORSE and worse.difference == -1.0
    # every answer passes on both tiers: no difference, but eight prompts cannot show it is within two points
    [few] = class_checks(_answers("c", [1] * 8, [1] * 8))
    assert few.verdict == UNDECIDED and few.low < -0.02 and few.fast.low < 1.0
    [many] = class_checks(_answers("c", [1] * 400, [1] * 400), margin_points=2)
    assert many.verdict == SAME
    # a prompt's repeats are one unit: 3 prompts answered 10 times each are 3 units, not 30
    rep = [ScoredAnswer("c", i % 3, True, True) for i in range(30)]
    assert class_checks(rep)[0].fast.prompts == 3


def _record(role, index, text, repeat=0):
    r = RequestRecord(f"{role} {index}", role, "json", index, 0, repeat, 16, prompt_key=f"k{index}")
    r.events = [StreamEvent(0.1, text, None)]
    return r


def test_failing_answers_are_listed_beside_the_other_tiers_answer():
    prompts = [type("P", (), {"check": parse_check({"json": True}), "line": 4, "task_class": "json",
                              "messages": ({"role": "user", "content": "x"},)})()]
    header = {"checks": prompt_checks(prompts)}
    records = [_record(FAST, 0, '{"a": '), _record(BASELINE, 0, '{"a": 1}')]
    result = checks_of(records, header)
    [failure] = result["failures"]
    assert failure["tier"] == FAST and failure["answer"] == '{"a": ' and failure["other_answer"] == '{"a": 1}'
    assert failure["other_passed"] is True and failure["line"] == 4 and failure["why"].startswith("not JSON")
    assert result["classes"][0]["fast"]["rate"] == 0.0 and result["classes"][0]["baseline"]["rate"] == 1.0
    assert checks_of(records, {}) is None
