"""The brief: one printed page a manager reads, per fast tier in plain words.

For each fast tier (one that runs, or may run, speculative decoding and is not itself another tier's standard
tier): the recommendation in one line (take it / take it only for some classes / do not take it / undecided:
measure more) with its reason, then one line each in BRIEF_LINES' order: the speed measured against the
vendor's claim, what it costs over the standard tier, and the one price to ask for, in money. The acceptance a
vendor would have to guarantee, the intervals and every task class stay on the report's detail sheets, which a
footnote names. The Excel report's Brief sheet and the window's PDF print the same entries.

Where a probe's measured speed and the model's differ (model/comparison/measured_speed.py), the brief goes by
the measured one, says the model is doubted, and works the recommendation and the price from the measurement
(its speed over the standard tier against the price ratio, docs/design/verdicts.md#the-fair-price).

A new line is one entry in BRIEF_LINES: a label and a function of (Comparison, tier index) giving its text, ""
where the line says nothing for that tier (it is then left out).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from model.common import formatting as fmt
from model.comparison.measured_speed import ABOVE, BELOW
from model.comparison.quality import flagged, quality_line
from model.comparison.result import Comparison
from model.comparison.terms import as_served
from model.comparison.verdicts import NOT_WORTH, TOO_FEW_LABEL, UNDECIDED, WORTH
from model.workbook.rows import Workbook

TAKE, TAKE_SOME, DO_NOT, UNDECIDED_WORDS = ("take it", "take it only for", "do not take it",
                                            "undecided: measure more")
# how each recommendation is coloured where it is shown (the report's verdict looks)
# a tier whose mix waits for a task class nobody filled in: nothing to measure, the workload to finish
NOT_YET = "not judged yet"
LOOKS = {TAKE: "gain", TAKE_SOME: "marginal", DO_NOT: "tax", UNDECIDED_WORDS: "undecided", NOT_YET: "undecided"}
TITLE = "Brief"
# the page's last line: where what the brief leaves out is
FOOTNOTE = ("Details: the acceptance each vendor would have to guarantee for its list price to pay, the ranges "
            "behind every figure and each task class are on the report's Summary and Comparison sheets.")
MAX_ON_A_PAGE = 8  # fast tiers the page is laid out for at a readable size; more run on to a second page


@dataclass(frozen=True)
class BriefTier:
    tier: str
    vendor: str
    recommendation: str  # starts with one of TAKE, TAKE_SOME, DO_NOT, UNDECIDED_WORDS
    why: str  # its reason, one short sentence
    lines: tuple[tuple[str, str], ...]  # (label, text) in BRIEF_LINES' order, empty ones left out

    @property
    def look(self) -> str:
        # the longest words first: "take it only for ..." also starts with "take it"
        return next(LOOKS[w] for w in sorted(LOOKS, key=len, reverse=True) if self.recommendation.startswith(w))

    @property
    def headline(self) -> str:
        """The recommendation line as printed: 'Take it: its speed is worth its price on every task.'"""
        rec = self.recommendation[:1].upper() + self.recommendation[1:]
        return f"{rec}: {self.why}" if self.why else f"{rec}."

    def line(self, label: str) -> str:
        return next((text for name, text in self.lines if name == label), "")

    @property
    def speed(self) -> str:
        return self.line(SPEED)

    @property
    def cost(self) -> str:
        return self.line(COST)

    @property
    def ask(self) -> str:
        return self.line(ASK)


def fast_tiers(wb: Workbook, cmp: Comparison) -> list[int]:
    """The tiers the brief speaks of: speculative (yes or unknown) or with mechanics nobody gave, and not the
    standard tier another tier is priced against (nothing to recommend on a standard tier)."""
    standard = {int(b) for b in cmp.tiers.baseline_index if int(b) >= 0}
    return [i for i in range(len(wb.tiers))
            if (cmp.tiers.speculative[i] or cmp.made_up(i)) and i not in standard]


def brief(wb: Workbook, cmp: Comparison) -> list[BriefTier]:
    """One entry per fast tier (fast_tiers), in the workbook's order."""
    out = []
    for i in fast_tiers(wb, cmp):
        rec, why = _recommendation(cmp, i)
        lines = tuple((label, _priced(wb, cmp, i, text) if label == COST else text)
                      for label, line in BRIEF_LINES if (text := line(cmp, i)))
        out.append(BriefTier(wb.tiers[i].name, wb.tiers[i].vendor, rec, why, lines))
    return out


