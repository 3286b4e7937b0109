"""Where temperature-0 outputs diverge decides what the identity share means (model.probe.identity's rule).

A real llama.cpp server with and without a draft gave 81% of 64 prompts token-identical, the rest diverging
after long identical prefixes: rounding between batched verify and one-token decode. The probe said only
"81% token-identical", which reads as a lossy tier. Synthetic pairs: late divergences are called rounding,
early ones on many prompts lossy, a few early ones inconclusive, and the character unit has its own limit.
"""
from __future__ import annotations

from model.probe.events import BASELINE, FAST, RequestRecord, StreamEvent
from model.probe.identity import EARLY, EARLY_BEFORE, IDENTICAL, LATE, MIXED, compare_outputs

LENGTH = 400


def record(role: str, index: int, tokens: list[str], logprobs: bool = True) -> RequestRecord:
    r = RequestRecord(f"{role} code #{index + 1}", role, "code", index, 0, 0, len(tokens), finish_reason="length")
    r.events = [StreamEvent(0.1 + 0.01 * j, t, 1, [t] if logprobs else None) for j, t in enumerate(tokens)]
    return r


def pairs(diverge_at: dict[int, int], prompts: int = 64, logprobs: bool = True) -> list[RequestRecord]:
    """`prompts` fast/baseline pairs of LENGTH tokens; prompt i's fast output differs from token diverge_at[i] on."""
    out = []
    for i in range(prompts):
        base = [f"t{i}_{j} " for j in range(LENGTH)]
        fast = list(base)
        if i in diverge_at:
            fast[diverge_at[i]:] = [f"x{j} " for j in range(diverge_at[i], LENGTH)]
        out += [record(FAST, i, fast, logprobs), record(BASELINE, i, base, logprobs)]
    return out


REAL_LIKE = {i: 40 + 24 * (i - 52) for i in range(52, 64)}  # 12 of 64 diverge, at tokens 40..304


def test_late_divergences_after_long_prefixes_are_called_rounding_not_lossy() -> None:
    identity = compare_outputs(pairs(REAL_LIKE))
    assert (identity.compared, identity.identical) == (64, 52)
    assert identity.judge() == LATE and not identity.early
    first = identity.first_divergence()
    assert first is not None and (first["min"], first["max"], first["unit"]) == (40, 304, "token")
    assert first["median"] == (40 + 24 * 5 + 40 + 24 * 6) / 2
    assert abs(first["matched_share_median"] - first["median"] / LENGTH) < 1e-12
    assert "not evidence of a lossy tier" in identity.judgement_words()
    assert identity.position_words().startswith("token 40–304 (median 172)")
    data = identity.to_dict()
    assert data["judgement"] == LATE and data["early"] == 0 and data["early_before"] == EARLY_BEFORE
    assert {"share", "compared", "identical", "divergences"} <= set(data)
    assert data["divergences"][0]["matched_share"] == 40 / LENGTH


def test_early_divergences_on_many_prompts_are_called_lossy_or_another_model() -> None:
    identity = compare_outputs(pairs({i: i % 6 for i in range(20)}))  # 20 of 64 within the first 6 tokens
    assert identity.judge() == EARLY and len(identity.early) == 20
    assert "lossy acceptance or a different model" in identity.judgement_words()
    assert "20 of 64 prompts" in identity.judgement_words()


def test_an_early_divergence_or_two_is_what_rounding_gives_and_is_named() -> None:
    identity = compare_outputs(pairs({**REAL_LIKE, 3: 2, 7: 15}))  # 2 of 64: within 5%
    assert identity.judge() == LATE and len(identity.early) == 2
    assert "not evidence of a lossy tier (2 within the first 16 tokens: code #4, code #8" in identity.judgement_words()


def test_more_early_divergences_than_rounding_gives_are_inconclusive_and_named() -> None:
    identity = compare_outputs(pairs({**REAL_LIKE, 3: 2, 7: 15, 9: 0, 11: 5}))  # 4 of 64: over 5%, under 25%
    assert identity.judge() == MIXED and len(identity.early) == 4
    assert "4 of 64 prompts diverge within the first 16 tokens (code #4, code #8, code #10, code #12)" \
        in identity.judgement_words()
    # few prompts: one early divergence of four is neither rounding's share nor enough to call lossy
    assert compare_outputs(pairs({0: 3}, prompts=4)).judge() == MIXED
    assert compare_outputs(pairs({0: 3, 1: 3}, prompts=8)).judge() == EARLY


def test_characters_have_their_own_early_limit_when_the_streams_gave_no_tokens() -> None:
    # tokens of 5-6 characters: token 10 starts before character 64 (early), token 20 after it (late)
    early = compare_outputs(pairs({i: 10 for i in range(30)}, logprobs=False))
    late = compare_outputs(pairs({i: 20 for i in range(30)}, logprobs=False))
    assert early.unit == late.unit == "character"
    assert early.divergences[0]["position"] < EARLY_BEFORE["character"] <= late.divergences[0]["position"]
    assert early.judge() == EARLY and late.judge() == LATE
    assert "64 characters" in early.judgement_words()


def test_identical_outputs_and_nothing_compared() -> None:
    assert compare_outputs(pairs({})).judge() == IDENTICAL
    assert compare_outputs([]).judge() is None and compare_outputs([]).to_dict()["first_divergence"] is None


def test_answers_are_not_called_prompts_when_a_prompt_was_sent_more_than_once() -> None:
    # at --concurrency 1,4 (or --repeats) each prompt is answered more than once: "38 of 38 prompts identical"
    # was said of an 18-prompt file
    from commands.probe_text import identity_line

    twice = pairs({}, prompts=9) + pairs({0: 2}, prompts=9)
    for r in twice[18:]:
        r.repeat = 1
    identity = compare_outputs(twice)
    assert (identity.compared, identity.prompts) == (18, 9)
    line = identity_line(identity)
    assert "17 of 18 answers (9 prompts) identical" in line and "18 prompts" not in line
    assert "of 64 prompts identical" in identity_line(compare_outputs(pairs({})))
