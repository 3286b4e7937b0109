"""Acceptance figures as vendors and engines state them, each convention named with who prints it, and converted.

"Acceptance rate 62%", "2.8 tokens per step", "80% draft acceptance" mean different things: per-token alpha, accepted
over drafted tokens, accepted tokens with the bonus over steps x (K + 1), tokens per verify step with or without the
bonus, a per-position rate (conditional or cumulative). A `StatedFigure` is one such number with what it means; it
is converted to every other convention through E, the mean acceptance length at K, and alpha, the i.i.d. per-token
rate, and each conversion says what it assumed (docs/reference/stated-acceptance.md). Plain Python + the core
arithmetic; no workbook here (model/workbook/assume_stated.py applies a figure to a class or an override).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from model.mechanics import arithmetic as ar
from model.common.formatting import finite_or_none

MAX_K = 64


@dataclass(frozen=True)
class Convention:
    key: str
    name: str
    formula: str
    printed_by: str  # the engines and versions that print a figure in this convention
    needs_k: bool  # converting it to the others needs K
    is_rate: bool  # a number in 0..1 (else tokens per step)


CONVENTIONS: tuple[Convention, ...] = (
    Convention("alpha", "per-token alpha", "P(a draft token is accepted), i.i.d. along the stretch",
               "SpecLedger; speculative-decoding papers (Leviathan et al.'s alpha)", False, True),
    Convention("draft_rate", "draft acceptance rate", "accepted drafts / drafted tokens = (E - 1) / K",
               "vLLM V1 'Draft acceptance rate' and vllm bench 'Acceptance rate (%)'; llama.cpp 'draft acceptance'; "
               "SGLang after 0.5.x 'accept rate' / spec_accept_rate; TensorRT-LLM acceptance_rate and trtllm-bench [DAR]",
               True, True),
    Convention("rate_with_bonus", "accepted including the bonus / (steps x (K + 1))", "E / (K + 1)",
               "SGLang 0.5.x 'accept rate' (Decode batch lines, sglang:spec_accept_rate); vLLM V0 'System efficiency'",
               True, True),
    Convention("any_position", "accepted positions / drafted (any position)",
               "draft tokens accepted anywhere, even after a rejection, over those drafted: alpha under i.i.d.",
               "vLLM V0 'Draft acceptance rate'", False, True),
    Convention("length", "tokens per verify step, bonus included (mean acceptance length)", "E = 1 + accepted / steps",
               "vLLM 'Mean acceptance length'; SGLang 'accept len' / spec_accept_length; llama.cpp 'mean acceptance "
               "length' / 'mean len'; TensorRT-LLM acceptance length; trtllm-bench [AL] and its 'acceptance rate'; "
               "Spec-Bench '#Mean Accepted Tokens'; EAGLE's tau", False, False),
    Convention("length_excl_bonus", "accepted drafts per verify step, bonus excluded", "E - 1 = accepted / steps",
               "vendors' and papers' 'accepted tokens per step' where the bonus token is left out", False, False),
    Convention("position_conditional", "per-position rate, conditional",
               "P(draft i accepted | drafts before it accepted); alpha at every position under i.i.d.",
               "SpecLedger's per-position profile; EAGLE-style per-position acceptance tables", False, True),
    Convention("position_cumulative", "per-position rate, cumulative",
               "steps accepting drafts 1..i / steps = alpha^i under i.i.d.",
               "vLLM 'Per-position acceptance rate' and vllm bench 'Position i'; llama.cpp 'acceptance rate per "
               "position' / '#acc rate/pos'", False, True),
)
BY_KEY = {c.key: c for c in CONVENTIONS}

# "rate" alone means different things per engine (and version): what each one prints under that word
RATE_BY_ENGINE = {"vllm": "draft_rate", "vllm-v0": "any_position", "sglang": "draft_rate", "sglang-0.5": "rate_with_bonus",
                  "llamacpp": "draft_rate", "llama.cpp": "draft_rate", "trtllm": "draft_rate", "tensorrt-llm": "draft_rate",
                  "trtllm-bench": "length"}
_ALIASES = {"al": "length", "tokens_per_step": "length", "mean_acceptance_length": "length", "e": "length",
            "accepted_per_step": "length_excl_bonus", "per_position": "position_conditional",
            "cumulative": "position_cumulative", "conditional": "position_conditional", "a": "alpha",
            "acceptance_length": "length", "system_efficiency": "rate_with_bonus"}


class StatedError(ValueError):
    """A stated figure that cannot be read or converted; one line naming what is wrong."""


@dataclass(frozen=True)
class StatedFigure:
    value: float  # a rate in 0..1, or tokens per step
    convention: str  # a key of CONVENTIONS
    k: int | None = None
    position: int | None = None  # 1-based, for the per-position conventions
    engine: str = ""
    source: str = ""  # where it was stated ("Acme slides, p. 4")

    @property
    def words(self) -> str:
        c = BY_KEY[self.convention]
        shown = f"{100 * self.value:g}%" if c.is_rate else f"{self.value:g}"
        at = f" at position {self.position}" if self.position else ""
        return (f"{shown} {c.name}{at}" + (f" at K = {self.k}" if self.k else "")
                + (f" ({self.engine})" if self.engine else "") + (f", {self.source}" if self.source else ""))


@dataclass
class Conversion:
    """The figure in every convention: a value, or None with why not; the assumptions made."""

    figure: StatedFigure
    alpha: float | None
    length: float | None  # E at K
    values: dict[str, float | None] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        f = self.figure
        return {"stated": {"value": f.value, "convention": f.convention, "k": f.k, "position": f.position,
                           "engine": f.engine or None, "source": f.source or None, "words": f.words},
                "conventions": [{"convention": c.key, "name": c.name, "formula": c.formula, "printed_by": c.printed_by,
                                 "value": finite_or_none(self.values.get(c.key)), "why_not": self.missing.get(c.key)}
                                for c in CONVENTIONS],
                "alpha": finite_or_none(self.alpha), "mean_acceptance_length": finite_or_none(self.length), "k": f.k,
                "assumptions": list(self.assumptions)}


def parse(text: str) -> StatedFigure:
    """'rate=0.62,k=4,engine=vllm', 'length=2.8,k=4', 'value=62%,convention=draft_rate,k=4', or the same as JSON."""
    text = text.strip()
    if text.startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StatedError(f"not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise StatedError("expected a JSON object such as {\"rate\": 0.62, \"k\": 4, \"engine\": \"vllm\"}")
        return from_fields(obj)
    fields: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise StatedError(f"{part.strip()!r}: expected NAME=VALUE (e.g. rate=0.62,k=4,engine=vllm)")
        fields[key.strip().lower()] = value.strip()
    return from_fields(fields)


def _number(raw: Any, name: str) -> float:
    text = str(raw).strip()
    percent = text.endswith("%")
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise StatedError(f"{name}: {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise StatedError(f"{name}: {text!r} is not a figure (negative, NaN or infinite)")
    return value / 100.0 if percent else value


def _whole(raw: Any, name: str, low: int, high: int) -> int:
    value = _number(raw, name)
    if value != int(value) or not low <= value <= high:
        raise StatedError(f"{name}: {raw!r} is not a whole number from {low} to {high}")
    return int(value)


def from_fields(fields: Mapping[str, Any]) -> StatedFigure:
    f = {str(k).strip().lower(): v for k, v in fields.items()}
    engine = str(f.pop("engine", "") or "").strip()
    source = str(f.pop("source", "") or "").strip()[:200]
    raw_k = f.pop("k", None)
    k = _whole(raw_k, "k", 1, MAX_K) if raw_k not in (None, "") else None
    raw_position = f.pop("position", None)
    raw_position = f.pop("pos", None) if raw_position in (None, "") else raw_position
    f.pop("pos", None)
    position = _whole(raw_position, "position", 1, MAX_K) if raw_position not in (None, "") else None
    convention = str(f.pop("convention", "") or "").strip().lower()
    convention = _ALIASES.get(convention, convention)
    if "value" in f:
        raw = f.pop("value")
    else:
        named = [key for key in f if key in BY_KEY or key in _ALIASES or key == "rate"]
        if len(named) != 1:
            raise StatedError("name one figure: alpha=, rate= (with engine=), draft_rate=, rate_with_bonus=, length=, "
                              "length_excl_bonus=, position_conditional= or position_cumulative= (with pos=), "
                              f"or value= with convention={'|'.join(BY_KEY)}")
        key = named[0]
        raw = f.pop(key)
        if key == "rate":
            convention = _rate_convention(engine)
        else:
            convention = _ALIASES.get(key, key)
    if f:
        raise StatedError(f"unknown field {sorted(f)[0]!r}; the fields are the figure, k, pos, engine, source")
    if convention not in BY_KEY:
        raise StatedError(f"convention {convention!r} is none of {', '.join(BY_KEY)}")
    c = BY_KEY[convention]
    value = _number(raw, c.key)
    if c.is_rate and value > 1:
        raise StatedError(f"{c.key}: {value:g} is above 1 (100%), which a rate cannot be")
    if convention in ("position_conditional", "position_cumulative") and position is None:
        position = 1
    if convention not in ("position_conditional", "position_cumulative"):
        position = None
    if k is not None and position is not None and position > k:
        raise StatedError(f"position {position} is past K = {k}")
    return StatedFigure(value=value, convention=convention, k=k, position=position, engine=engine, source=source)


def _rate_convention(engine: str) -> str:
    key = engine.strip().lower().replace(" ", "-").replace("_", "-")
    if key in ("sglang-0.5.x", "sglang-0.5", "sglang0.5"):
        key = "sglang-0.5"
    if key not in RATE_BY_ENGINE:
        raise StatedError("rate= means different things per engine: give engine= (one of "
                          f"{', '.join(sorted(RATE_BY_ENGINE))}) or the convention itself (draft_rate=, rate_with_bonus=, "
                          "alpha=, ...)")
    return RATE_BY_ENGINE[key]


def convert(figure: StatedFigure, k: int | None = None) -> Conversion:
    """The figure in every convention at its K (or ``k`` where it states none), with the assumptions made."""
    at = figure.k if figure.k is not None else k
    c, v = BY_KEY[figure.convention], figure.value
    assumptions: list[str] = []
    if at is not None and figure.k is None:
        assumptions.append(f"K = {at} taken: the figure states none")
    alpha: float | None = None
    length: float | None = None
    if figure.convention in ("alpha", "any_position", "position_conditional"):
        alpha = v
        if figure.convention != "alpha":
            assumptions.append("i.i.d. acceptance: every draft position accepted with the same alpha, independently")
    elif figure.convention == "position_cumulative":
        alpha = v ** (1.0 / (figure.position or 1))
        assumptions.append(f"i.i.d. acceptance: the cumulative rate at position {figure.position or 1} is "
                           f"alpha^{figure.position or 1}")
    elif figure.convention in ("length", "length_excl_bonus"):
        length = v + (1.0 if figure.convention == "length_excl_bonus" else 0.0)
        if length < 1.0:
            raise StatedError(f"{v:g} tokens a step is below 1, which a verify step always emits")
    elif at is not None:
        length = 1.0 + v * at if figure.convention == "draft_rate" else v * (at + 1)
        assumptions.append(f"every draft K = {at} long (a draft cut short makes the rate's steps fewer)")
    if at is not None:
        if length is None and alpha is not None:
            length = float(ar.expected_tokens(alpha, at))
        if length is not None and length > at + 1 + 1e-9:
            raise StatedError(f"{length:g} tokens a step cannot occur at K = {at} (at most K + 1)")
        if alpha is None and length is not None:
            solve = ar.mean_acceptance_length_to_alpha(length, at)
            alpha = 1.0 if int(solve.kind) == ar.NEVER else float(solve.alpha)
            assumptions.append("alpha is the i.i.d. rate whose E at K equals the mean acceptance length (a summary "
                               "where acceptance falls along the stretch)")
    out = Conversion(figure=figure, alpha=alpha, length=length, assumptions=assumptions)
    for conv in CONVENTIONS:
        value, why = _value(conv.key, alpha, length, at, figure)
        out.values[conv.key] = value
        if why:
            out.missing[conv.key] = why
    out.values[c.key] = v  # the stated figure itself, as stated
    out.missing.pop(c.key, None)
    return out


def _value(key: str, alpha: float | None, length: float | None, k: int | None,
           figure: StatedFigure) -> tuple[float | None, str | None]:
    if key in ("alpha", "any_position", "position_conditional"):
        return (alpha, None) if alpha is not None else (None, "needs K (the figure converts to alpha only at a K)")
    if key == "position_cumulative":
        i = figure.position or 1
        return (alpha ** i, None) if alpha is not None else (None, "needs K")
    if key in ("length", "length_excl_bonus"):
        if length is None:
            return None, "needs K"
        return (length if key == "length" else length - 1.0), None
    if k is None or length is None:
        return None, "needs K"
    return ((length - 1.0) / k if key == "draft_rate" else length / (k + 1)), None
