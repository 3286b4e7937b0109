"""Before a run, a class expected to need more requests than its prompt file has distinct prompts is
flagged in words (a repeat adds no unit to the interval), by the CLI and by the model function the dock uses."""
from __future__ import annotations

import json
import math

from main import main
from model.acceptance.sequential import Need
from model.probe.decide_plan import ClassNeed, needs_before_run
from model.probe.endpoint import Endpoint
from model.probe.plan import ProbeSettings
from model.probe.prompt_file import load_probe_prompts
from model.probe.prompt_supply import distinct_by_class, short_of_prompts
from model.probe.until_decided import class_thresholds
from model.workbook.json_file import load_demo, save_workbook

TIER = "Northwind Turbo"


def _prompts(tmp_path, code=12, duplicates=2, prose=3):
    rows = [{"task_class": "code", "prompt": f"def parse_{i}(orders):\n"} for i in range(code)]
    rows += [dict(rows[0]) for _ in range(duplicates)]  # the same text again: no new prompt
    rows += [{"task_class": "prose", "prompt": f"Write about {i}."} for i in range(prose)]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _need(name, extra):
    return ClassNeed(name, True, 0.7, 0.65, None, Need(extra, "assumed"), None, 0)


def test_distinct_prompts_count_texts_not_lines(tmp_path):
    prompts = load_probe_prompts(_prompts(tmp_path))
    assert len(prompts) == 17 and distinct_by_class(prompts) == {"code": 12, "prose": 3}


def test_a_need_past_the_distinct_prompts_is_flagged_in_words(tmp_path):
    prompts = load_probe_prompts(_prompts(tmp_path))
    short = short_of_prompts([_need("code", 40.0), _need("prose", 3.0), _need("json", math.inf)], prompts)
    assert [s.words() for s in short] == [
        "code: ~40 requests expected, the prompt file has 12 distinct code prompts: add prompts or expect undecided"]
    # 12 lines of one text are one prompt: 14 requests expected is short of it
    one = load_probe_prompts(_prompts(tmp_path, code=1, duplicates=11))
    [s] = short_of_prompts([_need("code", 14.0)], one)
    assert s.words().endswith("the prompt file has 1 distinct code prompt: add prompts or expect undecided")
    assert short_of_prompts([_need("code", 12.0)], prompts) == []


def test_the_cli_says_it_before_a_run(tmp_path, capsys):
    wb = load_demo()
    fast = wb.tiers[wb.tier_index(TIER)]
    fast.endpoint_url, fast.endpoint_model = "http://127.0.0.1:9/v1", "demo-fast"  # never reached: nothing is sent
    base = wb.tiers[wb.tier_index(fast.baseline)]
    base.endpoint_url, base.endpoint_model = "http://127.0.0.1:9/v1", "demo-standard"
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    prompts = _prompts(tmp_path, code=3, duplicates=4)
    settings = ProbeSettings(fast=Endpoint("", TIER), prompts=load_probe_prompts(prompts), fast_name=TIER)
    code_need = next(n for n in needs_before_run(wb, TIER, settings, 0.95) if n.task_class == "code")
    assert code_need.need.extra > 3 and "code" in class_thresholds(wb, TIER)
    main(["probe", str(path), "--tier", TIER, "--prompts", str(prompts), "--max-tokens", "16"])  # not --yes: asks
    err = capsys.readouterr().err
    want = (f"  code: ~{math.ceil(code_need.need.extra)} requests expected, the prompt file has 3 distinct code "
            "prompts: add prompts or expect undecided")
    assert want in err.splitlines(), err
    assert "nothing sent" in err or "not asked" in err
