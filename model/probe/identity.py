"""Quality, controlled: at temperature 0, is the fast tier's output the baseline's, token for token?

A lossless fast tier on the same target returns the standard tier's tokens in exact arithmetic, but real
engines (llama.cpp, vLLM, SGLang) do not promise bitwise-identical greedy output across batch shapes: the
target verifying K drafted tokens in one batch rounds differently from decoding one token at a time, so
on a near-tie between the top two logits the argmax can flip. Such a flip is rare per token, so it lands
LATE, after a long identical prefix, and on a minority of prompts. A lossy acceptance rule (one that
keeps draft tokens the target would not pick) or another model diverges EARLY: the draft disagrees with
the target on 1 - alpha of positions, a fifth to a half in practice, so the first kept mismatch comes
within a few verify steps.

Tokens are compared when both streams gave them (logprobs), else the text, character by character, and
the unit is said. The judgement, per run (`judge`):

- a divergence is EARLY when it starts before the first EARLY_BEFORE units: 16 tokens, or 64 characters
  (about 16 tokens of English or code at ~4 characters per token). 16 tokens is two to four verify
  steps at the usual K of 4-8, so a lossy rule that keeps a token the target would not pick at 10% of
  positions does so within it on 1 - 0.9^16 = 81% of prompts; a rounding flip, at the per-token rate that leaves ~80% of 256-token
  outputs identical (~0.1%), lands there on ~1-2% of prompts.
- "identical": no divergence.
- "late": divergences, and early ones no more than rounding explains: at most ROUNDING_EARLY_SHARE (5%) of
  the compared prompts, at least one (about three times the ~1.5% rate above, so a lossless 64-prompt run
  is called late about 98 times in 100; insisting on none would call more than half of such runs mixed).
  Consistent with floating-point differences between batched verify and single decode, not evidence of a
  lossy tier.
- "early": more early divergences than that, on at least LOSSY_SHARE (a quarter) of the compared prompts,
  below the 1 - 0.97^16 = 39% even a rule keeping wrong tokens at 3% of positions gives: a lossy
  acceptance rule or a different model.
- "mixed": in between (on 64 prompts, 4 to 15 early): the run cannot tell; the prompts are named to look at.

What the rule cannot see: a lossy rule that errs on well under 1% of tokens also diverges late; its
effect on the output is then as small as rounding's.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Sequence

from model.probe.events import BASELINE, FAST, RequestRecord

EARLY_BEFORE = {"token": 16, "character": 64}
LOSSY_SHARE = 0.25
ROUNDING_EARLY_SHARE = 0.05
IDENTICAL, LATE, EARLY, MIXED = "identical", "late", "early", "mixed"


@dataclass
class Identity:
    compared: int = 0
    identical: int = 0
    divergences: list[dict[str, Any]] = field(default_factory=list)
    prompts: int = 0  # distinct prompts among the compared answers (fewer with repeats, contexts, load levels)

    def answers_words(self) -> str:
        """The compared answers in words: "64 prompts", or "96 answers (48 prompts)" where a prompt was answered
        more than once."""
        if self.compared == self.prompts:
            return f"{self.compared} prompt{'s' if self.compared != 1 else ''}"
        return f"{self.compared} answer{'s' if self.compared != 1 else ''} ({self.prompts} prompts)"

    @property
    def share(self) -> float | None:
        return self.identical / self.compared if self.compared else None

    @property
    def early(self) -> list[dict[str, Any]]:
        return [d for d in self.divergences if d["position"] < EARLY_BEFORE[d["unit"]]]

    @property
    def unit(self) -> str:
        """The unit positions are in: "token", "character", or "token/character" when the pairs differ."""
        units = sorted({d["unit"] for d in self.divergences}, reverse=True)
        return "/".join(units) if units else "token"

    def judge(self) -> str | None:
        """IDENTICAL, LATE, EARLY or MIXED by the rule in the module docstring; None with nothing compared."""
        if not self.compared:
            return None
        if not self.divergences:
            return IDENTICAL
        early, lossy = len(self.early), LOSSY_SHARE * self.compared
        allowance = max(1, int(ROUNDING_EARLY_SHARE * self.compared))
        if early <= allowance and early < lossy:
            return LATE
        return EARLY if early >= lossy and early > allowance else MIXED

    def first_divergence(self) -> dict[str, Any] | None:
        """Median, least and greatest first divergent position, and the median share of the baseline before it."""
        if not self.divergences:
            return None
        at = [d["position"] for d in self.divergences]
        shares = [d["matched_share"] for d in self.divergences if d.get("matched_share") is not None]
        return {"median": statistics.median(at), "min": min(at), "max": max(at), "unit": self.unit,
                "matched_share_median": statistics.median(shares) if shares else None}

    def span_words(self) -> str:
        """The first divergent positions' range, e.g. "token 40–310"; "" with no divergence."""
        first = self.first_divergence()
        if first is None:
            return ""
        span = f"{first['min']}" if first["min"] == first["max"] else f"{first['min']}–{first['max']}"
        return f"{first['unit']} {span}"

    def position_words(self) -> str:
        """Where divergences start, e.g. "token 40–310 (median 151), after 62% of the baseline's output (median)"."""
        first = self.first_divergence()
        if first is None:
            return ""
        words = f"{self.span_words()} (median {first['median']:g})"
        share = first["matched_share_median"]
        return words + ("" if share is None else f", after {share:.0%} of the baseline's output (median)")

    def judgement_words(self) -> str:
        """What the divergences support, in words (the CLI and JSON; the dock has its short form)."""
        verdict = self.judge()
        if verdict == IDENTICAL:
            return "every output identical: lossless on this evidence"
        early = self.early
        where = ", ".join(f"{d['task_class']} #{d['prompt_index'] + 1}" for d in early[:5])
        if verdict == LATE:
            rest = (f" ({len(early)} within the first {early_limit_words(early)}: {where}, as rounding does on a "
                    "prompt in 50 or so)" if early else f" (none within the first {early_limit_words(self.divergences)})")
            return ("consistent with floating-point differences between batched verify and single decode, "
                    "not evidence of a lossy tier" + rest)
        if verdict == EARLY:
            return (f"diverges within the first {early_limit_words(early)} on {len(early)} of {self.answers_words()}: "
                    "lossy acceptance or a different model")
        if verdict == MIXED:
            return (f"{len(early)} of {self.answers_words()} diverge within the first {early_limit_words(early)} "
                    f"({where}): more than rounding gives, fewer than a lossy rule; look at those outputs")
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {"share": self.share, "compared": self.compared, "prompts": self.prompts, "identical": self.identical,
                "divergences": self.divergences, "judgement": self.judge(), "judgement_words": self.judgement_words(),
                "first_divergence": self.first_divergence(), "early": len(self.early),
                "early_before": dict(EARLY_BEFORE), "lossy_share": LOSSY_SHARE,
                "rounding_early_share": ROUNDING_EARLY_SHARE}


