"""Reading llama.cpp-like streams and a busy client, on synthetic records whose truth is known:
partial logprobs, silent tokens, K from the server's draft tokens, steps merged by a late read."""
from __future__ import annotations

import numpy as np
import pytest

from model.mechanics import arithmetic as ar
from model.probe.analysis import analyse
from model.probe.events import FAST, RequestRecord, StreamEvent
from model.probe.merges import BUSY, LATE_READ, STALLED, TOO_BIG
from model.probe.steps import PER_TOKEN_GAPS, UNKNOWN_COUNTS, detect_style, read_steps

K, STEP_S = 4, 0.02


def _accepted(rng: np.random.Generator, alpha: float, n: int) -> list[int]:
    return [int(a) for a in np.minimum(rng.geometric(1 - alpha, n) - 1, K)]


def _llama(accepted: list[int], index: int, *, logprobs: str = "own", silent: int = 0, merge: set[int] = frozenset(),
           stall_before: set[int] = frozenset(), cls: str = "code", drafted: list[int] | None = None,
           measured: bool = False) -> RequestRecord:
    """One request as llama.cpp streams it: one event per token, a step's tokens 20 us apart, steps 20 ms
    apart; logprobs "own" (the step's last token), "first" (only the first event) or "none". Steps in
    ``merge`` arrive with the step after them, as a late reader reads both at once."""
    tokens = sum(a + 1 for a in accepted)
    r = RequestRecord(f"r{index}", FAST, cls, index, 0, 0, tokens + silent, finish_reason="length")
    drafted = drafted if drafted is not None else [K] * len(accepted)
    r.usage = {"completion_tokens": tokens + silent}
    r.stalls = [] if measured or stall_before else None  # None: an old run file, the client's delays unmeasured
    r.reported = {"timings": {"predicted_n": tokens + silent, "draft_n": sum(drafted),
                              "draft_n_accepted": sum(accepted)}}
    t = 0.1
    first = True
    for j, a in enumerate(accepted):
        at = t + STEP_S if j in merge else t  # read late, together with the next step
        if j - 1 in merge:
            at = t  # the next step, read on time: both arrive now
        for i in range(a + 1):
            own = (logprobs == "own" and i == a) or (logprobs == "first" and first)
            r.events.append(StreamEvent(at + i * 2e-5, "ab", 1 if own else None, ["ab"] if own else None))
            first = False
        if j in stall_before:
            r.stalls.append([at - 0.001, 0.019])  # away for about a whole decode time (20 ms)
        t += STEP_S
    r.events.sort(key=lambda e: e.t)
    return r


def _ml(accepted: list[int]) -> float:
    return ar.histogram_alpha(np.bincount(np.asarray(accepted, dtype=np.int64), minlength=K + 1))


def _room(accepted: list[int], silent: int = 0) -> list[int]:
    """The steps the reading counts: room left for K + 1 tokens (the budget ran out: finish "length"),
    and not the last visible step of a request whose silent tokens may have cut it."""
    budget, emitted, out = sum(a + 1 for a in accepted) + silent, 0, []
    for j, a in enumerate(accepted):
        if budget - emitted >= K + 1 and not (silent and j == len(accepted) - 1):
            out.append(a)
        emitted += a + 1
    return out


@pytest.mark.parametrize("logprobs", ["own", "first"])
def test_events_without_logprobs_in_a_per_token_stream_are_one_token_each(logprobs: str) -> None:
    rng = np.random.default_rng(1)
    accepted = [_accepted(rng, 0.75, 40) for _ in range(4)]
    records = [_llama(a, i, logprobs=logprobs) for i, a in enumerate(accepted)]
    style = detect_style(records)
    assert style.style == PER_TOKEN_GAPS and "read as one token" in style.evidence
    report = analyse(records)
    assert report.verdict == "yes" and report.k_estimate == K and report.k_source == "timing"
    # each request's last step may be cut by the budget and is left out; the rest read exactly
    expected = _ml([a for acc in accepted for a in _room(acc)])
    assert report.classes[0].alpha_timing == pytest.approx(expected, abs=1e-9)
    assert "read as one token" in report.evidence


def test_an_event_without_logprobs_holding_more_than_a_token_is_not_guessed() -> None:
    rng = np.random.default_rng(2)
    records = [_llama(_accepted(rng, 0.75, 30), i) for i in range(3)]
    bare = next(e for e in records[0].events if e.n_tokens is None)
    bare.text = "x" * 40  # a re-chunking proxy glued tokens together
    style = detect_style(records)
    assert style.style == UNKNOWN_COUNTS and not style.steps_visible
    assert analyse(records).verdict == "inconclusive"


def test_silent_tokens_are_counted_kept_out_of_the_steps_and_the_stream_still_reads() -> None:
    rng = np.random.default_rng(3)
    accepted = [_accepted(rng, 0.75, 30) for _ in range(4)]
    records = [_llama(a, i, silent=7 if i == 1 else 0) for i, a in enumerate(accepted)]
    report = analyse(records)
    assert report.verdict == "yes" and report.silent_tokens == 7
    assert any("7 tokens in 1 request produced no content event" in n for n in report.notes)
    # the silent request's budget has room for them; its last visible step is left out all the same
    expected = _ml([a for i, acc in enumerate(accepted) for a in _room(acc, 7 if i == 1 else 0)])
    assert report.classes[0].alpha_timing == pytest.approx(expected, abs=1e-9)


