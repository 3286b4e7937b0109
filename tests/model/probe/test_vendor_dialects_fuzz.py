"""Whatever JSON a vendor's stream sends, each API's reader either takes it into the record or raises what the
client turns into one line naming the request (ValueError, TypeError, AttributeError, StreamError): never a crash
of another kind, never a usage count no server can mean kept."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from model.probe.apis import API_NAMES, dialect_for
from model.probe.events import RequestRecord

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                    st.text(max_size=8))
JSON = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                    max_leaves=12)
TYPES = st.sampled_from(["message_start", "content_block_delta", "message_delta", "message_stop", "error", "ping",
                         "response.output_text.delta", "response.completed", "response.incomplete",
                         "response.failed", "response.created"])
KEYS = st.sampled_from(["message", "delta", "usage", "response", "error", "choices", "logprobs", "service_tier"])


@settings(max_examples=300, deadline=None)
@given(api=st.sampled_from(API_NAMES), kind=TYPES, fields=st.dictionaries(KEYS, JSON, max_size=4))
def test_any_event_is_read_or_refused_in_the_clients_terms(api: str, kind: str, fields: dict) -> None:
    record = RequestRecord("request fast code #1", "fast", "code", 0, 0, 0, 16)
    try:
        dialect_for(api).read(record, {"type": kind, **fields}, 0.1)
    except (ValueError, TypeError, AttributeError):  # StreamError is a ValueError
        return
    for name in ("completion_tokens", "prompt_tokens"):
        value = (record.usage or {}).get(name)
        assert value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 10**9)
    assert record.served_tier is None or isinstance(record.served_tier, str)
