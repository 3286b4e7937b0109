"""Sample's interval unit is the prompt by its text: a prompt file that says one prompt twice (at
temperature 0 the second is the same draw) has one unit for it, not two."""
from __future__ import annotations

import json

import pytest

from model.acceptance import alpha_interval
from model.sampling.prompts import DEMO_PROMPTS, load_prompts
from model.sampling.run import ClassResult, PromptResult, SamplingResult, attach_intervals, run_sampling, run_to_end

COUNTS = [[4, 2, 0, 4], [1, 1, 3], [4, 4, 4, 2], [0, 0, 1], [3, 4, 2], [2, 2, 2]]


def _result(keys: list[str | None]) -> SamplingResult:
    nan = float("nan")
    r = SamplingResult("CPU", 4, 0.0, 0, 48, "d", "t")
    for line, (c, key) in enumerate(zip(COUNTS + [COUNTS[1]], keys), start=1):
        r.prompts.append(PromptResult("code", line, [], c, [], "", [4] * len(c), prompt_key=key))
    r.classes = [ClassResult("code", 0, 10, 0, 0, 0, 0.6, nan, nan, [], [], nan, nan, nan, nan, nan, nan)]
    return attach_intervals(r, 0.95)


def test_a_repeated_text_is_one_unit_and_an_old_result_counts_lines():
    # line 7 says what line 2 says: keyed by text it joins line 2's cluster
    by_text = _result(["a", "b", "c", "d", "e", "f", "b"]).classes[0]
    by_line = _result([None] * 7).classes[0]  # a result from before the key: each line its own prompt
    assert (by_text.requests, by_line.requests) == (6, 7)
    acc = [sum(c) for c in COUNTS + [COUNTS[1]]]
    trials = [sum(c) + sum(1 for a in c if a < 4) for c in COUNTS + [COUNTS[1]]]
    want = alpha_interval(acc, trials, 0.95, clusters=[0, 1, 2, 3, 4, 5, 1])
    assert by_text.alpha_interval == pytest.approx([want.low, want.high])
    assert by_text.alpha_interval != pytest.approx(by_line.alpha_interval)
    assert "prompts as clusters" in by_text.interval_method
    # what Apply keeps: 7 prompt lines run, 6 distinct prompts the interval rests on
    by_text.prompts = 7
    fields = by_text.acceptance.row_fields()
    assert (fields["alpha_requests"], fields["alpha_prompts"]) == (7, 6)


@pytest.mark.parametrize("twice", [False, True])
def test_sample_on_a_file_with_a_duplicated_prompt(tmp_path, twice):
    from model.sampling.onnx_lm import load_pair
    from model.sampling.prompts import DEMO_DRAFT, DEMO_TARGET

    rows = [json.loads(line) for line in DEMO_PROMPTS.read_text().splitlines() if '"code"' in line][:6]
    if twice:
        rows.append(dict(rows[1]))
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    prompts = load_prompts(path)
    assert len({p.key for p in prompts}) == 6
    pair = load_pair(DEMO_DRAFT, DEMO_TARGET, "cpu")
    result = run_to_end(run_sampling(prompts_path=path, k=4, max_new_tokens=24, provider="cpu", pair=pair))
    code = result.classes[0]
    assert code.prompts == len(rows) and code.requests == 6
    assert [p.prompt_key for p in result.prompts] == [p.key for p in prompts]
    assert result.to_dict()["prompts"][-1]["prompt_key"] == prompts[-1].key