def test_no_logprobs_at_all_and_usage_above_the_events_stays_inconclusive() -> None:
    rng = np.random.default_rng(4)
    records = [_llama(_accepted(rng, 0.75, 30), i, logprobs="none", silent=3) for i in range(3)]
    assert detect_style(records).style == UNKNOWN_COUNTS


def test_k_comes_from_the_servers_draft_tokens_when_the_timing_cannot_give_it() -> None:
    # alpha so low that no step shows K + 1 tokens: the timing has no K; draft_n / steps seen gives it
    rng = np.random.default_rng(5)
    records = []
    for i in range(6):
        accepted = [min(a, K - 1) for a in _accepted(rng, 0.3, 30)]  # noqa: the timing never sees K + 1
        tokens = sum(a + 1 for a in accepted)
        emitted, drafted = 0, []
        for a in accepted:
            drafted.append(max(min(K, tokens - emitted - 1), 0))
            emitted += a + 1
        records.append(_llama(accepted, i, drafted=drafted))
    report = analyse(records)
    assert report.k_estimate == K and report.k_source == "server", report.notes
    assert report.classes[0].alpha_reported is not None
    drafted_all = sum(r.reported["timings"]["draft_n"] for r in records)
    accepted_all = sum(r.reported["timings"]["draft_n_accepted"] for r in records)
    assert report.classes[0].reported_draft_acceptance_rate == pytest.approx(accepted_all / drafted_all, abs=1e-12)


def test_drafts_of_varying_length_give_a_lower_bound_not_a_k() -> None:
    rng = np.random.default_rng(6)
    records = []
    for i in range(4):
        accepted = [min(a, 1) for a in _accepted(rng, 0.3, 30)]
        drafted = [int(d) for d in rng.integers(1, K + 1, len(accepted))]  # p-min cuts drafts short
        records.append(_llama(accepted, i, drafted=drafted))
    report = analyse(records)
    assert report.k_estimate is None
    assert any("K is at least" in n for n in report.notes), report.notes
    assert report.classes[0].reported_draft_acceptance_rate is not None  # shown in its own convention anyway


def test_steps_merged_by_a_late_read_are_left_out_and_k_stays_right() -> None:
    rng = np.random.default_rng(7)
    accepted = [_accepted(rng, 0.8, 60) for _ in range(4)]
    merged = [set(int(j) for j in rng.choice(np.arange(1, 58, 3), 4, replace=False)) for _ in range(4)]
    records = [_llama(a, i, merge=m) for i, (a, m) in enumerate(zip(accepted, merged))]
    report = analyse(records)
    assert report.k_estimate == K and not report.timing_unreliable
    reading = read_steps(records, detect_style(records))
    assert reading.left_out >= sum(len(m) for m in merged)
    assert max(reading.sizes) <= K + 1
    # what remains is a fair sample: alpha within 0.05 of the truth over every step
    assert abs(report.classes[0].alpha_timing - _ml([a for acc in accepted for a in acc])) <= 0.05


def test_too_many_merged_steps_say_the_machine_was_busy_instead_of_k_and_alpha() -> None:
    rng = np.random.default_rng(8)
    records = []
    for i in range(4):
        accepted = _accepted(rng, 0.8, 60)
        records.append(_llama(accepted, i, merge=set(range(1, 58, 3))))
    report = analyse(records)
    assert report.timing_unreliable and report.k_estimate is None
    assert report.classes[0].alpha_timing is None
    assert any(BUSY in n for n in report.notes) and BUSY in report.evidence.lower()


def test_a_step_after_the_clients_own_stall_is_left_out() -> None:
    rng = np.random.default_rng(9)
    records = [_llama(_accepted(rng, 0.8, 40), i, stall_before={5, 17}) for i in range(3)]
    reading = read_steps(records, detect_style(records))
    flags = [g.suspect for _, gs in reading.groups for g in gs if g.suspect]
    assert flags.count(STALLED) == 6 and LATE_READ not in flags and TOO_BIG not in flags


def test_a_late_step_while_the_client_was_awake_was_sent_late_and_is_kept() -> None:
    rng = np.random.default_rng(10)
    records = [_llama(_accepted(rng, 0.8, 40), i, measured=True) for i in range(3)]
    for r in records:  # the server sent everything from the 10th event on 35 ms late: a busy server, no merge
        for e in r.events[10:]:
            e.t += 0.035
    reading = read_steps(records, detect_style(records))
    assert reading.left_out == 0
    unmeasured = [_llama(_accepted(rng, 0.8, 40), i) for i in range(3)]
    for r in unmeasured:
        for e in r.events[10:]:
            e.t += 0.035
    assert read_steps(unmeasured, detect_style(unmeasured)).left_out == 3  # without the timer, late is suspect


def test_the_clients_timer_sees_its_own_stall_and_is_one_thread_for_all_requests() -> None:
    import threading
    import time

    from model.probe.stalls import StallWatch
    before = {t.name for t in threading.enumerate()}
    t0 = time.perf_counter()
    with StallWatch(t0) as a, StallWatch(t0) as b:
        assert sum(t.name == "probe-stall-watch" for t in threading.enumerate()) == 1
        end = time.perf_counter() + 0.2
        while time.perf_counter() < end:  # hold the GIL in Python: the timer cannot wake on time
            pass
    assert a.stalls and a.stalls == b.stalls
    assert all(0 < t <= 0.25 + 0.05 and late >= 0.003 for t, late in a.stalls)
    time.sleep(0.05)
    assert "probe-stall-watch" not in {t.name for t in threading.enumerate()} - before