def early_limit_words(divergences: list[dict[str, Any]]) -> str:
    """The early limit in the units these divergences were measured in: "16 tokens", "64 characters" or both."""
    units = sorted({d["unit"] for d in divergences}, reverse=True) or ["token"]
    return " or ".join(f"{EARLY_BEFORE[u]} {u}s" for u in units)


def first_difference(a: Sequence[str], b: Sequence[str]) -> int | None:
    """Index of the first position where a and b differ (one ending early counts), or None if equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare_outputs(records: Sequence[RequestRecord]) -> Identity:
    """Pair fast and baseline requests on (prompt, context, repeat) and compare their outputs; only greedy ones
    (a sample at a temperature is the quality test's, model/probe/quality_records.py)."""
    key = lambda r: (r.prompt_index, r.context, r.repeat)  # noqa: E731
    greedy = [r for r in records if r.ok and not (r.temperature or 0) > 0]
    baseline = {key(r): r for r in greedy if r.role == BASELINE}
    result = Identity()
    prompts: set[int] = set()
    for fast in (r for r in greedy if r.role == FAST):
        base = baseline.get(key(fast))
        if base is None:
            continue
        prompts.add(fast.prompt_index)
        result.prompts = len(prompts)
        a, b = fast.output_tokens, base.output_tokens
        unit = "token"
        if a is None or b is None:
            a, b, unit = list(fast.output_text), list(base.output_text), "character"
        result.compared += 1
        at = first_difference(a, b)
        if at is None:
            result.identical += 1
        else:
            # the baseline is the reference: how much of what it said the fast tier had repeated exactly
            result.divergences.append({"task_class": fast.task_class, "prompt_index": fast.prompt_index,
                                       "context": fast.context, "repeat": fast.repeat, "position": at,
                                       "unit": unit, "baseline_length": len(b),
                                       "matched_share": at / len(b) if b else None})
    return result
