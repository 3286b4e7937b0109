"""Prompt sets: JSONL files of {"task_class": ..., "prompt": ...}, one per line."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
DEMO_PROMPTS = RESOURCES / "prompts" / "demo.jsonl"
DEMO_DRAFT = RESOURCES / "demo_pair" / "draft"
DEMO_TARGET = RESOURCES / "demo_pair" / "target"


class PromptFileError(ValueError):
    """A prompt file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Prompt:
    task_class: str
    text: str
    line: int  # 1-based line in its file, for messages


def load_prompts(path: str | Path) -> list[Prompt]:
    path = Path(path)
    if not path.exists():
        raise PromptFileError(f"prompt file not found: {path}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptFileError(f"{path}: cannot read it as UTF-8 text ({exc})") from None
    prompts: list[Prompt] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise PromptFileError(f"{path}, line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
        if not isinstance(row, dict):
            raise PromptFileError(f"{path}, line {number}: expected an object with task_class and prompt")
        for key in ("task_class", "prompt"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise PromptFileError(f"{path}, line {number}: field {key!r} is missing or not a non-empty string")
        prompts.append(Prompt(row["task_class"].strip(), row["prompt"], number))
    if not prompts:
        raise PromptFileError(f"{path}: the file has no prompts")
    return prompts


def check_prompt_fits(path: str | Path, prompt: Prompt, n_tokens: int, room: int, context: int | None,
                      model_name: str) -> None:
    """Refuse a prompt whose tokens plus the generation room exceed the model's context."""
    if context is not None and n_tokens + room > context:
        raise PromptFileError(
            f"{path}, line {prompt.line}: prompt is {n_tokens} tokens; with {room} more for generation it "
            f"exceeds the {context}-token context of {model_name}")
