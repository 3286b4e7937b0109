"""The probe against a hostile endpoint: it never hangs, never fills memory, never writes the
key down, and refuses numbers no server can mean. Each case talks to tests/fuzz/hostile_server.py on
127.0.0.1, bounded in time (asserted) and memory (the process's peak RSS may not grow past RSS_MB)."""
from __future__ import annotations

import json
import resource
import threading
import time
from pathlib import Path

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.client import Limits
from model.probe.endpoint import ApiKey, Endpoint
from model.probe.events import FAST
from model.probe.plan import ProbeSettings
from model.probe.prompt_file import ProbePrompt
from model.probe.run import run_probe
from model.probe.run_file import read_run
from tests.fuzz.hostile_server import HostileServer

RSS_MB = 300  # what one case may add to the process's peak memory (the caps are 64 MB a body)
PROMPT = [ProbePrompt("code", ({"role": "user", "content": "def f():"},), 1)]
# generous read timeouts: the wall-clock deadline, not a timeout, must be what ends these cases
SLOW = Limits(connect_s=2.0, first_byte_s=60.0, gap_s=60.0, total_s=2.0, retries=0, max_retry_wait_s=0.1)


@pytest.fixture(scope="module")
def server():
    with HostileServer() as s:
        yield s


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(server, model: str, tmp_path: Path, limits: Limits = SLOW, key: ApiKey | None = None, cancel=None):
    settings = ProbeSettings(fast=Endpoint(server.base_url, model), prompts=PROMPT, max_tokens=8)
    before, start = _peak_mb(), time.monotonic()
    run = run_to_end(run_probe(settings, {FAST: key}, tmp_path / "run.jsonl", cancel=cancel, limits=limits))
    assert _peak_mb() - before < RSS_MB
    return run, time.monotonic() - start


@pytest.mark.parametrize("model", ["drip-body", "comments", "drip-headers"])
def test_a_stream_that_never_ends_stops_at_the_requests_deadline(server, tmp_path, model):
    run, seconds = _run(server, model, tmp_path)
    assert run.error is not None and "not finished within its deadline" in run.error and "\n" not in run.error
    assert seconds < SLOW.total_s + 2.0


def test_the_runs_own_deadline_holds_too(server, tmp_path):
    limits = Limits(connect_s=2.0, first_byte_s=60.0, gap_s=60.0, total_s=60.0, run_s=1.0, retries=0)
    run, seconds = _run(server, "comments", tmp_path, limits)
    assert run.error and "deadline" in run.error and seconds < 3.0


@pytest.mark.parametrize("model", ["silent", "no-answer", "drip-headers", "comments"])
def test_cancel_closes_the_connection_within_a_second_in_every_state(server, tmp_path, model):
    cancel = threading.Event()
    limits = Limits(connect_s=2.0, first_byte_s=60.0, gap_s=60.0, total_s=60.0, retries=0)
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    try:
        run, seconds = _run(server, model, tmp_path, limits, cancel=cancel)
    finally:
        timer.join()
    assert run.cancelled and run.error is None
    assert seconds < 0.3 + 1.0


@pytest.mark.parametrize(("model", "words"), [
    ("error-endless", "400"), ("endless-line", "passed 1024 KB without an end"),
    ("gzip-bomb", "passed 1 MB (decompressed)")])  # 1 MB and 16 KB a token asked (guard.body_cap)
def test_bodies_that_would_fill_memory_end_in_one_line(server, tmp_path, model, words):
    limits = Limits(connect_s=2.0, first_byte_s=20.0, gap_s=20.0, total_s=20.0, retries=0)
    run, seconds = _run(server, model, tmp_path, limits)
    assert run.error and words in run.error and "\n" not in run.error and len(run.error) < 400
    assert seconds < 15.0


def test_a_key_the_server_echoes_is_written_nowhere(server, tmp_path):
    secret = "sk-live-0123456789abcdefSECRET"
    run, _ = _run(server, "echo-key", tmp_path, key=ApiKey(secret))
    assert run.error is None and run.records
    report = analyse(run.records, run.header)
    (tmp_path / "out.json").write_text(report.to_json())
    for path in (tmp_path / "run.jsonl", tmp_path / "out.json"):
        assert secret not in path.read_text(), path.name
    assert "[redacted]" in (tmp_path / "run.jsonl").read_text()
    assert secret not in repr(run.records)


@pytest.mark.parametrize(("model", "field"), [
    ("usage-huge", "usage.completion_tokens"), ("usage-negative", "usage.completion_tokens"),
    ("usage-nan", "usage.completion_tokens")])
