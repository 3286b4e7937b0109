"""The top logprobs a stream gives each token at a temperature above 0: what the quality test reads.

Per token the event keeps the top tokens' log-probabilities as sent and the chosen token's index among them (-1:
not there), matched on the token's text and, between equal texts, the nearest log-probability. No token text is
kept beyond the event's own, so nothing new can carry a key back into the run file.
"""
from __future__ import annotations

from typing import Any


def top_and_ranks(entries: list[Any]) -> tuple[list[list[float]] | None, list[int] | None]:
    """Each entry's top log-probabilities and the chosen token's index among them (-1: not there; matched on the
    token and the nearest log-probability); None when no entry has top ones."""
    if not any(isinstance(e, dict) and e.get("top_logprobs") for e in entries):
        return None, None
    top, ranks = [], []
    for e in entries:
        row = [x for x in (e.get("top_logprobs") or []) if isinstance(x, dict)]
        values = [float(x["logprob"]) if isinstance(x.get("logprob"), (int, float)) else float("-inf") for x in row]
        chosen = e.get("logprob") if isinstance(e.get("logprob"), (int, float)) else None
        same = [i for i, x in enumerate(row) if x.get("token") == e.get("token")]
        rank = min(same, key=lambda i: abs(values[i] - chosen) if chosen is not None else 0) if same else -1
        top.append([v for v in values if v > float("-inf")] if all(v > float("-inf") for v in values) else [])
        ranks.append(rank if top[-1] else -1)
    return top, ranks

