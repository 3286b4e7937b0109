"""The APIs a tier may be probed through, each written from its vendor's public API reference
(docs/reference/probe-apis.md):

- openai_chat        `openai-chat`: Chat Completions (`POST {base}/chat/completions`), the default
- openai_responses   `openai-responses`: the Responses API (`POST {base}/responses`)
- anthropic_messages `anthropic-messages`: Anthropic's Messages API (`POST {base}/messages`)
- dialect            what the three share: the request body, the key's header, reading one event into the record
- registry           the dialect for an API's name
- headers            extra request headers: parsed, checked, the secret ones resolved (never stored or shown)
"""
from __future__ import annotations

from model.probe.apis.dialect import API_NAMES, DEFAULT_API, Dialect, StreamError
from model.probe.apis.registry import dialect_for, until_decided_refusal

__all__ = ["API_NAMES", "DEFAULT_API", "Dialect", "StreamError", "dialect_for", "until_decided_refusal"]
