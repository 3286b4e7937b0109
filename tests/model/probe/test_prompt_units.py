"""The interval's unit is the prompt by its text, not its line in the prompt file nor its place in a
round: a file that says one prompt twice has one unit for it, and --until-decided's rounds do not merge prompts."""
from __future__ import annotations

import json

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.events import FAST, RequestRecord
from model.probe.intervals import prompt_key
from model.probe.prompt_file import load_probe_prompts
from model.probe.run import run_probe
from model.probe.until_decided import PROMPTS_USED_UP, DecideSettings, run_until_decided
from tests.probe_servers import DEMO_PROMPTS, serving, settings_for, subset


@pytest.fixture(scope="module")
def server():
    yield from serving("vllm")


def _file_with_a_duplicate(tmp_path, n=6):
    rows = [json.loads(line) for line in DEMO_PROMPTS.read_text().splitlines() if '"code"' in line][:n]
    rows.append(dict(rows[1]))  # line n + 1 says what line 2 says
    path = tmp_path / "dup.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_two_lines_with_one_text_have_one_key(tmp_path):
    prompts = load_probe_prompts(_file_with_a_duplicate(tmp_path))
    assert prompts[1].line == 2 and prompts[6].line == 7
    assert prompts[1].key == prompts[6].key
    assert len({p.key for p in prompts}) == 6
    # a "prompt" string and the same text as a one-message "messages" list are the same prompt
    row = {"task_class": "code", "messages": [{"role": "user", "content": prompts[0].messages[0]["content"]}]}
    (tmp_path / "m.jsonl").write_text(json.dumps(row) + "\n")
    assert load_probe_prompts(tmp_path / "m.jsonl")[0].key == prompts[0].key


def test_the_key_survives_the_run_file_and_an_old_record_falls_back_on_its_index():
    r = RequestRecord("r", FAST, "code", 3, 0, 0, 16, prompt_key="abc")
    assert RequestRecord.from_dict(json.loads(json.dumps(r.to_dict()))).prompt_key == "abc"
    old = r.to_dict()
    del old["prompt_key"]
    back = RequestRecord.from_dict(old)
    assert back.prompt_key is None and prompt_key(back) == ("code", 3)
    with pytest.raises(ValueError, match="prompt_key"):
        RequestRecord.from_dict({**r.to_dict(), "prompt_key": 7})


def test_a_duplicated_prompt_is_one_unit_of_the_interval(server, tmp_path):
    prompts = load_probe_prompts(_file_with_a_duplicate(tmp_path))
    once = analyse(run_to_end(run_probe(settings_for(server.base_url, prompts[:6], baseline=False), {})).records)
    run = run_to_end(run_probe(settings_for(server.base_url, prompts, baseline=False), {}))
    assert [r.prompt_key for r in run.records] == [p.key for p in prompts]
    twice = analyse(run.records)
    a, b = once.classes[0], twice.classes[0]
    assert (a.requests, a.prompts, b.requests, b.prompts) == (6, 6, 7, 6)
    # at temperature 0 line 7 draws what line 2 drew; counted as a prompt of its own (by line, as before) it
    # narrowed the interval with no new information
    for r in run.records:
        r.prompt_key = None
    by_line = analyse(run.records).classes[0]
    assert by_line.prompts == 7 and by_line.alpha == b.alpha
    assert b.alpha_interval[0] < by_line.alpha_interval[0] and b.alpha_interval[1] > by_line.alpha_interval[1]


def test_until_decided_rounds_keep_each_prompt_its_own_unit(server):
    # each round numbers its requests from 0: keyed by that index, rounds 2, 3, ... merged prompts 6, 7, 8 into one
    prompts = [p for p in subset(8) if p.task_class == "prose"]
    run = run_to_end(run_until_decided(settings_for(server.base_url, prompts, baseline=False), {}, {},
                                       DecideSettings(0.95, 10, half_width=1e-6)))
    assert len(run.records) == 8 and len(run.rounds) == 4
    cls = analyse(run.records).classes[0]
    assert (cls.requests, cls.prompts) == (8, 8)


def test_an_older_until_decided_run_file_counts_each_request_as_a_unit(tmp_path):
    # written before the digest: each round numbered its requests from 0, so prompt_index 0 is a different prompt
    # in each round; read back, the request is the unit rather than merging them
    import numpy as np

    from model.probe.run_file import RunWriter, read_run
    from tests.model.probe.test_analysis import _record

    rng = np.random.default_rng(3)
    path = tmp_path / "old.run.jsonl"
    with RunWriter(path, {"fast_name": "f"}) as w:
        for n in range(6):
            w.add(_record([int(x) for x in np.minimum(rng.geometric(0.3, 40) - 1, 4) + 1], index=0), round=n + 1)
    _, records = read_run(path)
    assert len({prompt_key(r) for r in records}) == 6
    assert analyse(records).classes[0].prompts == 6


def test_until_decided_sends_a_repeated_text_once(server, tmp_path):
    # six code prompts, the file saying the second three more times: the class has six prompts to send, not nine
    path = _file_with_a_duplicate(tmp_path)
    path.write_text(path.read_text() + "\n".join([path.read_text().splitlines()[1]] * 2) + "\n")
    prompts = load_probe_prompts(path)
    assert len(prompts) == 9 and len({p.key for p in prompts}) == 6
    run = run_to_end(run_until_decided(settings_for(server.base_url, prompts, baseline=False), {}, {},
                                       DecideSettings(0.95, 10, half_width=1e-6)))
    assert len(run.records) == 6 and len({r.prompt_key for r in run.records}) == 6
    assert run.classes[0].stopped == PROMPTS_USED_UP and run.classes[0].requests == 6
