"""The brief: one page a manager reads in a minute, per fast tier in plain words.

For each tier that runs (or may run) speculative decoding: the recommendation (take it / take it only for
these classes / do not take it / undecided: measure more), the measured speed against the claim, what it
costs over the standard tier, and what to ask the vendor for. The words come from the comparison only; the
Excel report's Brief sheet and the window's PDF print the same rows.

What to ask for is the acceptance to guarantee (the price break-even α of the mix; where a class is a profile or a
length, the mix's price break-even acceptance length at the tier's K: model/comparison/guarantee.py) and the fair price (the
comparison's: list prices times speedup over the baseline / price ratio), with the pessimistic end of the
interval to open at where there is one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from model.mechanics import arithmetic as ar
from model.common import formatting as fmt
from model.comparison.result import Comparison
from model.comparison.guarantee import LENGTH_UNIT
from model.acceptance.interval import MIN_REQUESTS
from model.comparison.measured_speed import AGREES
from model.comparison.verdicts import NOT_WORTH, TOO_FEW_LABEL, UNDECIDED, WORTH
from model.workbook.rows import Workbook

TAKE, TAKE_SOME, DO_NOT, UNDECIDED_WORDS = ("take it", "take it only for these classes", "do not take it",
                                            "undecided: measure more")
# how each recommendation is coloured where it is shown (the report's verdict looks)
LOOKS = {TAKE: "gain", TAKE_SOME: "marginal", DO_NOT: "tax", UNDECIDED_WORDS: "undecided"}


@dataclass(frozen=True)
class BriefTier:
    tier: str
    vendor: str
    recommendation: str  # one of TAKE, TAKE_SOME, DO_NOT, UNDECIDED_WORDS
    why: str  # the classes it pays on, or what is missing
    speed: str  # measured speed against the claim (and the model's)
    cost: str  # what it costs over the standard tier
    ask: str  # what to ask the vendor for

    @property
    def look(self) -> str:
        # the longest words first: "take it only for these classes: ..." also starts with "take it"
        return next(LOOKS[w] for w in sorted(LOOKS, key=len, reverse=True) if self.recommendation.startswith(w))


def brief(wb: Workbook, cmp: Comparison) -> list[BriefTier]:
    """One entry per fast tier (speculative yes or unknown, or incomplete), in the workbook's order."""
    out = []
    for i, tier in enumerate(wb.tiers):
        incomplete = cmp.incomplete[i] if cmp.incomplete else ""
        if not cmp.speculative[i] and not incomplete:
            continue
        rec, why = _recommendation(cmp, i, incomplete)
        if not incomplete and _basis(cmp, i):
            why += f" The verdict rests on {_basis(cmp, i)}."
        few = [] if incomplete else cmp.too_few_classes(i)
        if few:  # the point's verdict on those classes, no interval decided it: not as firm as the rest
            why += (f" On {_names(few)} it rests on {TOO_FEW_LABEL} for an interval (under {MIN_REQUESTS} prompts): "
                    "measure more before relying on it there.")
        if cmp.unconfirmed[i] and not incomplete:
            why += " The vendor has not confirmed it runs speculative decoding: a probe tells (Tools > Probe a tier)."
        speed_terms, cost_terms = _terms(cmp, i)
        out.append(BriefTier(tier.name, tier.vendor, rec, why, _speed(cmp, i) + speed_terms, _cost(cmp, i) + cost_terms,
                             _ask(cmp, i)))
    return out


def _classes(cmp: Comparison, i: int, verdict: int) -> list[str]:
    return [c for j, c in enumerate(cmp.class_names) if int(cmp.value_verdict[i, j]) == verdict]


_LISTED = 6  # classes named in a sentence; a longer list is counted, the rest is on the Comparison sheet


