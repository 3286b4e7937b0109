"""Hostile input, round three: arguments of the surfaces added last (until decided, confidence, ports), each
refused in one line before any request, and a confidence at the top of its range carried through a whole run."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.fuzz.hostile_server import HostileServer
from tests.fuzz.test_fuzz_probe import _main

DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a case that sent a request would say "could not connect"


def _prompts(tmp_path: Path, classes: tuple[str, ...] = ("code",)) -> str:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"task_class": c, "prompt": f"{c} {i}"}) + "\n"
                            for c in classes for i in range(2)), encoding="utf-8")
    return str(path)


def _one_line(code: int, err: str, words: str) -> None:
    assert code != 0 and words in err and err.count("\n") == 1 and len(err) < 500, err
    assert "could not connect" not in err and "Traceback" not in err and "unexpected error" not in err


@pytest.mark.parametrize("port", ["99999", "-1", "65536", "0", "8a"])
def test_a_base_url_with_an_impossible_port_is_one_line(capsys, tmp_path, port):
    code, err = _main(capsys, "probe", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m",
                      "--prompts", _prompts(tmp_path), "--yes")
    _one_line(code, err, "the port must be a whole number from 1 to 65535")


@pytest.mark.parametrize("value", ["0.9999999999999999", "0.99995", "100%", "1"])
def test_a_confidence_past_what_a_run_can_compute_is_refused_before_sending(capsys, tmp_path, value):
    code, err = _main(capsys, "probe", "--base-url", DEAD, "--model", "m", "--prompts", _prompts(tmp_path), "--yes",
                      "--confidence", value)
    assert code == 2 and "--confidence" in err and "0.9999" in err and "could not connect" not in err, err


def test_the_highest_confidence_accepted_carries_through_a_run_and_its_json(capsys, tmp_path):
    out = tmp_path / "r.json"
    with HostileServer() as server:
        code, err = _main(capsys, "probe", "--base-url", server.base_url, "--model", "ok", "--prompts",
                          _prompts(tmp_path), "--yes", "--confidence", "99.99%", "--max-tokens", "8", "--json", str(out))
    assert code == 0, err
    assert json.loads(out.read_text())["confidence"] == pytest.approx(0.9999)


@pytest.mark.parametrize(("extra", "words"), [
    (["--concurrency", "1,4,16"], "--concurrency 1,4,16 would be ignored"),
    (["--contexts", "0,8K"], "--contexts 0,8K names more"),
    (["--from-run", "run.jsonl"], "--from-run re-analyses a run"),
    (["--half-width", "2"], "--half-width 2 is in tokens per step of E"),
])
def test_until_decided_refuses_what_it_would_ignore(capsys, tmp_path, extra, words):
    start = time.monotonic()
    code, err = _main(capsys, "probe", "--base-url", DEAD, "--model", "m", "--prompts", _prompts(tmp_path, ("code", "prose")),
                      "--yes", "--until-decided", *extra)
    _one_line(code, err, words)
    assert time.monotonic() - start < 10.0


def test_a_half_width_only_e_can_mean_names_the_alpha_classes(capsys, tmp_path):
    code, err = _main(capsys, "probe", "--base-url", DEAD, "--model", "m", "--prompts", _prompts(tmp_path, ("code", "prose")),
                      "--yes", "--until-decided", "--half-width", "2")
    _one_line(code, err, "code, prose are judged on alpha")


# --- the probe against a server whose bytes are no events, or far too many -----------------------------------

from model.common.cancel import run_to_end  # noqa: E402
from model.probe.client import Limits  # noqa: E402
from model.probe.endpoint import Endpoint  # noqa: E402
from model.probe.events import FAST  # noqa: E402
from model.probe.plan import ProbeSettings  # noqa: E402
from model.probe.prompt_file import ProbePrompt  # noqa: E402
from model.probe.run import run_probe  # noqa: E402
from tests.fuzz.test_fuzz_probe import RSS_MB, _peak_mb  # noqa: E402

PROMPT = [ProbePrompt("code", ({"role": "user", "content": "def f():"},), 1)]


@pytest.fixture(scope="module")
def server():
    with HostileServer() as s:
        yield s


def _probe(server, model: str, tmp_path: Path, limits: Limits, max_tokens: int = 8):
    settings = ProbeSettings(fast=Endpoint(server.base_url, model), prompts=PROMPT, max_tokens=max_tokens)
    before, start = _peak_mb(), time.monotonic()
    run = run_to_end(run_probe(settings, {FAST: None}, tmp_path / "run.jsonl", limits=limits))
    assert _peak_mb() - before < RSS_MB
    return run, time.monotonic() - start


# the request's deadline far off: the event limits must be what ends these
EVENTS = Limits(connect_s=2.0, first_byte_s=1.0, gap_s=0.6, total_s=60.0, retries=0)


@pytest.mark.parametrize(("model", "words"), [
    ("comments", "no event within 1 s of the request"), ("drip-body", "no event within 1 s of the request"),
    ("event-then-comments", "no next event within 0.6 s after 1 event"),
    ("event-then-drip", "no next event within 0.6 s after 1 event")])
def test_bytes_that_are_no_events_count_against_the_event_limits(server, tmp_path, model, words):
    run, seconds = _probe(server, model, tmp_path, EVENTS)
    assert run.error is not None and words in run.error and "\n" not in run.error, run.error
    assert seconds < 5.0


def test_far_more_events_than_asked_stop_the_request_in_bounded_memory(server, tmp_path):
    run, seconds = _probe(server, "flood", tmp_path, Limits(connect_s=2.0, first_byte_s=5.0, gap_s=5.0, total_s=30.0,
                                                            retries=0), max_tokens=16)
    assert run.error and "more than 128 events for at most 16 tokens asked" in run.error and "\n" not in run.error
    assert seconds < 10.0
    assert (tmp_path / "run.jsonl").stat().st_size < 1024 * 1024


def test_retry_after_nan_waits_the_backoff_and_names_the_429(server, tmp_path):
    limits = Limits(connect_s=2.0, first_byte_s=5.0, gap_s=5.0, total_s=60.0, retries=2, max_retry_wait_s=0.5)
    run, seconds = _probe(server, "retry-nan", tmp_path, limits)
    assert run.error and "429" in run.error and "\n" not in run.error, run.error
    assert seconds < 5.0


def test_max_cost_counts_what_the_server_bills_and_stops_at_the_cap(server, tmp_path):
    from model.probe.plan import Prices
    from model.probe.until_decided import DecideSettings, run_until_decided

    prompts = [ProbePrompt("code", ({"role": "user", "content": f"def f{i}():"},), i + 1) for i in range(10)]
    settings = ProbeSettings(fast=Endpoint(server.base_url, "bills-more"), prompts=prompts, max_tokens=8)
    settings.fast_prices = Prices(1.0, 1.0)  # $1 per 1M tokens: a round of 5 x 8 tokens plans far under the cap
    run = run_to_end(run_until_decided(settings, {FAST: None}, {"code": 0.5}, DecideSettings(0.95, 10, max_cost=0.05),
                                       limits=EVENTS))
    # the first answer bills 100,000 tokens ($0.10): the run stops there, not after the round ($0.50)
    assert len(run.records) == 1 and run.classes[0].stopped == "max cost"
    assert run.cost == pytest.approx(0.1, rel=0.01)
    assert any("reports 100,000 output tokens where at most 8 were asked" in n for n in run.cost_notes)
    assert any("against --max-cost 0.05" in n for n in run.cost_notes)


def test_from_run_prints_no_escape_sequence_from_the_run_file(capsys, tmp_path):
    """Names, labels and notes from a run file reach the terminal through one sanitiser: no ESC, no bidi override,
    no fake line."""
    evil = "code\x1b[31mRED\x1b]0;title\x07\u202e\rspecledger: fake"
    header = {"kind": "specledger-probe-run", "version": 1, "fast_name": "Fast\x1b[2J"}
    record = {"label": f"fast {evil} #1", "role": "fast", "task_class": evil, "max_tokens": 8, "prompt_index": 0,
              "context": 0, "repeat": 0, "events": [{"t": 0.1, "text": "x", "n_tokens": 1}], "t_done": 0.2,
              "error": f"boom {evil}"}
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    import main
    code = main.main(["probe", "--from-run", str(path)])
    out, err = capsys.readouterr()
    for text in (out, err):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "\r" not in text
    assert code in (0, 1) and "\\x1b" in out + err


@pytest.mark.parametrize("model", ["usage-bigint", "deep-json"])
def test_a_huge_integer_or_deep_json_names_the_request(server, tmp_path, model):
    run, seconds = _probe(server, model, tmp_path, EVENTS)
    problems = [run.error] if run.error else []
    if not run.error:
        from model.probe.analysis import analyse
        problems = analyse(run.records, run.header).failed
    assert problems and all("fast code #1" in p and "\n" not in p for p in problems), (run.error, problems)
    assert seconds < 10.0


# --- generated: ranges, engine figures, Ray addresses, file names, terminal text, each within the bounds ----------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.fuzz.bounds import outcome  # noqa: E402

_FAST = dict(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
_END = st.one_of(st.integers(0, 100).map(str), st.floats(0, 1).map(lambda x: f"{x:.2f}"),
                 st.floats(0, 100).map(lambda x: f"{x:.1f}%"), st.sampled_from(["", "nan", "-1", "1e400", "٣", "x"]))


@settings(**_FAST)
@given(alpha=_END, low=_END, high=_END, sep=st.sampled_from(["–", "-", " to ", "—", "..", ""]),
       decimal=st.sampled_from([".", ","]))
def test_a_typed_range_is_read_in_one_unit_or_refused(alpha, low, high, sep, decimal):
    """Whatever is typed: a range holding its alpha, both ends in 0..1 and read in the unit the text says, or one
    line refusing it; never a low end of 0.74% from '0.74–86%'."""
    from model.workbook.alpha_text import parse_alpha_text
    from model.workbook.rows import TaskClass
    from model.workbook.validation import ValidationError

    text = f"{alpha} ({low}{sep}{high})"
    got = outcome(lambda: parse_alpha_text(TaskClass, text, "code", decimal=decimal), ValidationError)
    if isinstance(got, ValidationError) or got[1] in (None, ()):
        return
    a, (lo, hi) = got
    assert 0 <= lo <= a <= hi <= 1
    if high.endswith("%") and not low.endswith("%") and ("." in low or decimal in low):
        # a share beside a percent ('0.74–86%') was refused above; a low end kept here was written as a percent
        assert float(low.replace(decimal, ".")) > 1


@settings(**_FAST)
@given(steps=st.integers(1, 10_000), k=st.integers(1, 8), data=st.data())
def test_engine_figures_that_contradict_are_refused_or_agree(steps, k, data, tmp_path_factory):
    """A vLLM offline summary with random totals and per-position rates: read only where its figures agree
    (rates against accepted tokens within their rounding, draft tokens within drafts x K), else one line."""
    from model.metrics.read import read_sources
    from model.metrics.result import MetricsError

    accepted = data.draw(st.integers(0, steps * k))
    rates = data.draw(st.lists(st.floats(0, 1).map(lambda x: round(x, 2)), min_size=0, max_size=k))
    lines = ["-" * 50, f"num_drafts: {steps}", f"num_draft_tokens: {steps * k}", f"num_accepted_tokens: {accepted}",
             f"mean acceptance length: {1 + accepted / steps:.2f}", "-" * 50]
    lines += [f"acceptance at token {i}: {r:.2f}" for i, r in enumerate(rates)]
    path = tmp_path_factory.mktemp("m") / "offline.txt"
    path.write_text("\n".join(lines) + "\n")
    got = outcome(lambda: read_sources([path]), (MetricsError, ValueError))
    if isinstance(got, BaseException):
        return
    [s] = got
    c = s.counts
    assert c.k == k  # from the counts, whatever the block's length
    if c.per_position_accepted:
        assert abs(sum(c.per_position_accepted) - accepted) <= 0.006 * steps * k + 1.0


@settings(**_FAST)
@given(address=st.one_of(st.text(max_size=40), st.text(min_size=300, max_size=6000),
                         st.from_regex(r"(ray://)?[a-z0-9.]{0,20}:[0-9]{0,6}", fullmatch=True)))
def test_a_ray_address_is_checked_in_one_line_before_anything_starts(address):
    from model.sampling.ray_connect import RayError, check_address

    got = outcome(lambda: check_address(address), RayError)
    if not isinstance(got, RayError):
        assert len(address) <= 300 and address.strip() and (address == "auto" or ":" in address)


@settings(**_FAST)
@given(name=st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1,
                    max_size=120))
def test_a_name_within_255_bytes_saves_and_a_longer_one_is_one_line(name, tmp_path_factory):
    from model.common.safe_files import write_text_atomic

    folder = tmp_path_factory.mktemp("n")
    if name in (".", ".."):
        return
    got = outcome(lambda: write_text_atomic(folder / name, "x", "test file"), (OSError, ValueError))
    if len(name.encode("utf-8", "surrogateescape")) <= 255:
        assert not isinstance(got, BaseException), got
        assert sorted(p.name for p in folder.iterdir()) == [name]


@settings(**_FAST)
@given(text=st.text(max_size=200))
def test_terminal_text_holds_no_control_character(text):
    from model.common.terminal import terminal_text

    shown = terminal_text(text)
    body = shown[1:] if shown.startswith("\r") else shown
    assert not any(ord(c) < 0x20 and c not in "\n\t" or 0x7F <= ord(c) <= 0x9F for c in body)
    assert not any(c in body for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@settings(**_FAST)
@given(text=st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                      st.floats(0.9, 1.0).map(lambda x: f"{x:.17f}"), st.floats(90, 100).map(lambda x: f"{x}%"),
                      st.text(max_size=12)))
def test_a_confidence_accepted_is_one_every_interval_can_use(text):
    """Validated once, in the unit the run uses: an accepted confidence has a finite two-sided quantile (the
    run's intervals, looks and verdicts all need one); anything else is one line before a request."""
    import argparse
    from statistics import NormalDist

    from commands.runner import confidence_arg

    got = outcome(lambda: confidence_arg(text), argparse.ArgumentTypeError)
    if isinstance(got, BaseException):
        return
    z = NormalDist().inv_cdf(1 - (1 - got) / 2)
    assert 0.5 <= got <= 0.9999 and 0 < z < 4
