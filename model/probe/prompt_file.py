"""The probe's prompt file: `sample`'s format (one JSON object per line with task_class and prompt),
where a chat `messages` list may stand in for `prompt`.

Its own small reader rather than sampling's: the probe is a wing that does not import another,
and only the probe takes `messages`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model.acceptance.units import prompt_digest
from model.quality.checks import Check, CheckError, parse_check
from model.common.safe_files import read_text_limited

MAX_BYTES = 64 * 1024 * 1024


class ProbePromptError(ValueError):
    """A prompt file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class ProbePrompt:
    task_class: str
    messages: tuple[dict[str, str], ...]
    line: int
    check: Check | None = field(default=None, compare=False)  # what a good answer is (model/quality/checks.py)

    def with_filler(self, text: str) -> list[dict[str, str]]:
        """The messages with the filler document put in front of the first user message."""
        out = [dict(m) for m in self.messages]
        if text:
            first = next((m for m in out if m["role"] == "user"), out[0])
            first["content"] = text + first["content"]
        return out

    @property
    def key(self) -> str:
        """The prompt's identity by its text (role and content of each message), not its line: two lines that
        say the same are one prompt, one unit of the interval (model/probe/intervals.py). A digest, so a run
        file can carry it without the prompt."""
        return prompt_digest(json.dumps([[m["role"], m["content"]] for m in self.messages], ensure_ascii=False))

    @property
    def chars(self) -> int:
        return sum(len(m["content"]) for m in self.messages)


def _messages(value: Any, where: str) -> tuple[dict[str, str], ...]:
    if not isinstance(value, list) or not value:
        raise ProbePromptError(f"{where}: field 'messages' must be a non-empty list")
    out = []
    for i, m in enumerate(value):
        if not (isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)):
            raise ProbePromptError(f"{where}: messages[{i}] needs a string 'role' and a string 'content'")
        out.append({"role": m["role"], "content": m["content"]})
    return tuple(out)


def _refuse_surrogates(where: str, field: str, text: str) -> None:
    # JSON's \ud800 escapes decode to half a character, which no request body can carry
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ProbePromptError(f"{where}: field {field!r} holds a lone surrogate (U+{ord(text[exc.start]):04X} at "
                               f"character {exc.start + 1}), not text") from None


def load_probe_prompts(path: str | Path) -> list[ProbePrompt]:
    path = Path(path)
    lines = read_text_limited(path, limit_bytes=MAX_BYTES, what="prompt file").splitlines()
    prompts: list[ProbePrompt] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"{path}, line {number}"
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ProbePromptError(f"{where}: not valid JSON ({exc.msg}, column {exc.colno})") from None
        if not isinstance(row, dict):
            raise ProbePromptError(f"{where}: expected an object with task_class and prompt")
        if not isinstance(row.get("task_class"), str) or not row["task_class"].strip():
            raise ProbePromptError(f"{where}: field 'task_class' is missing or not a non-empty string")
        if "messages" in row and "prompt" not in row:
            messages = _messages(row["messages"], where)
        elif isinstance(row.get("prompt"), str) and row["prompt"].strip():
            messages = ({"role": "user", "content": row["prompt"]},)
        else:
            raise ProbePromptError(f"{where}: field 'prompt' is missing or not a non-empty string")
        for i, m in enumerate(messages):
            _refuse_surrogates(where, f"messages[{i}].content" if "messages" in row else "prompt", m["content"])
        _refuse_surrogates(where, "task_class", row["task_class"])
        check = None
        if "check" in row:
            try:
                check = parse_check(row["check"])
            except CheckError as exc:
                raise ProbePromptError(f"{where}: {exc}") from None
        prompts.append(ProbePrompt(row["task_class"].strip(), messages, number, check))
    if not prompts:
        raise ProbePromptError(f"{path}: the file has no prompts")
    return prompts
