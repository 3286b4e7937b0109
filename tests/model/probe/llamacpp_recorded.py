"""Streams recorded from a real llama.cpp `llama-server`, read back as the probe reads them.

Each recording is the response body exactly as the server sent it (`NAME.sse`: its `data:` lines, blank lines and
the closing `[DONE]`) and, beside it, `NAME.reads.json`: the seconds after the request was sent at which each
`data:` event arrived, in order. How they were made is in docs/dev/testing.md (real engines).
"""
from __future__ import annotations

import json
from pathlib import Path

from model.probe.apis.openai_chat import OpenAIChat
from model.probe.events import FAST, RequestRecord

RECORDED = Path(__file__).resolve().parents[2] / "data" / "llamacpp_server"


def payloads(name: str) -> list[str]:
    """The `data:` payloads of one recorded body, in order."""
    text = (RECORDED / f"{name}.sse").read_text(encoding="utf-8")
    return [line[len("data:"):].strip() for line in text.splitlines() if line.startswith("data:")]


def recorded_request(name: str, max_tokens: int, task_class: str = "code", index: int = 0) -> RequestRecord:
    """One recorded stream as the probe's client records it (its chat dialect reading every event)."""
    times = json.loads((RECORDED / f"{name}.reads.json").read_text(encoding="utf-8"))
    record = RequestRecord(f"fast {task_class} #{index}", FAST, task_class, index, 0, 0, max_tokens,
                           prompt_key=f"{task_class}-{index}", clock="kernel", stalls=[])
    dialect = OpenAIChat()
    events = payloads(name)
    assert len(times) == len(events), (name, len(times), len(events))
    for t, data in zip(times, events):
        if data == "[DONE]":
            record.t_done = t
            break
        if record.t_first_payload is None:
            record.t_first_payload = t
        dialect.read(record, json.loads(data), t)
    return record
