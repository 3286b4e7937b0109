"""Fuzz the prompt file reader: hostile lines and bytes. Every outcome is prompts whose text is real
text (UTF-8 encodable, no NUL), or one PromptFileError line naming the file."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from model.sampling.prompts import PromptFileError, load_prompts
from model.workbook.cell_values import bad_character
from tests.fuzz.bounds import outcome
from tests.fuzz.strategies import hostile_json_value, hostile_text


def _check(path: Path) -> None:
    got = outcome(lambda: load_prompts(path), PromptFileError)
    if isinstance(got, PromptFileError):
        assert str(got.args[0] if got.args else got).find(path.name) >= 0, str(got)
        return
    assert got, "an empty prompt list was accepted"
    for p in got:
        assert isinstance(p.task_class, str) and p.task_class.strip() and isinstance(p.text, str)
        p.text.encode("utf-8")
        p.task_class.encode("utf-8")
        assert bad_character(p.task_class) is None, f"class name {p.task_class!r} accepted"


@st.composite
def prompt_line(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return json.dumps({"task_class": draw(hostile_text()), "prompt": draw(hostile_text(60))})
    if kind == 1:
        return json.dumps({"task_class": draw(hostile_json_value()), "prompt": draw(hostile_json_value())})
    if kind == 2:
        return json.dumps(draw(hostile_json_value()))
    if kind == 3:
        return "[" * draw(st.integers(1, 20_000))
    return draw(hostile_text(40))


@settings(max_examples=120)
@given(lines=st.lists(prompt_line(), min_size=0, max_size=6))
def test_prompt_lines(tmp_path_factory, lines: list[str]) -> None:
    path = Path(tmp_path_factory.mktemp("p")) / "prompts.jsonl"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    _check(path)


@settings(max_examples=60)
@given(data=st.binary(max_size=2000))
def test_prompt_bytes(tmp_path_factory, data: bytes) -> None:
    path = Path(tmp_path_factory.mktemp("p")) / "prompts.jsonl"
    path.write_bytes(data)
    _check(path)