def _priced(wb: Workbook, cmp: Comparison, i: int, said: str) -> str:
    """The Cost line where a price is one nobody gave (a new row's or a price list's placeholder 0,
    Tier.missing_prices): said so, not '$0 a month' or 'against Helix Standard at $0'."""
    if wb.tiers[i].missing_prices():
        return "Its prices are not given: type its list prices to see what it costs."
    b = int(cmp.tiers.baseline_index[i])
    if b >= 0 and wb.tiers[b].missing_prices():
        money = fmt.money(float(cmp.tiers.monthly_cost[i]), cmp.currency)
        return f"{money} a month; {cmp.tier_names[b]}'s prices are not given, so nothing to compare it with."
    return said


def _names(names: list[str], listed: int = 4) -> str:
    if len(names) > listed:
        return f"{', '.join(names[:listed - 1])} and {len(names) - listed + 1} more classes"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _base_name(cmp: Comparison, i: int) -> str:
    b = int(cmp.tiers.baseline_index[i])
    return cmp.tier_names[b] if b >= 0 else ""


def _measured_over_model(cmp: Comparison, i: int) -> float | None:
    """The measured speed over the standard tier where it and the model's differ (the brief then goes by it)."""
    m = cmp.tier_parts[i].measured
    if m.measured is None or m.agreement not in (ABOVE, BELOW) or int(cmp.tiers.baseline_index[i]) < 0:
        return None
    return m.measured


def _recommendation(cmp: Comparison, i: int) -> tuple[str, str]:
    rec, why = _verdict_words(cmp, i)
    few = [] if cmp.made_up(i) else cmp.too_few_classes(i)
    if few and rec != UNDECIDED_WORDS:
        why += f" On {_names(few)} it rests on {TOO_FEW_LABEL}."
    if cmp.tiers.unconfirmed[i] and not cmp.made_up(i):
        why += " Not confirmed that it drafts: probe it."
    if flagged(cmp, i):  # its speed is not the standard tier's model's: said with the recommendation too
        why += f" {quality_line(cmp, i)}"
    return rec, why


def _verdict_words(cmp: Comparison, i: int) -> tuple[str, str]:
    if cmp.tier_made_up(i):
        return UNDECIDED_WORDS, "how its fast mode runs is not known: probe its speed, or ask the vendor."
    if cmp.mix_waits(i):  # a task class nobody filled in: the workload is not known (docs/design/verdicts.md#a-class-nobody-described)
        return NOT_YET, f"the workload is not filled in ({cmp.mix_waits(i)}): type it in the task classes."
    if int(cmp.tiers.baseline_index[i]) < 0:
        return UNDECIDED_WORDS, "no standard tier to weigh it against: set the one it replaces."
    # prices nobody typed: nothing to measure, a price to type (docs/design/verdicts.md#prices-nobody-gave)
    if cmp.baseline_withheld(i).endswith("prices not given"):
        return NOT_YET, f"{cmp.baseline_withheld(i)}; type the list prices in the Tiers table."
    if cmp.baseline_withheld(i):
        return UNDECIDED_WORDS, f"nothing to weigh its speed against ({cmp.baseline_withheld(i)})."
    if not cmp.class_names:
        return UNDECIDED_WORDS, "the workbook has no task classes: enter the workload."
    if cmp.judged_on_measured(i):
        return _measured_words(cmp, i)
    measured = _measured_over_model(cmp, i)
    ratio = float(cmp.tiers.price_ratio[i])
    if measured is not None and math.isfinite(ratio):
        pays = measured >= ratio
        return (TAKE if pays else DO_NOT), (f"measured at {fmt.times(measured)} the speed of {_base_name(cmp, i)} "
                                            f"for {fmt.times(ratio)} its price.")
    worth, not_worth, open_ = ([c for j, c in enumerate(cmp.class_names) if int(cmp.cells.value_verdict[i, j]) == v]
                               for v in (WORTH, NOT_WORTH, UNDECIDED))
    if int(cmp.tiers.value_verdict[i]) == UNDECIDED or (open_ and not worth):
        return UNDECIDED_WORDS, (f"too close to call on {_names(open_)}." if open_
                                 else "too close to its price to call.")
    if worth and not not_worth and not open_:
        return TAKE, "its speed is worth its price on every task."
    if worth:
        return f"{TAKE_SOME} {_names(worth)}", f"not for {_names(not_worth or open_)}."
    return DO_NOT, "on no task is its speed worth its price."