def _names(names: list[str]) -> str:
    if len(names) > _LISTED:
        return f"{len(names)} classes ({', '.join(names[:_LISTED - 2])} and {len(names) - _LISTED + 2} more)"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _recommendation(cmp: Comparison, i: int, incomplete: str) -> tuple[str, str]:
    if incomplete:
        return UNDECIDED_WORDS, f"Its mechanics are not known ({incomplete}): ask the vendor, then enter them."
    if int(cmp.baseline_index[i]) < 0:
        return UNDECIDED_WORDS, "It is not priced against a standard tier: set its baseline."
    if cmp.baseline_withheld(i):  # its baseline's speed was made up: nothing to judge the price against
        return UNDECIDED_WORDS, (f"No speed over its baseline to judge ({cmp.baseline_withheld(i)}): ask the "
                                 "vendor for that tier's mechanics, then enter them.")
    if not cmp.class_names:
        return UNDECIDED_WORDS, "The workbook has no task classes: enter the workload."
    worth, not_worth, open_ = (_classes(cmp, i, v) for v in (WORTH, NOT_WORTH, UNDECIDED))
    tier_value = int(cmp.tier_value_verdict[i])
    if tier_value == UNDECIDED or (open_ and not worth):
        return UNDECIDED_WORDS, (f"Whether the speed pays its price is not settled on {_names(open_)}: measure more "
                                 "requests there." if open_ else "The mix is too close to its price break-even to "
                                 "tell: measure more requests.")
    if worth and not not_worth and not open_:
        return TAKE, f"The speed over {cmp.tier_names[int(cmp.baseline_index[i])]} pays its price on every class."
    if worth:
        return f"{TAKE_SOME}: {_names(worth)}", (  # the classes it pays on are in the recommendation
            f"It does not pay its price on {_names(not_worth or open_)}"
            + (" (not settled there: measure more)." if open_ and not not_worth else "."))
    return DO_NOT, "On no class does the speed over the standard tier pay for the price over it."


def _speed(cmp: Comparison, i: int) -> str:
    claimed = float(cmp.claimed_speedup[i])
    claim = (f"Claimed {fmt.times(claimed)} at {fmt.context(cmp.claim_context[i])}" if math.isfinite(claimed)
             else "No speed claimed")
    m = cmp.tier_parts[i].measured
    if m.measured is not None:
        where = f" ({m.note})" if m.note else ""
        text = f"{claim}; measured {fmt.times(m.measured)}{where}"
        if math.isfinite(claimed):
            text += ": short of the claim" if m.measured < claimed * 0.95 else ": it meets the claim"
        if m.modelled is not None:
            text += f". The model expected {fmt.times(m.modelled)}" + (f". {m.doubt}" if m.doubt else ".")
        return text if text.endswith(".") else text + "."
    if cmp.made_up(i):  # compare() models no speed from made-up mechanics
        return (f"{claim}; no modelled speed until its mechanics are entered. Not measured: probe it "
                "(Tools > Probe a tier).")
    mix = float(cmp.mix_speedup[i])
    holds = cmp.claim_holds[i]
    held = "" if holds is None else ("; the model says it holds" if holds else "; the model says it does not hold")
    return f"{claim}; modelled {fmt.times(mix)} on your mix{held}. Not measured: probe it (Tools > Probe a tier)."


def _basis(cmp: Comparison, i: int) -> str:
    """The speed the verdict and the fair price rest on (the model's), in words, where a measured one
    disagrees with it; '' where none was measured or the two agree. The analyst must not read the
    measured speed in the Speed line as the one the price was worked from."""
    m = cmp.tier_parts[i].measured
    if m.measured is None or m.modelled is None or m.agreement in ("", AGREES):
        return ""
    return (f"the modelled speed {fmt.times(m.modelled)}; the measured {fmt.times(m.measured)} differs: "
            "see Speed")


def _cost(cmp: Comparison, i: int) -> str:
    money = fmt.money(float(cmp.monthly_cost[i]), cmp.currency)
    b = int(cmp.baseline_index[i])
    if b < 0:
        return f"{money} a month; no standard tier to compare with."
    base = fmt.money(float(cmp.monthly_cost[b]), cmp.currency)
    premium = float(cmp.premium[i])
    over = f"{fmt.signed_pct(premium, 0)} over" if math.isfinite(premium) else "against"
    return f"{money} a month, {over} {cmp.tier_names[b]} ({base})."


