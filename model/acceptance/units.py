"""What an interval's unit is: the prompt where the requests name theirs, else each request.

The interval (``interval``) sums the requests of one prompt into one cluster, because repeats of a prompt are
correlated and only distinct prompts carry the spread between prompts. So each measurement names each request's
prompt by its text (``prompt_digest``: two lines of a prompt file with the same text are one prompt), or by an id
the file gives; where a file names no prompt, each request is its own unit, and the method says so rather than
pretending the requests were distinct prompts. Every front end (sample, probe, import-metrics) uses these words.
"""
from __future__ import annotations

import hashlib
from typing import Hashable, Sequence

UNIT_PROMPT = "prompt"
UNIT_REQUEST = "request (the file names no prompt)"
UNIT_MIXED = "prompt where the record names one, else request"


def prompt_digest(text: str) -> str:
    """A short digest of a prompt's text: the same text gives the same key, and a file can keep it without the prompt."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def cluster_keys(prompts: Sequence[Hashable | None]) -> tuple[list[Hashable], str]:
    """One cluster key per request (its prompt where named, else the request itself) and the unit in words."""
    named = sum(p is not None for p in prompts)
    keys: list[Hashable] = [("prompt", p) if p is not None else ("request", i) for i, p in enumerate(prompts)]
    unit = UNIT_PROMPT if named == len(prompts) else UNIT_REQUEST if named == 0 else UNIT_MIXED
    return keys, unit


def with_unit(method: str, unit: str) -> str:
    """The interval's method with its unit said ("...; unit: prompt"); a note without an interval is left alone."""
    return f"{method}; unit: {unit}" if method else method
