"""The dialect for an API's name."""
from __future__ import annotations

from model.probe.apis.anthropic_messages import AnthropicMessages
from model.probe.apis.dialect import (ANTHROPIC_MESSAGES, API_NAMES, DEFAULT_API, OPENAI_CHAT, OPENAI_RESPONSES,
                                      Dialect)
from model.probe.apis.openai_chat import OpenAIChat
from model.probe.apis.openai_responses import OpenAIResponses


def dialect_for(name: str | None) -> Dialect:
    table: dict[str, type[Dialect]] = {OPENAI_CHAT: OpenAIChat, OPENAI_RESPONSES: OpenAIResponses,
                                       ANTHROPIC_MESSAGES: AnthropicMessages}
    key = name or DEFAULT_API
    if key not in table:
        raise ValueError(f"API {str(name)[:40]!r}: expected one of {', '.join(API_NAMES)}")
    return table[key]()


def until_decided_refusal(api: str | None) -> str | None:
    """Why a run until decided cannot be made through this API (it decides acceptance, which the stream must show),
    or None where it can."""
    if dialect_for(api).shows_steps:
        return None
    return (f"a run until decided decides acceptance, which the {api} API cannot show (no logprobs, several tokens "
            "an event); probe without it to judge its speed, served tier and SLA")
