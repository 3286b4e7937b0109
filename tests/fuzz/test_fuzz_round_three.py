"""Hostile input, round three: arguments of the surfaces added last (until decided, confidence, ports), each
refused in one line before any request, and a confidence at the top of its range carried through a whole run."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.fuzz.hostile_server import HostileServer

DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a case that sent a request would say "could not connect"


def _main(capsys, *argv: str) -> tuple[int, str]:
    import main
    try:
        code = main.main(list(argv))
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


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
