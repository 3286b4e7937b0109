"""A run file's server-reported counts per class, read by the probe's reader (model/probe/run_counts.py) and shown,
checked and applied by the metrics import beside the files it reads itself: `import-metrics RUN` and the window's
metrics import pass the probe's reader in (docs/dev/layout.md#one-reader-per-file)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.acceptance.units import UNIT_PROMPT, UNIT_REQUEST
from model.metrics.read import missing_k, missing_k_files, read_sources
from model.metrics.result import MetricsError
from model.probe.run_counts import NO_K, reported_counts
from tests.model.metrics import log_files as lf
from tests.model.metrics.engine_files import iid_steps

C, D = [6, 10, 12, 12], [8, 6, 4, 2]
HISTS = [iid_steps(a, 4, 60) for a in [0.6, 0.7, 0.8, 0.75, 0.65, 0.72]]


def _write(tmp_path: Path, name: str, lines: list[str] | str) -> str:
    path = tmp_path / name
    path.write_text(lines if isinstance(lines, str) else "\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _read(paths: list[str], **kw: object) -> list:
    return read_sources(paths, recorded=reported_counts, **kw)  # type: ignore[arg-type]


def test_not_a_run_file_is_left_to_the_metrics_readers(tmp_path: Path) -> None:
    assert reported_counts(_write(tmp_path, "r.jsonl", [lf.aiperf_record(C, 0)])) is None
    assert reported_counts(tmp_path / "missing.run.jsonl") is None
    [s] = _read([_write(tmp_path, "profile_export.jsonl", [lf.aiperf_record(C, 0), lf.aiperf_record(D, 1)])])
    assert s.engine == "aiperf"


def test_specledger_probe_run_file_gives_the_servers_own_counts_per_class(tmp_path: Path) -> None:
    text = lf.probe_run([("fast", "code", C), ("baseline", "code", [1, 0, 0, 0]), ("fast", "code", D),
                         ("fast", "prose", [30, 10, 0, 0])])
    sources = {s.task_class: s for s in _read([_write(tmp_path, "probe.run.jsonl", text)])}
    assert set(sources) == {"code", "prose"} and "probe run file" in sources["code"].format
    code = sources["code"].counts  # 0*6 + 10 + 24 + 36 = 70 and 16 + 6 + 8 + 6 = 20 accepted of 40 + 20 steps
    assert code.draft_acceptance_rate == pytest.approx(90 / 180) and code.mean_acceptance_length == pytest.approx(2.5)
    assert code.alpha == pytest.approx(90 / 136)
    assert sources["prose"].counts.alpha == pytest.approx(10 / (10 + 40))
    assert sources["code"].kind == "probe-run" and len(sources["code"].requests) == 2


def test_a_probe_run_files_k_line_is_read_and_a_bad_one_named(tmp_path: Path) -> None:
    text = lf.probe_run([("fast", "code", C)]).replace('"num_spec_tokens": 3', '"num_spec_tokens": null')
    old = _read([_write(tmp_path, "old.run.jsonl", text)])
    assert missing_k(old) and NO_K in missing_k_files(old)
    [s] = _read([_write(tmp_path, "new.run.jsonl", text + '{"kind": "specledger-probe-k", "k": 3, "k_source": "timing"}\n')])
    assert s.counts.k == 3 and any("K = 3 as the probe recorded it (timing)" in n for n in s.notes)
    with pytest.raises(MetricsError, match=r"bad\.run\.jsonl: its K line: k: 'three' is not a K"):
        _read([_write(tmp_path, "bad.run.jsonl", text + '{"kind": "specledger-probe-k", "k": "three"}\n')])


def test_a_probe_run_files_sla_and_load_lines_are_not_read_as_requests(tmp_path: Path) -> None:
    # the probe appends these beside the requests (model/probe/run_file.py: record_sla, a load level's keeping)
    text = (lf.probe_run([("fast", "code", C)])
            + '{"kind": "specledger-probe-load-keeping", "concurrency": 4, "sent": 3, "completed": 3, "throttled": 0}\n'
            + '{"kind": "specledger-probe-sla", "threshold_tokens_per_s": 80.0, "promised_share": 0.99, '
              '"verdict": "breached", "requests": 1, "below": [{"request": "fast code #1", "tokens_per_s": 50.0}]}\n'
            + '{"kind": "specledger-probe-k", "k": 3, "k_source": "server"}\n')
    [s] = _read([_write(tmp_path, "sla.run.jsonl", text)])
    assert s.task_class == "code" and s.counts.k == 3 and len(s.requests) == 1


def test_a_damaged_run_file_is_one_line_naming_it(tmp_path: Path) -> None:
    text = lf.probe_run([("fast", "code", C)]) + "{broken\n"
    with pytest.raises(MetricsError, match=r"cut\.run\.jsonl, line 3"):
        _read([_write(tmp_path, "cut.run.jsonl", text)])


def test_a_run_whose_server_counted_nothing_is_said_to_be_one(tmp_path: Path) -> None:
    text = lf.probe_run([("baseline", "code", [1, 0, 0, 0])])
    text += json.dumps({"label": "fast code #1", "role": "fast", "task_class": "code", "prompt_index": 0, "context": 0,
                        "repeat": 0, "max_tokens": 16, "events": [], "reported": {}}) + "\n"
    with pytest.raises(MetricsError, match=r"none of its 1 request to the probed tier carries the server's own"):
        _read([_write(tmp_path, "timed.run.jsonl", text)])


def test_a_llamacpp_probe_run_pins_each_responses_steps_from_its_completion_tokens(tmp_path: Path) -> None:
    # max_tokens 16, K = 4: the prompt pass emits token 1; steps 4/4 (5 tokens), 1/4 (2), 4/4 (5), then 3 left so
    # the server drafts 2 and takes both (3): 16 tokens, 14 drafted, 11 accepted, 4 steps. 16 - 1 - 11 = 4 =
    # ceil(14 / 4): E = 1 + 11 / 4 = 3.75 (draft tokens / K gave 3.5 steps and E 4.14)
    path = _write(tmp_path, "ll.run.jsonl", lf.probe_run_llamacpp([("code", 16, 14, 11, "length")], k=4))
    [s] = _read([path])
    assert s.counts.steps == 4 and s.counts.mean_acceptance_length == pytest.approx(3.75)
    assert any("verify steps of 1 of 1 llama.cpp responses" in n for n in s.notes)
    assert any(n.startswith("2 of 16 draft slots were never drafted") for n in s.to_dict()["notes"])
    # a response that stopped (an end token may end it inside a step) is not pinned: draft tokens / K for the class
    text = lf.probe_run_llamacpp([("code", 16, 14, 11, "length"), ("code", 10, 8, 5, "stop")], k=4)
    [s] = _read([_write(tmp_path, "mixed.run.jsonl", text)])
    assert s.counts.steps == pytest.approx(22 / 4) and any("the others' not" in n for n in s.notes)


# K = 4, 16 tokens (completion tokens, draft tokens, accepted), the prompt pass's token first. Pinned, 16 - 1 -
# accepted = ceil(drafted / 4): 4/4 4/4 1/4 then 3 of room, 2/2 (14, 11); 4/4 4/4 3/4 1/1 (13, 11); 4/4 4/4 4/4
# (12, 12). Not pinned: 4/4 4/4 3/4, then one token of room and a plain step (12, 11): 4 steps against ceil(12 / 4)
# = 3. Where a draft was cut short, the pinned steps exceed drafted / 4, the class's
UNPINNED = ([("code", 16, 14, 11, "length")] * 8 + [("code", 16, 13, 11, "length")] * 6
            + [("code", 16, 12, 12, "length")] * 4 + [("code", 16, 12, 11, "length")] * 2)


def test_the_interval_on_e_holds_the_e_the_class_applies(tmp_path: Path) -> None:
    """A llama.cpp run whose responses are not all pinned reads the class's E as draft tokens / K steps; its interval
    on E must be about that E. A real llama.cpp run (gemma-3-270m, K = 4, 64 tokens; 30 of 32 prose responses pinned)
    gave E 4.592 with an interval of 4.41-4.59, built on the pinned steps, and `import-metrics --apply` refused the
    workbook it made ('must hold the length itself')."""
    [s] = _read([_write(tmp_path, "ll.run.jsonl", lf.probe_run_llamacpp(UNPINNED, k=4))])
    assert any("verify steps of 18 of 20" in n for n in s.notes)  # two not pinned: the class's steps are drafted / K
    length, ends = s.acceptance_length, s.mean_acceptance_length_interval
    assert length is not None and abs(length - (1 + 224 / (262 / 4))) < 1e-9
    assert ends is not None and ends[0] <= length <= ends[1], (ends, length)


def _probe_line(i: int, hist: list[int], **extra: object) -> str:
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    spec = {"num_spec_steps": steps, "num_draft_tokens": steps * 4, "num_accepted_draft_tokens": accepted,
            "acceptance_histogram": hist, "num_spec_tokens": 4}
    return json.dumps({"label": f"fast code #{i}", "role": "fast", "task_class": "code", "context": 0, "repeat": 0,
                       "max_tokens": 128, "events": [], "reported": {"metrics": {"speculative_decoding": spec}},
                       "error": None, "retries": 0, **extra})


def test_probe_run_file_by_prompt_key_by_index_and_by_request_in_rounds(tmp_path: Path) -> None:
    head = json.dumps({"kind": "specledger-probe-run", "version": 1})
    hists = HISTS + [HISTS[1]]
    keyed = [_probe_line(i, h, prompt_index=i, prompt_key=f"k{i if i < 6 else 1}") for i, h in enumerate(hists)]
    [s] = _read([_write(tmp_path, "a.run.jsonl", [head, *keyed])])
    assert s.interval_unit == UNIT_PROMPT and s.acceptance.requests == 6
    # an older file: the prompt's index in its one plan (repeats share it)
    old = [_probe_line(i, h, prompt_index=i % 6) for i, h in enumerate(hists)]
    [o] = _read([_write(tmp_path, "b.run.jsonl", [head, *old])])
    assert o.interval_unit == UNIT_PROMPT and o.acceptance.requests == 6
    # an older --until-decided file: each round numbers from 0, so the index names no prompt
    rounds = [_probe_line(i, h, prompt_index=0, round=i + 1) for i, h in enumerate(hists)]
    [r] = _read([_write(tmp_path, "c.run.jsonl", [head, *rounds])])
    assert r.interval_unit == UNIT_REQUEST and r.acceptance.requests == 7


def _big_run(tmp_path: Path, records: int) -> str:
    spec = {"num_spec_steps": 10, "num_draft_tokens": 40, "num_accepted_draft_tokens": 17,
            "acceptance_histogram": [2, 3, 2, 2, 1], "num_spec_tokens": 4}
    line = {"label": "", "role": "fast", "task_class": "code", "prompt_index": 0, "context": 0, "repeat": 0,
            "max_tokens": 64, "events": [{"t": 0.01 * j, "text": "tok ", "n_tokens": 1} for j in range(30)],
            "reported": {"metrics": {"speculative_decoding": spec}}}
    lines = [json.dumps({"kind": "specledger-probe-run", "version": 1})]
    lines += [json.dumps(dict(line, label=f"fast code #{i}", prompt_index=i % 50)) for i in range(records)]
    return _write(tmp_path, "big.run.jsonl", lines)


def test_a_large_run_file_is_read_as_long_work_with_progress_and_cancel(tmp_path: Path) -> None:
    from model.metrics.read import read_sources_steps
    from model.probe.run_counts import reported_counts_steps

    path = _big_run(tmp_path, 3000)  # about 4 MB
    size = Path(path).stat().st_size
    steps = read_sources_steps([path], recorded=reported_counts_steps)
    seen = []
    while True:
        try:
            seen.append(next(steps))
        except StopIteration as stop:
            [s] = stop.value
            break
    within = [p[2] for p in seen if p[0] == 0 and 0 < p[2] < size]
    assert len(within) >= 3 and within == sorted(within)  # bytes read, about every megabyte, before the file ends
    assert len(s.requests) == 3000 and s.counts.steps == 30_000
    steps = read_sources_steps([path], recorded=reported_counts_steps)
    next(steps)
    steps.close()  # a cancel: the window's worker closes the generator, the run file with it


def test_a_record_whose_text_holds_a_line_separator_reads_back(tmp_path: Path) -> None:
    # the run file is JSON a line (ensure_ascii off): U+2028, U+0085 inside a string are no line breaks
    from model.probe.events import RequestRecord, StreamEvent
    from model.probe.run_file import RunWriter, read_run

    path = tmp_path / "sep.run.jsonl"
    record = RequestRecord("fast code #0", "fast", "code", 0, 0, 0, 16,
                           events=[StreamEvent(0.1, "a\u2028b\x85c", 1)])
    with RunWriter(path, {"tier": "Fast"}) as writer:
        writer.add(record)
    _, [back] = read_run(path)
    assert back.output_text == "a\u2028b\x85c"
