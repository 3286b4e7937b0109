"""The server's own K (vLLM's num_spec_tokens) wins over the K the steps' timing shows: at a low alpha few steps
accept every draft, so the largest step seen reads K short, and a false K mismatch would follow."""
from __future__ import annotations

import random

from model.probe.analysis import analyse
from model.probe.events import FAST, RequestRecord, StreamEvent

K = 4


def _record(i: int, rng: random.Random) -> RequestRecord:
    """One request whose steps accept 0..3 drafts of 4 (never all four), each step's tokens arriving together."""
    events, t, hist, steps = [], 0.2, [0] * (K + 1), 0
    tokens = 0
    while tokens < 60:
        accepted = min(3, next(a for a in range(K + 1) if a == K or rng.random() > 0.35))
        hist[accepted] += 1
        steps += 1
        for j in range(accepted + 1):
            events.append(StreamEvent(t + 0.0004 * j, " x", 1, [" x"]))
        tokens += accepted + 1
        t += 0.03 + rng.random() * 0.002
    spec = {"num_spec_tokens": K, "num_spec_steps": steps, "num_draft_tokens": steps * K,
            "num_accepted_draft_tokens": sum(a * n for a, n in enumerate(hist)), "acceptance_histogram": hist}
    return RequestRecord(label=f"fast code #{i}", role=FAST, task_class="code", prompt_index=i, context=0, repeat=0,
                         max_tokens=tokens + 40, events=events, t_headers=0.1, t_done=t, finish_reason="stop",
                         usage={"prompt_tokens": 5, "completion_tokens": tokens, "total_tokens": tokens + 5},
                         reported={"metrics": {"speculative_decoding": spec}}, clock="kernel")


def test_the_servers_k_wins_over_a_short_timing_k_and_no_false_mismatch() -> None:
    rng = random.Random(7)
    records = [_record(i, rng) for i in range(8)]
    report = analyse(records, {"tier_k": K, "fast_name": "Fast"})
    assert report.stream_style and report.k_estimate == K and report.k_source == "reported"
    assert report.k_mismatch is None
    assert any("the server reports K = 4" in n and "said K = 3" in n for n in report.notes), report.notes
