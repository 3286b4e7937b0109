"""Class names from a prompt file are names: a tab, newline or other control character is refused with
the file and line, as the workbook refuses it in a class name (they would split a copied cell)."""
from __future__ import annotations

import json

import pytest

from model.sampling.prompts import PromptFileError, load_prompts


@pytest.mark.parametrize("name", ["co\tde", "co\nde", "co\r\nde", "a\x1b[31mred"])
def test_a_class_name_with_a_tab_or_newline_is_refused_naming_the_line(tmp_path, name: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"task_class": "code", "prompt": "a\tb\nc"}) + "\n"
                    + json.dumps({"task_class": name, "prompt": "x"}) + "\n")
    with pytest.raises(PromptFileError) as exc:
        load_prompts(path)
    text = str(exc.value)
    assert f"{path}, line 2: field 'task_class'" in text and "control character" in text and "\n" not in text


def test_a_prompt_keeps_its_tabs_and_newlines(tmp_path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"task_class": " code ", "prompt": "a\tb\nc"}) + "\n")
    assert [(p.task_class, p.text) for p in load_prompts(path)] == [("code", "a\tb\nc")]
