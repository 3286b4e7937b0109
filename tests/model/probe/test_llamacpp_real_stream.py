"""A stream shaped as a real llama.cpp server sent it (llama-server, gemma-3-270m with a q4_0 copy as draft, K = 4,
on a loaded 2-core machine), stamped by the kernel: the role chunk and the prompt pass's lone token in one read,
then each token of a verify step in its own send, 0 to a few ms apart (0 where two left in one TCP segment), and
steps ~200 ms apart with the pace of a shared machine. Read as the probe first read it, the gaps' best split fell
between the 0s and the rest, every per-token send read as a step: 46% of the steps left out as late, 2.7 tokens
per step against the server's 4.5, alpha from timing 0.65-0.74 against the server's 0.96; and with every request's
first group suspect, no request was seen whole, so the server's K was never had ("K is at least 4")."""
from __future__ import annotations

import numpy as np

from model.mechanics import arithmetic as ar
from model.probe.analysis import analyse
from model.probe.events import FAST, RequestRecord, StreamEvent
from model.probe.steps import PER_TOKEN_GAPS, detect_style, read_steps

K, MAX_TOKENS, ALPHA = 4, 64, 0.8


def _request(rng: np.random.Generator, index: int) -> tuple[RequestRecord, list[int]]:
    """One request and the accepted drafts of its full-K steps (the truth alpha is read from)."""
    r = RequestRecord(f"r{index}", FAST, "code", index, 0, 0, MAX_TOKENS, finish_reason="length",
                      prompt_key=f"p{index}", clock="kernel", stalls=[])
    t = 0.3
    r.t_first_payload = t  # the role chunk, in the same read as the first token
    r.events.append(StreamEvent(t, "a", 1, ["a"]))  # the prompt pass's token, with its logprobs
    emitted, drafted, accepted, full = 1, 0, 0, []
    while emitted < MAX_TOKENS:
        t += 0.2 * rng.uniform(0.8, 1.25)
        d = min(K, MAX_TOKENS - emitted - 1)
        a = int(min(rng.geometric(1 - ALPHA) - 1, d))
        at = t
        for i in range(a + 1):
            if i:
                at += 0.0 if rng.random() < 0.4 else rng.uniform(0.0005, 0.004)
            r.events.append(StreamEvent(at, "b", None))  # a verify step's tokens carry no logprobs
        drafted, accepted, emitted = drafted + d, accepted + a, emitted + a + 1
        if d == K:
            full.append(a)
    r.usage = {"completion_tokens": MAX_TOKENS}
    r.reported = {"timings": {"predicted_n": MAX_TOKENS, "draft_n": drafted, "draft_n_accepted": accepted}}
    return r, full


def test_a_real_llamacpp_stream_reads_its_steps_its_alpha_and_the_servers_k() -> None:
    rng = np.random.default_rng(11)
    made = [_request(rng, i) for i in range(12)]
    records = [r for r, _ in made]
    style = detect_style(records)
    assert style.style == PER_TOKEN_GAPS and 0.005 < style.gap_threshold_s < 0.1, style.evidence
    reading = read_steps(records, style)
    server_steps = sum(MAX_TOKENS - r.reported["timings"]["draft_n_accepted"] for r in records)
    assert sum(len(gs) for _, gs in reading.groups) == server_steps  # every step read as one, none split
    report = analyse(records)
    assert report.k_estimate == K and not report.timing_unreliable and not report.many_steps_left_out
    assert any(n.startswith(f"K = {K}: the server's") for n in report.notes), report.notes
    truth = ar.histogram_alpha(np.bincount([a for _, full in made for a in full], minlength=K + 1))
    c = report.classes[0]
    assert abs(c.alpha_timing - truth) <= 0.03 and abs(c.alpha_reported - truth) <= 0.03
