"""Opt-in: `specledger probe` against a real llama.cpp `llama-server` on 127.0.0.1, speculating with the tiny pair
tests/llama_tiny.py writes. Skipped unless a `llama-server` binary is found (SPECLEDGER_LLAMA_SERVER, else PATH);
docs/dev/testing.md#a-real-llamacpp-server says how to build one. Bounded: 16 requests of 32 tokens, 120 s.

Checks what no recording can: the server's counts, as the probe reads them, against the server's own log of the
same requests, and that nothing of a request that stopped is read as a run past its text."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.llama_tiny import write_pair
from tests.paths import ROOT

BINARY = os.environ.get("SPECLEDGER_LLAMA_SERVER") or shutil.which("llama-server")
pytestmark = pytest.mark.skipif(not BINARY, reason="no llama-server (set SPECLEDGER_LLAMA_SERVER or put it on PATH)")
K = 4
# the prompt alone is the model's input, so its last character picks the answer (the pair's next token follows
# the current token only)
TEMPLATE = "{% for m in messages %}{{ m['content'] }}{% endfor %}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(models: tuple[Path, Path], log: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    target, draft = models
    args = [BINARY, "-m", str(target), "-md", str(draft), "--spec-type", "draft-simple", "--spec-draft-n-max", str(K),
            "--host", "127.0.0.1", "--port", str(port), "-c", "1024", "-np", "1", "-t", "1", "--no-webui",
            "--chat-template", TEMPLATE]
    proc = subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "LLAMA_TRACE": "1"})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    pytest.fail(f"llama-server did not come up: {log.read_text()[-2000:]}")


def test_the_probe_reads_a_real_llama_server_as_its_log_says(tmp_path: Path) -> None:
    models = write_pair(tmp_path / "models", 0.7)
    prompts = tmp_path / "prompts.jsonl"
    ends = "eFq3xZ7;"  # eight answers: some reach the end-of-text token within the budget, some do not
    prompts.write_text("".join(json.dumps({"task_class": "code" if i % 2 else "prose", "prompt": f"prompt {c}"}) + "\n"
                               for i, c in enumerate(ends)), encoding="utf-8")
    log = tmp_path / "server.log"
    proc, base = _serve(models, log)
    try:
        out = tmp_path / "probe.json"
        done = subprocess.run([sys.executable, str(ROOT / "main.py"), "probe", "--base-url", base + "/v1", "--model",
                               "tiny", "--prompts", str(prompts), "--repeats", "2", "--max-tokens", "32",
                               "--json", str(out), "--yes"], capture_output=True, text=True, timeout=120,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr[-2000:]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    report = json.loads(out.read_text(encoding="utf-8"))
    records = [json.loads(line) for line in (tmp_path / "probe.run.jsonl").read_text(encoding="utf-8").splitlines()]
    fast = [r for r in records if r.get("role") == "fast"]
    logged = re.findall(r"draft acceptance = [\d.]+ \(\s*(\d+) accepted /\s*(\d+) generated", log.read_text())
    assert len(fast) == len(logged) == 2 * len(ends)
    for r, (accepted, generated) in zip(fast, logged):
        timings = r["reported"]["timings"]
        assert (timings["draft_n_accepted"], timings["draft_n"]) == (int(accepted), int(generated)), r["label"]
        assert timings["predicted_n"] == r["usage"]["completion_tokens"]
    assert {r["finish_reason"] for r in fast} == {"stop", "length"}
    assert not any("past the end of their text" in n for n in report["notes"]), report["notes"]
    assert all(c["alpha_source"] == "reported" for c in report["classes"])
    steps = [(int(a), int(d)) for a, d in re.findall(r"accepted\s+(\d+)/\s*(\d+) draft tokens", log.read_text())]
    drafted = sum(d for _, d in steps)
    assert drafted == sum(int(g) for _, g in logged)  # every verify step logged, none else
