"""`specledger serve-demo` as a user starts it: it says where it listens (127.0.0.1), answers, and stops on Ctrl+C."""
from __future__ import annotations

import re
import signal
import subprocess
import sys

import httpx
import pytest

from tests.paths import ROOT

pytest.importorskip("uvicorn")


def test_serve_demo_listens_on_loopback_answers_and_stops_on_ctrl_c():
    proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "serve-demo", "--port", "0", "--step-ms", "1"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        url = None
        for _ in range(50):
            line = proc.stderr.readline()
            m = re.search(r"at (http://127\.0\.0\.1:\d+/v1)", line)
            if m:
                url = m.group(1)
                break
        assert url, "serve-demo did not say where it listens"
        models = httpx.get(f"{url}/models", timeout=10).json()
        assert {m["id"] for m in models["data"]} == {"demo-fast", "demo-standard"}
        answer = httpx.post(f"{url}/chat/completions", timeout=30, json={
            "model": "demo-fast", "max_tokens": 8, "messages": [{"role": "user", "content": "def f():"}]}).json()
        assert answer["metrics"]["speculative_decoding"]["num_spec_tokens"] == 4
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        proc.stderr.close()


@pytest.mark.parametrize(("flag", "value"), [("--downgrade-share", "1.5"), ("--slow-share", "-0.1"),
                                             ("--fast-tokens-per-s", "0"), ("--flush-ms", "nan")])
def test_the_vendor_styles_refuse_impossible_paces_in_one_line(capsys, flag: str, value: str) -> None:
    from main import main

    assert main(["serve-demo", "--style", "anthropic", "--port", "0", flag, value]) != 0
    err = capsys.readouterr().err
    assert flag in err and err.count("\n") == 1, err
