"""Prompt sets: JSONL files of {"task_class": ..., "prompt": ...}, one per line."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model.workbook.cell_values import bad_character

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

    @property
    def key(self) -> str:
        """The prompt by its text (two lines that say the same are one prompt, one unit of the interval)."""
        from model.acceptance.units import prompt_digest

        return prompt_digest(self.text)


def load_prompts(path: str | Path) -> list[Prompt]:
    from model.common.safe_files import LIMIT_PROMPT_FILE, FileRefused, read_bytes_limited

    path = Path(path)
    if not path.exists():
        raise PromptFileError(f"prompt file not found: {path}")
    try:
        # refuses a FIFO or device before opening it, and stops reading at the limit
        data = read_bytes_limited(path, limit_bytes=LIMIT_PROMPT_FILE, what="prompt file")
    except FileRefused as exc:
        raise PromptFileError(str(exc)) from None
    except OSError as exc:
        raise PromptFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    prompts: list[Prompt] = []
    for number, raw_bytes in enumerate(data.split(b"\n"), start=1):
        try:
            raw = raw_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PromptFileError(f"{path}, line {number}: not UTF-8 text (byte {exc.start + 1} of the line "
                                  f"is 0x{raw_bytes[exc.start]:02x})") from None
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise PromptFileError(f"{path}, line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
        except RecursionError:
            raise PromptFileError(f"{path}, line {number}: JSON nested too deeply") from None
        if not isinstance(row, dict):
            raise PromptFileError(f"{path}, line {number}: expected an object with task_class and prompt")
        for key in ("task_class", "prompt"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise PromptFileError(f"{path}, line {number}: field {key!r} is missing or not a non-empty string")
            _refuse_surrogates(path, number, key, row[key])
        # a class name is a name, as in the workbook: a tab or newline would split its cell when copied
        problem = bad_character(row["task_class"].strip())
        if problem:
            raise PromptFileError(f"{path}, line {number}: field 'task_class' {problem}; a class name is one line "
                                  "of text")
        prompts.append(Prompt(row["task_class"].strip(), row["prompt"], number))
    if not prompts:
        raise PromptFileError(f"{path}: the file has no prompts")
    return prompts


def _refuse_surrogates(path: Path, number: int, key: str, text: str) -> None:
    # JSON's \ud800 escapes decode to a lone surrogate, which no tokenizer can encode
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PromptFileError(f"{path}, line {number}: field {key!r} holds a lone surrogate "
                              f"(U+{ord(text[exc.start]):04X} at character {exc.start + 1}), not text") from None


def check_token_ids(path: str | Path, prompt: Prompt, ids: list[int], model: Any) -> None:
    """Refuse token ids the model has no logits row for: its graph would fail with a raw runtime error."""
    vocab = model.vocab_size
    bad = next((i for i in ids if not 0 <= i < vocab), None)
    if bad is not None:
        raise PromptFileError(f"{path}, line {prompt.line}: the tokenizer gives token id {bad}, outside the "
                              f"{vocab}-token vocabulary of {model.name}; tokenizer.json does not match model.onnx")


def check_prompt_fits(path: str | Path, prompt: Prompt, n_tokens: int, room: int, context: int | None,
                      model_name: str) -> None:
    """Refuse a prompt whose tokens plus the generation room exceed the model's context."""
    if context is not None and n_tokens + room > context:
        raise PromptFileError(
            f"{path}, line {prompt.line}: prompt is {n_tokens} tokens; with {room} more for generation it "
            f"exceeds the {context}-token context of {model_name}")