def test_absurd_usage_is_refused_by_name_and_the_run_stands(server, tmp_path, model, field):
    run, _ = _run(server, model, tmp_path)
    assert run.error is None and len(run.records) == 1
    report = analyse(run.records, run.header)
    assert any(field in f for f in report.failed), report.failed
    text = report.to_json()  # writes without NaN: the run is not lost
    speeds = [s["decode_tokens_per_s"] for c in json.loads(text)["classes"] for s in c["by_context"]]
    assert all(v is None or 0 <= v < 1e6 for v in speeds)
    _, saved = read_run(tmp_path / "run.jsonl")
    assert saved[0].reported["refused_fields"] == run.records[0].reported["refused_fields"]


def test_nan_in_reported_metrics_is_refused_by_name(server, tmp_path):
    run, _ = _run(server, "timings-nan", tmp_path)
    assert run.error is None
    report = analyse(run.records, run.header)
    assert any("timings.draft_n" in f for f in report.failed), report.failed
    report.to_json()


@pytest.mark.parametrize(("model", "words"), [
    ("spec-hist-contradicts", "histogram"), ("spec-k-100", "K = 100"), ("spec-accepted-over", "more than were drafted")])
def test_impossible_reported_fields_are_refused_by_name_and_not_used(server, tmp_path, model, words):
    """The server's speculation fields go through the importer's checks; an impossible request's fields give no
    alpha, no K and no draft acceptance rate (the timing, where there is one, stands for it)."""
    run, _ = _run(server, model, tmp_path)
    assert run.error is None and len(run.records) == 1
    report = analyse(run.records, run.header)
    assert any(words in f and "fast code #1" in f for f in report.failed), report.failed
    [c] = report.classes
    assert c.alpha_reported is None and c.reported_draft_acceptance_rate is None and c.alpha_source != "reported"
    assert report.k_estimate != 100
    report.to_json()


# --- arguments: each refused in one line naming what is wrong, before any request -------------------

def _main(capsys, *argv: str) -> tuple[int, str]:
    import main
    try:
        code = main.main(list(argv))
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def _prompts(tmp_path: Path, text: str = '{"task_class": "code", "prompt": "def f():"}') -> str:
    path = tmp_path / "p.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("extra", "words"), [
    (["--repeats", "1000000000"], "--repeats must be from 1 to 1000"),
    (["--base-url", "http://127.0.0.1:9/" + "a" * 100_000], "at most 2048"),
    (["--base-url", "http://127.0.0.1:9/v1\nspecledger: fake line"], "control character (U+000A)"),
    (["--extra-body", '{"a": NaN}'], "NaN is not a JSON number"),
    (["--extra-body", '{"a": -Infinity}'], "-Infinity is not a JSON number")])
def test_probe_arguments_are_bounded(capsys, tmp_path, extra, words):
    argv = ["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", _prompts(tmp_path), "--yes"]
    code, err = _main(capsys, *(argv + extra))
    assert code != 0 and words in err and err.count("\n") == 1 and len(err) < 400, err


def test_a_lone_surrogate_in_a_prompt_names_the_file_and_line(capsys, tmp_path):
    path = _prompts(tmp_path, '{"task_class": "code", "prompt": "ok"}\n{"task_class": "code", "prompt": "x\\ud800y"}')
    code, err = _main(capsys, "probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", path, "--yes")
    assert code != 0 and "p.jsonl, line 2" in err and "lone surrogate (U+D800" in err and err.count("\n") == 1


@pytest.mark.parametrize("line", [
    '{"label": "r", "role": "fast", "task_class": "c", "max_tokens": 8, "events": ["t"]}',
    '{"label": "r", "role": "fast", "task_class": "c", "max_tokens": 8, "events": [{"t": "soon"}]}',
    '{"label": "r", "role": "fast", "task_class": "c", "max_tokens": "8"}',
    '{"label": "r", "role": "fast", "max_tokens": 8}',
    '{"label": "r", "role": "fast", "task_class": "c", "max_tokens": 8, "usage": [1]}',
    '{"label": "r", "role": "fast", "task_class": "c", "max_tokens": 8, "stalls": [[1]]}',
    '["t"]'])
def test_a_damaged_run_file_names_its_line_and_field(capsys, tmp_path, line):
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"kind": "specledger-probe-run", "version": 1}) + "\n" + line + "\n")
    code, err = _main(capsys, "probe", "--from-run", str(path))
    assert code != 0 and "run.jsonl, line 2" in err and err.count("\n") == 1, err
    assert "string indices" not in err and "'t'" not in err.split("line 2")[1][:6]


@pytest.mark.parametrize(("extra", "words"), [
    (["--k", "65"], "--k 65: expected 1 to 64"), (["--step-ms", "inf"], "--step-ms inf"),
    (["--step-ms", "nan"], "--step-ms nan"), (["--step-ms", "1e308"], "--step-ms 1e+308"),
    (["--chunk-tokens", "12345678901234567890"], "--chunk-tokens 12345678901234567890: expected 1 to 128")])
def test_serve_demo_arguments_are_bounded(capsys, extra, words):
    code, err = _main(capsys, "serve-demo", "--port", "0", *extra)
    assert code != 0 and words in err and err.count("\n") == 1, err
