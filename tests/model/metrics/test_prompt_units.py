"""An imported interval's unit is the prompt where the record names it (its text, or an id), else the
request; the method and the JSON say which."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from model.acceptance import alpha_interval
from model.acceptance.units import UNIT_PROMPT, UNIT_REQUEST
from model.metrics.prompt_keys import record_prompt
from model.metrics.read import read_sources
from tests.model.metrics.engine_files import iid_steps
from tests.model.metrics.log_files import aiperf_record

ALPHAS = [0.6, 0.7, 0.8, 0.75, 0.65, 0.72]
HISTS = [iid_steps(a, 4, 60) for a in ALPHAS]


def _write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _trt(hist: list[int], **extra: object) -> str:
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    return json.dumps({"task_class": "code", **extra, "response": {"id": "chatcmpl-1", "metrics": {
        "speculative_decoding": {"num_spec_steps": steps, "num_draft_tokens": 4 * steps,
                                 "num_accepted_draft_tokens": accepted, "acceptance_histogram": hist,
                                 "num_spec_tokens": 4}}}})


def _hand(hists: list[list[int]], clusters: list[int] | None) -> tuple[float, float]:
    acc = np.array([sum(j * n for j, n in enumerate(h)) for h in hists], dtype=float)
    trials = acc + np.array([sum(h[:-1]) for h in hists], dtype=float)
    want = alpha_interval(acc, trials, 0.95, clusters=clusters)
    return want.low, want.high


def test_where_a_record_names_its_prompt():
    assert record_prompt({"prompt": "a"}) == record_prompt({"prompt": "a", "task_class": "x"}) != record_prompt({"prompt": "b"})
    assert record_prompt({"prompt_id": 7}) == "id 7" and record_prompt({"prompt_key": "abc"}) == "id abc"
    chat = [{"role": "user", "content": "a"}]
    assert record_prompt({"messages": chat}) == record_prompt({"messages": [dict(chat[0])]}) is not None
    assert record_prompt({"obj": {"text": "a", "rid": "1"}, "out": {"text": "out"}}) == record_prompt({"prompt": "a"})
    # llama.cpp's /completion echoes the prompt; vLLM gives prompt_token_ids with return_token_ids
    assert record_prompt({"prompt": "a", "content": "x", "timings": {}}) == record_prompt({"prompt": "a"})
    body = {"prompt_token_ids": [1, 2, 3], "choices": []}
    assert record_prompt({"response": body}, body) == record_prompt(body) is not None
    aiperf = {"metadata": {"session_num": 3, "conversation_id": "c-1", "turn_index": 0}}
    assert record_prompt(aiperf) == "id c-1 turn 0"
    # the output text is not the prompt; a record without one is its own unit
    assert record_prompt({"out": {"text": "out"}}, {"text": "out"}) is None and record_prompt({"id": "r1"}) is None


def test_records_naming_a_prompt_twice_cluster_it(tmp_path: Path) -> None:
    # seven records, the seventh the second prompt again (as a repeat at temperature 0 draws)
    hists = HISTS + [HISTS[1]]
    texts = [f"prompt {i}" for i in range(6)] + ["prompt 1"]
    [s] = read_sources([_write(tmp_path, "r.jsonl", [_trt(h, prompt=t) for h, t in zip(hists, texts)])])
    a = s.acceptance
    assert a.requests == 6 and (a.low, a.high) == pytest.approx(
        tuple(f(x, s.alpha) for f, x in zip((min, max), _hand(hists, [0, 1, 2, 3, 4, 5, 1]))))
    assert a.method.endswith("; unit: prompt")
    d = s.to_dict()
    assert d["interval_unit"] == UNIT_PROMPT and d["requests"] == 7 and d["interval_method"] == a.method
    assert d["prompts"] == 6 and a.row_fields()["alpha_requests"] == 7 and a.row_fields()["alpha_prompts"] == 6
    # the same records without a prompt: each request its own unit, and the method says the file names none
    [bare] = read_sources([_write(tmp_path, "b.jsonl", [_trt(h) for h in hists])])
    assert bare.acceptance.requests == 7 and bare.acceptance.method.endswith(f"; unit: {UNIT_REQUEST}")
    assert bare.to_dict()["interval_unit"] == UNIT_REQUEST and bare.to_dict()["prompts"] is None
    assert bare.acceptance.row_fields()["alpha_requests"] == 7 and bare.acceptance.row_fields()["alpha_prompts"] is None
    assert bare.acceptance.interval != pytest.approx(a.interval)


def test_llamacpp_responses_echoing_their_prompt(tmp_path: Path) -> None:
    pairs = [(40, 30), (40, 22), (48, 40), (36, 20), (44, 33), (40, 28)]
    lines = [json.dumps({"task_class": "prose", "prompt": f"p{i % 5}", "content": "x",
                         "timings": {"draft_n": n, "draft_n_accepted": acc}}) for i, (n, acc) in enumerate(pairs)]
    [s] = read_sources([_write(tmp_path, "llama.jsonl", lines)], k=4)
    # six responses of five prompts: the interval is over five units
    assert s.interval_unit == UNIT_PROMPT and s.acceptance.requests == 5 and s.acceptance.has_interval


def test_aiperf_records_by_dataset_entry(tmp_path: Path) -> None:
    lines = []
    for i, h in enumerate(HISTS + HISTS[:2]):
        rec = json.loads(aiperf_record(h, i))
        rec["metadata"].update(conversation_id=f"conv-{i % 6}", turn_index=0)
        lines.append(json.dumps(rec))
    [s] = read_sources([_write(tmp_path, "profile_export.jsonl", lines)])
    assert s.interval_unit == UNIT_PROMPT and s.acceptance.requests == 6 and len(s.requests) == 8
    # an export without conversation ids: the request is the unit
    bare = [aiperf_record(h, i) for i, h in enumerate(HISTS + HISTS[:2])]
    [b] = read_sources([_write(tmp_path, "p2.jsonl", bare)])
    assert b.interval_unit == UNIT_REQUEST and b.acceptance.requests == 8






def test_import_metrics_cli_says_the_unit_and_apply_keeps_both_counts(tmp_path: Path, capsys) -> None:
    from main import main
    from model.workbook.json_file import load_demo, load_workbook, save_workbook

    hists = HISTS + [HISTS[1]]
    texts = [f"prompt {i}" for i in range(6)] + ["prompt 1"]
    records = _write(tmp_path, "r.jsonl", [_trt(h, prompt=t) for h, t in zip(hists, texts)])
    save_workbook(load_demo(), tmp_path / "wb.json")
    assert main(["import-metrics", records, "--apply", str(tmp_path / "wb.json"), "-o", str(tmp_path / "out.json")]) == 0
    assert "over 6 distinct prompts (unit: prompt)" in capsys.readouterr().out
    wb = load_workbook(tmp_path / "out.json")
    code = wb.classes[wb.class_index("code")]
    assert (code.alpha_requests, code.alpha_prompts) == (7, 6) and code.alpha_method.endswith("; unit: prompt")
    bare = _write(tmp_path, "b.jsonl", [_trt(h) for h in hists])
    assert main(["import-metrics", bare]) == 0
    assert f"over 7 requests (unit: {UNIT_REQUEST})" in capsys.readouterr().out
