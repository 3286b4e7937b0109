"""SGLang's per-request speculation fields as a user copies them: the object on its own, and the OpenAI-compatible
response that carries them under sglext.spec_tokens_details (entrypoints/openai/utils.py
spec_tokens_details_from_meta_info builds SpecTokensDetails from meta_info's spec_* keys)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.metrics.read import read_sources

# K = 3 (speculative_num_draft_tokens 4): 40 verify steps accepting 0, 1, 2, 3 drafts 6, 10, 12, 12 times
FIELDS = {"spec_accept_rate": 70 / 120, "spec_accept_length": 110 / 40, "spec_cap_length": 0.0,
          "spec_block_accept_length": 0.0, "spec_num_correct_drafts": 70, "spec_num_proposed_drafts": 120,
          "spec_verify_ct": 40, "spec_correct_drafts_histogram": [6, 10, 12, 12], "spec_cap_lens_histogram": []}


def _check(path: Path) -> None:
    [s] = read_sources([str(path)])
    c = s.counts
    # K = 120 proposed / 40 steps = 3; mean acceptance length 1 + 70 / 40 = 2.75; draft acceptance rate
    # 70 / 120 = 0.58333; alpha from the histogram: 70 accepted over 70 + 28 rejecting steps (6 + 10 + 12) = 0.714286
    assert s.engine == "sglang" and c.k == 3
    assert c.mean_acceptance_length == pytest.approx(2.75)
    assert c.draft_acceptance_rate == pytest.approx(0.583333, abs=1e-6)
    assert c.alpha == pytest.approx(0.714286, abs=1e-6)
    assert c.engine_values["spec_accept_length"] == pytest.approx(2.75)


def test_the_fields_on_their_own(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(FIELDS))
    _check(path)


def test_the_fields_under_sglext(tmp_path: Path) -> None:
    response = {"id": "c0ffee", "object": "chat.completion", "created": 1764511331, "model": "qwen",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "length"}],
                "usage": {"prompt_tokens": 31, "completion_tokens": 111, "total_tokens": 142},
                "sglext": {"spec_tokens_details": FIELDS}}
    path = tmp_path / "response.json"
    path.write_text(json.dumps(response))
    _check(path)
    lines = tmp_path / "responses.jsonl"
    lines.write_text(json.dumps(response) + "\n" + json.dumps({**response, "id": "c0ffef"}) + "\n")
    [s] = read_sources([str(lines)])
    assert s.counts.k == 3 and len(s.requests) == 2 and s.counts.alpha == pytest.approx(140 / 196)


def test_refusals_name_what_the_records_are(tmp_path: Path) -> None:
    from model.metrics.result import MetricsError
    rates = tmp_path / "rates.json"
    rates.write_text(json.dumps({"spec_accept_length": 2.75, "spec_accept_rate": 0.58}))
    with pytest.raises(MetricsError, match=r"SGLang spec fields: accept length 2\.75 and accept rate 0\.58 read, but no "
                                           r"spec_verify_ct.*--stated 'length=2\.75,k=K'"):
        read_sources([str(rates)])
    plain = tmp_path / "llama.json"
    plain.write_text(json.dumps({"content": "ok", "timings": {"predicted_n": 30, "prompt_n": 4}}))
    with pytest.raises(MetricsError, match="llama.cpp responses \\(timings\\), but no timings.draft_n"):
        read_sources([str(plain)])
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"id": "x", "choices": [], "usage": {"completion_tokens": 3}}) + "\n")
    with pytest.raises(MetricsError, match="OpenAI-compatible responses carrying no speculation fields"):
        read_sources([str(chat)])
