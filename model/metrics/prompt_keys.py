"""Which prompt an imported per-request record measured, where the record says: the unit of the interval.

A request's prompt is read, in this order, from the record around the response (an id first, then the text):
``prompt_key`` (the digest of the prompt's text, as SpecLedger keys a prompt), ``prompt_id``, ``prompt``,
``messages``; from SGLang's request log the request object (``obj``: ``text`` or ``input_ids``); from the
response body the prompt the server echoes (llama.cpp's /completion ``prompt``, vLLM's ``prompt_token_ids``
with return_token_ids); and AIPerf's ``metadata.conversation_id`` with ``turn_index`` (the dataset entry the
request was made from, so two sends of one entry are one prompt). Texts and token lists are digested (the
same text, the same key); ids are kept as they are. A record that names none is its own unit
(model.acceptance.units says what the interval then says).
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from model.acceptance.units import prompt_digest

_IDS = ("prompt_key", "prompt_id")
_TEXTS = ("prompt", "messages")


def _digest(value: Any) -> str | None:
    if isinstance(value, str):
        return prompt_digest(value) if value else None
    if isinstance(value, (list, dict)) and value:
        return prompt_digest(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str))
    return None


def _id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        return None
    return f"id {value}"


def record_prompt(record: Mapping[str, Any], body: Mapping[str, Any] | None = None) -> str | None:
    """The key of the prompt ``record`` (and the response ``body`` inside it) measured, or None when neither says."""
    for name in _IDS:
        if (key := _id(record.get(name))) is not None:
            return key
    for name in _TEXTS:
        if (key := _digest(record.get(name))) is not None:
            return key
    request = record.get("obj")  # SGLang's request log: the GenerateReqInput as an object
    if isinstance(request, Mapping):
        for name in ("text", "input_ids"):
            if (key := _digest(request.get(name))) is not None:
                return key
    for name in ("prompt", "prompt_token_ids"):  # the prompt the server echoes (not "text": that is the output)
        if (key := _digest((body if body is not None else record).get(name))) is not None:
            return key
    meta = record.get("metadata")  # AIPerf: the dataset entry the request was made from
    if isinstance(meta, Mapping) and (conv := _id(meta.get("conversation_id"))) is not None:
        turn = meta.get("turn_index")
        return f"{conv} turn {turn}" if isinstance(turn, int) and not isinstance(turn, bool) else conv
    return None