def _terms(cmp: Comparison, i: int) -> tuple[str, str]:
    """What the vendor's terms add to the Speed and Cost lines (docs/design/vendor-terms.md): the downgraded share
    (the speed and the bill above are as served), the SLA's verdict, and the date of list prices."""
    speed, cost = "", ""
    d = float(cmp.downgraded_share[i]) if cmp.downgraded_share is not None else math.nan
    if math.isfinite(d) and d > 0:
        speed += (f" As served: {fmt.pct(d, 0)} of fast requests at standard speed, so your mix runs "
                  f"{fmt.times(float(cmp.mix_speedup[i]))} ({fmt.times(float(cmp.mix_speedup_fast[i]))} on the fast ones).")
        cost += " Downgraded requests billed at the standard price."
    if cmp.sla and cmp.sla[i]:
        speed += f" {cmp.sla[i]}."
    if cmp.price_source and cmp.price_source[i]:
        cost += f" Prices: {cmp.price_source[i]}."
    return speed, cost


def _ask(cmp: Comparison, i: int) -> str:
    """What to ask the vendor for: the acceptance to guarantee (the mix's price break-even), then the price."""
    g = cmp.tier_parts[i].guarantee
    kind = g.kind
    if kind == ar.ROOT and g.unit == LENGTH_UNIT:
        # a profile or a length: the guarantee in tokens per verify step, the unit that holds for any draft
        text = (f"A guaranteed mean acceptance length of at least {g.value:.2f} tokens per verify step at K={g.k} "
                f"on your mix (the price pays from there; it runs like {g.runs_like:.2f} now).")
    elif kind == ar.ROOT:
        text = (f"A guaranteed acceptance of at least {fmt.pct(g.value, 0)} on your mix (the price pays from there; "
                f"it runs like {fmt.pct(g.runs_like, 0)} now).")
    elif kind == ar.ALWAYS:
        text = "The price pays at any acceptance: nothing to guarantee."
    elif kind == ar.NEVER:
        text = f"No acceptance makes this price pay at K={int(cmp.k[i])}: ask for a lower price."
    elif cmp.made_up(i) or cmp.baseline_withheld(i):
        whose = "its" if cmp.made_up(i) else f"{cmp.tier_names[int(cmp.baseline_index[i])]}'s"
        text = f"First {whose} K and cost inputs (c and v, or GPU and pair), and whether it runs speculative decoding."
    else:
        text = "Set a standard tier and the workload first."
    price = _ask_price(cmp, i)
    return f"{text} {price}".strip()


def _ask_price(cmp: Comparison, i: int) -> str:
    """The fair price (the price at which the speed over the baseline is exactly worth it), and the pessimistic
    end of the interval to open the negotiation at where one differs; '' where there is none."""
    factor = float(cmp.fair_price_factor[i])
    if not math.isfinite(factor) or factor <= 0:
        return ""
    cur = cmp.currency

    def prices(out: float, inp: float, f: float) -> str:
        return f"{fmt.money(out, cur, 2)} out, {fmt.money(inp, cur, 2)} in ({fmt.times(f)} list)"

    text = (f"Its speed is worth up to {prices(float(cmp.fair_price_out[i]), float(cmp.fair_price_in[i]), factor)} "
            "per 1M tokens")
    if _basis(cmp, i):
        text += f" (on {_basis(cmp, i)})"
    low = float(cmp.fair_price_factor_low[i])
    if math.isfinite(low) and 0 < low and fmt.times(low) != fmt.times(factor):
        text += (f"; open the negotiation at {prices(float(cmp.fair_price_out_low[i]), float(cmp.fair_price_in_low[i]), low)}, "
                 f"the cautious end of {_range_words(cmp, i)}")
    return text + "."


def _range_words(cmp: Comparison, i: int) -> str:
    """Whose range the pessimistic end comes from: a range typed beside an assumed acceptance is not a
    measurement (the brief said 'the measured range' of the demo with typed ranges)."""
    sources = [cmp.alpha_source[i][j] for j in range(len(cmp.class_names)) if math.isfinite(cmp.speedup_low[i, j])]
    assumed = sum(src.startswith("assumed") for src in sources)
    if assumed == len(sources):
        return "the range assumed for the acceptance"
    return "the measured range" if not assumed else "the acceptance's ranges (measured and assumed)"


def brief_records(wb: Workbook, cmp: Comparison) -> list[dict[str, Any]]:
    return [{"tier": b.tier, "vendor": b.vendor, "recommendation": b.recommendation, "why": b.why,
             "speed": b.speed, "cost": b.cost, "ask": b.ask} for b in brief(wb, cmp)]