def _measured_words(cmp: Comparison, i: int) -> tuple[str, str]:
    """A tier judged on its measured speed (model/comparison/on_measured.py): the comparison's value verdict on it,
    the as-served speed with its range against the price ratio."""
    speed = fmt.times_interval(float(cmp.tiers.speedup_vs_baseline[i]), float(cmp.tiers.speedup_vs_baseline_low[i]),
                               float(cmp.tiers.speedup_vs_baseline_high[i]))
    ratio = fmt.times(float(cmp.tiers.price_ratio[i]))
    said = f"measured at {speed} the speed of {_base_name(cmp, i)} as served, for {ratio} its price"
    verdict = int(cmp.tiers.value_verdict[i])
    if verdict == WORTH:
        return TAKE, said + "."
    if verdict == NOT_WORTH:
        return DO_NOT, said + "."
    return UNDECIDED_WORDS, said + ": the range reaches both sides of the price."


def _claim(cmp: Comparison, i: int, speed: float | None) -> str:
    claimed = float(cmp.claims.speedup[i])
    if not math.isfinite(claimed):
        return ""
    said = f"; claimed {fmt.times(claimed)}"
    if speed is None:
        return said
    return said + (" (short of it)" if speed < claimed * 0.95 else " (met)")


def speed_line(cmp: Comparison, i: int) -> str:
    """The measured speed against the claim; the model's where nothing is measured, and doubted where the two
    differ."""
    base = _base_name(cmp, i)
    over = f" over {base}" if base else " over plain decoding"
    m = cmp.tier_parts[i].measured
    if m.measured is not None:
        text = f"Measured {fmt.times(m.measured)}{over}{_claim(cmp, i, m.measured)}."
        if m.agreement in (ABOVE, BELOW) and m.modelled is not None:
            text += f" The model's {fmt.times(m.modelled)} is doubted."
        return text
    if cmp.made_up(i):
        return f"Not known yet{_claim(cmp, i, None)}."
    modelled = float(cmp.tiers.speedup_vs_baseline[i]) if base else float(cmp.tiers.mix_speedup[i])
    if not math.isfinite(modelled):
        return f"Not measured{_claim(cmp, i, None)}."
    return f"Not measured; modelled {fmt.times(modelled)}{over}{_claim(cmp, i, float(cmp.tiers.mix_speedup[i]))}."


def cost_line(cmp: Comparison, i: int) -> str:
    if not math.isfinite(float(cmp.tiers.monthly_cost[i])):
        return "Not known until every task class's tokens are given."
    money = fmt.money(float(cmp.tiers.monthly_cost[i]), cmp.currency)
    b = int(cmp.tiers.baseline_index[i])
    if b < 0:
        return f"{money} a month."
    base = fmt.money(float(cmp.tiers.monthly_cost[b]), cmp.currency)
    premium = float(cmp.tiers.premium[i])
    if not math.isfinite(premium):
        return f"{money} a month, against {cmp.tier_names[b]} at {base}."
    more = "more" if premium >= 0 else "less"
    return f"{money} a month, {abs(premium):.0%} {more} than {cmp.tier_names[b]} ({base})."


def _fair_factor(cmp: Comparison, i: int) -> float:
    """The factor on the list prices at which the speed over the standard tier is exactly worth it: the
    measurement's where the brief goes by it, else the cautious end of the model's range, else its point."""
    measured = _measured_over_model(cmp, i)
    ratio = float(cmp.tiers.price_ratio[i])
    if measured is not None and math.isfinite(ratio) and ratio > 0:
        return measured / ratio
    low = float(cmp.fair.factor_low[i])
    return low if math.isfinite(low) and low > 0 else float(cmp.fair.factor[i])


