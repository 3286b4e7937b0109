"""Streams a real llama.cpp `llama-server` sent (tests/data/llamacpp_server, recorded from the build of the
llama.cpp that llama-cpp-python 0.3.36 vendors: a tiny target and draft written by tests/llama_tiny.py,
`--spec-type draft-simple --spec-draft-n-max 4`, max_tokens 48), read as the probe reads them.

The server stops at its end-of-text token: it sends no tail after it. What it does send silently is the end
token itself and, inside the text, a token that ends mid-character (the first byte of "é"), whose text comes
with the next token's event. Read as a tail, that left the reported counts of every request that stopped out of
the reported alpha (10 of 24 in a probe of this pair), and of one that ran to its budget through a "€" (three
tokens, two silent; 2 of 80 in a larger probe)."""
from __future__ import annotations

import re

import pytest

from model.engines.responses import speculation_from_response
from model.probe.analysis import analyse
from model.probe.reported import past_the_text, reported_acceptance, response_body
from model.probe.steps import silent_tokens
from tests.model.probe.llamacpp_recorded import RECORDED, recorded_request

STREAMS = ("stop_e", "stop_e2", "length_e", "length", "length_euro")


def _records():
    return [recorded_request(name, 48, "code" if i % 2 else "prose", i) for i, name in enumerate(STREAMS)]


def _log_counts() -> list[tuple[int, int]]:
    """(accepted, generated) per request, from the server's own `draft acceptance` lines, in order."""
    text = (RECORDED / "server.log").read_text(encoding="utf-8")
    return [(int(a), int(g)) for a, g in re.findall(r"draft acceptance = [\d.]+ \(\s*(\d+) accepted /\s*(\d+) generated", text)]


def test_the_timings_are_read_as_the_server_logged_them():
    for record, (accepted, generated) in zip(_records(), _log_counts(), strict=True):
        counts = speculation_from_response(response_body(record), record.reported.get("headers"))
        assert (counts.draft_tokens, counts.accepted_tokens) == (generated, accepted), record.label
        assert counts.k is None  # llama.cpp's timings carry no K


def test_where_the_real_server_puts_its_figures():
    stop = recorded_request("stop_e", 48)
    assert stop.finish_reason == "stop" and stop.usage["completion_tokens"] == 22
    assert set(stop.reported) == {"timings"}  # on the usage chunk, the stream's last before [DONE]
    assert stop.output_text.endswith("[") and "é" in stop.output_text
    # the end token and the first byte of "é" send no event of their own
    assert silent_tokens(stop) == 2


def test_a_request_that_stopped_keeps_its_reported_counts():
    records = _records()
    assert not any(past_the_text(r) for r in records)
    total, problem = reported_acceptance(records, 4)
    assert problem is None
    logged = _log_counts()
    assert total.draft_tokens == sum(g for _, g in logged) and total.accepted == sum(a for a, _ in logged)


def test_a_character_split_over_three_tokens_is_no_tail():
    euro = recorded_request("length_euro", 48)
    assert euro.finish_reason == "length" and "€" in euro.output_text and silent_tokens(euro) == 2
    assert not past_the_text(euro)


def test_the_probe_reads_every_request_and_says_nothing_ran_past_the_text():
    report = analyse(_records())
    assert not any("past the end of their text" in n for n in report.notes), report.notes
    by_class = {c.task_class: c for c in report.classes}
    assert by_class["prose"].alpha_source == "reported" and by_class["code"].alpha_source == "reported"
    prose = [counts for i, counts in enumerate(_log_counts()) if i % 2 == 0]  # as _records assigns the classes
    assert by_class["prose"].reported_draft_acceptance_rate == pytest.approx(
        sum(a for a, _ in prose) / sum(g for _, g in prose))
