"""serve-demo's llamacpp style ends an answer as llama.cpp's server does (docs/reference/engine-formats.md, what a
real llama-server sends): at the end-of-text token, sent silent, with a drafted end token that has drafts after it
taken as the target's own, so the step's accepted drafts stop before it."""
from __future__ import annotations

from types import SimpleNamespace

from commands.demo_steps import speculative_steps

END = 9
TARGET = SimpleNamespace(eos_ids=frozenset({END}), decode=lambda ids: "".join(chr(97 + i) for i in ids))


def _run(output: list[int], accepted: list[int], drafted: list[int]) -> SimpleNamespace:
    return SimpleNamespace(output_ids=output, accepted_counts=accepted, drafted_counts=drafted,
                           verify_seconds=[0.0] * len(accepted), draft_step_seconds=[0.0] * sum(drafted))


def test_a_drafted_end_with_drafts_after_it_is_the_targets_token():
    # the prompt pass's token, then a step that accepted all 4 drafts, the second of them the end
    run = _run([0, 1, END, 2, 3, 4], [0, 4], [0, 4])
    steps, end = speculative_steps(run, TARGET, silent=False, end_token=True)
    assert end == 2 and [s.tokens for s in steps] == [("a",), ("b", "")]
    assert steps[-1].accepted == 1 and steps[-1].drafted == 4  # accepted stops before the end token


def test_an_end_as_the_last_draft_is_accepted_and_the_bonus_dropped():
    run = _run([0, 1, 2, 3, END, 5], [0, 4], [0, 4])
    steps, _ = speculative_steps(run, TARGET, silent=False, end_token=True)
    assert steps[-1].tokens == ("b", "c", "d", "") and steps[-1].accepted == 4


def test_an_end_as_the_targets_own_token_keeps_the_step():
    run = _run([0, 1, 2, END, 4, 5], [0, 2, 1], [0, 4, 4])
    steps, _ = speculative_steps(run, TARGET, silent=False, end_token=True)
    assert [s.tokens for s in steps] == [("a",), ("b", "c", "")] and steps[-1].accepted == 2


def test_silent_runs_on_past_the_end():
    run = _run([0, 1, END, 2, 3, 4], [0, 4], [0, 4])
    steps, _ = speculative_steps(run, TARGET, silent=True)
    assert steps[-1].tokens == ("b", "", "", "", "") and steps[-1].accepted == 4
