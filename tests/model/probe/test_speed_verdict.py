"""The verdict where a stream hides its steps is about speed alone: faster, not faster, or inconclusive by the
speedup's interval, and it always says acceptance cannot be read from the API."""
from __future__ import annotations

from model.probe.by_load import LevelSpeed
from model.probe.speed_verdict import speed_only
from model.probe.steps import MULTI_TOKEN, UNKNOWN_COUNTS, StyleReading

HIDDEN = StyleReading(UNKNOWN_COUNTS, False, "no counts")


def _level(s: float | None, interval: list[float] | None) -> LevelSpeed:
    return LevelSpeed(1, 10, 10, 0.1, 100.0, 0.1, 40.0, None, None, s, 0, False, speedup_interval=interval)


def test_plain_speed_decides_and_the_evidence_says_why() -> None:
    faster = speed_only(HIDDEN, [_level(2.5, [2.3, 2.7])], 0.95)
    assert faster.verdict == "faster" and "Acceptance cannot be read from this API" in faster.evidence
    assert speed_only(HIDDEN, [_level(1.02, [0.97, 1.06])], 0.95).verdict == "not faster"
    assert speed_only(HIDDEN, [_level(1.3, [0.9, 1.8])], 0.95).verdict == "inconclusive"


def test_without_a_baseline_or_an_interval_it_is_inconclusive_and_says_so() -> None:
    assert "no baseline" in speed_only(HIDDEN, [_level(None, None)], 0.95).evidence
    assert "too few requests" in speed_only(HIDDEN, [_level(2.0, None)], 0.95).evidence


def test_visible_steps_keep_the_speculation_verdict() -> None:
    assert speed_only(StyleReading(MULTI_TOKEN, True, "counted"), [_level(2.5, [2.3, 2.7])], 0.95) is None


def test_the_evidence_says_the_speedup_is_time_weighted_unlike_the_slas_share_of_requests() -> None:
    evidence = speed_only(HIDDEN, [_level(1.61, [1.13, 2.28])], 0.95).evidence
    assert "time-weighted" in evidence and "the SLA counts requests" in evidence
