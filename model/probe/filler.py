"""A neutral filler document that puts a prompt at a given context length (8K, 32K).

The same text for both tiers and every class: plain sentences about nothing in particular, so
the filler neither helps nor hurts a class's draft. Its length is counted in words at the usual
~0.75 words per token of English; the server's usage.prompt_tokens in the run file is the real count.
"""
from __future__ import annotations

import re

_SENTENCES = (
    "The meeting room on the third floor has twelve chairs and a long table.",
    "Deliveries arrive on Tuesdays and Fridays, usually before noon.",
    "The garden behind the building is watered twice a week in summer.",
    "A notice near the entrance lists the opening hours of the library.",
    "The printer on the second floor is serviced at the start of each month.",
    "Visitors sign the book at the front desk and receive a paper badge.",
    "The kitchen has a kettle, a small fridge and a cupboard of mugs.",
    "Parking spaces near the gate are kept free for the delivery van.",
)
WORDS_PER_TOKEN = 0.75
HEADER = "Background document (not related to the task below; it only sets the context length):\n\n"


def parse_context(text: str) -> int:
    """'8K' -> 8192, '32k' -> 32768, '1500' -> 1500, '0' -> no filler."""
    m = re.fullmatch(r"\s*(\d+)\s*([kK]?)\s*", text)
    if not m:
        raise ValueError(f"context {text!r}: expected a token count like 1K, 8K, 32K or 1500")
    return int(m.group(1)) * (1024 if m.group(2) else 1)


def context_label(tokens: int) -> str:
    if tokens == 0:
        return "prompt only"
    return f"{tokens // 1024}K" if tokens % 1024 == 0 else str(tokens)


def filler(tokens: int) -> str:
    """About ``tokens`` tokens of neutral text ('' for 0)."""
    if tokens <= 0:
        return ""
    want = int(tokens * WORDS_PER_TOKEN)
    words: list[str] = []
    i = 0
    while len(words) < want:
        words.extend(_SENTENCES[i % len(_SENTENCES)].split())
        i += 1
    return HEADER + " ".join(words[:want]) + "\n\n"
