"""A server that echoes the API key in its content sends it a token at a time: no event holds it whole,
but the run file would, read in order. The record must hold it nowhere, whole or in pieces."""
from __future__ import annotations

import json

from model.probe.client import scrub_key
from model.probe.endpoint import ApiKey
from model.probe.events import FAST, RequestRecord, StreamEvent
from model.probe.guard import mask_across

SECRET = "sk-live-0123456789abcdefSECRET"


def _record(pieces: list[str]) -> RequestRecord:
    record = RequestRecord("fast code #1", FAST, "code", 0, 0, 1, 64)
    record.events = [StreamEvent(0.01 * i, p, 1, [p]) for i, p in enumerate(pieces)]
    return record


def test_a_key_echoed_a_token_at_a_time_is_masked_across_the_events():
    text = f"Your key is {SECRET}, and again {SECRET}."
    pieces = [text[i:i + 3] for i in range(0, len(text), 3)]
    record = _record(pieces)
    scrub_key(record, ApiKey(SECRET))
    dumped = json.dumps(record.to_dict())
    joined = "".join(e.text for e in record.events)
    assert SECRET not in joined and SECRET not in "".join(t for e in record.events for t in e.tokens)
    assert "sk-live" not in dumped and "SECRET" not in dumped
    # the shape of the stream is kept: the same events, each as long as it came, the rest of the text intact
    assert [len(e.text) for e in record.events] == [len(p) for p in pieces]
    assert joined == text.replace(SECRET, "*" * len(SECRET))


def test_text_without_the_key_is_left_alone():
    pieces = ["sk-", "live", " is not the key"]
    assert mask_across(pieces, SECRET) == pieces
    assert mask_across(pieces, None) == pieces