def ask_line(cmp: Comparison, i: int) -> str:
    """The one price to ask for: the output price at which the speed is worth it."""
    if cmp.tier_made_up(i):
        return "First, how its fast mode runs: probe its speed (Tools > Probe a tier), or ask for K, c and v."
    if cmp.mix_waits(i) or cmp.baseline_withheld(i):
        return f"First, what is missing: {cmp.mix_waits(i) or cmp.baseline_withheld(i)}."
    factor = _fair_factor(cmp, i)
    listed = float(cmp.fair.price_out[i] / cmp.fair.factor[i]) if math.isfinite(cmp.fair.factor[i]) \
        and cmp.fair.factor[i] > 0 else math.nan
    if not math.isfinite(factor) or factor <= 0 or not math.isfinite(listed) or listed <= 0:
        return ""
    cur = cmp.currency
    fair = fmt.money(listed * factor, cur, 2)
    if factor >= 1.0:
        return f"The list price, {fmt.money(listed, cur, 2)} per 1M output tokens, is fair (worth up to {fair})."
    return (f"{fair} per 1M output tokens at most (list {fmt.money(listed, cur, 2)}), and the input price "
            f"{1 - factor:.0%} off.")


def served_line(cmp: Comparison, i: int) -> str:
    """The vendor's downgraded share (docs/design/vendor-terms.md): the speed and the bill above are as served."""
    d = float(cmp.terms.downgraded_share[i])
    if not (math.isfinite(d) and d > 0):
        return ""
    said = f"{fmt.pct(d, 0)} of fast requests at standard speed, billed at the standard price"
    # the measured speed where a probe gave one (as the Speed line goes by it), else the model's mix
    fast = cmp.tier_parts[i].measured.measured
    if fast is not None:
        mix = float(as_served(np.array([fast]), np.array([d]), np.ones(1))[0])
    else:
        fast, mix = float(cmp.terms.mix_speedup_fast[i]), float(cmp.tiers.mix_speedup[i])
    if not (math.isfinite(fast) and math.isfinite(mix)):
        return said + "."
    return f"{said}: your mix runs {fmt.times(mix)} ({fmt.times(fast)} on the fast ones)."


def sla_line(cmp: Comparison, i: int) -> str:
    """The SLA's verdict in the vendor's terms (model/workbook/vendor_terms.py words it)."""
    said = cmp.terms.sla[i] if cmp.terms.sla else ""
    return said.removeprefix("SLA: ") + "." if said else ""


def prices_line(cmp: Comparison, i: int) -> str:
    """Where and when the list prices were read."""
    return f"{cmp.terms.price_source[i]}." if cmp.terms.price_source and cmp.terms.price_source[i] else ""


ADVICE, SPEED, SERVED, SLA, COST, PRICES, ASK = ("Advice", "Speed", "As served", "SLA", "Cost", "Prices",
                                                  "Ask for")
QUALITY = "Quality"


def quality_brief_line(cmp: Comparison, i: int) -> str:
    """The quality a probe found (docs/design/quality.md): a lossy tier, or one worse on checked tasks, is never
    recommended without this line."""
    return quality_line(cmp, i).removeprefix("Quality: ")
# the lines under each tier's recommendation, in print order: (label, text of (Comparison, tier index), "" to skip)
BRIEF_LINES: list[tuple[str, Callable[[Comparison, int], str]]] = [
    (SPEED, speed_line),
    (QUALITY, quality_brief_line),
    (SERVED, served_line),
    (SLA, sla_line),
    (COST, cost_line),
    (PRICES, prices_line),
    (ASK, ask_line),
]


def brief_records(wb: Workbook, cmp: Comparison) -> list[dict[str, Any]]:
    return [{"tier": b.tier, "vendor": b.vendor, "recommendation": b.recommendation, "why": b.why,
             **{label.lower().replace(" ", "_"): text for label, text in b.lines}} for b in brief(wb, cmp)]
