"""Before a probe: per class, the requests expected to decide its verdict (or reach a half-width) and their cost.

One function for the CLI (`probe WORKBOOK --tier NAME`) and the probe dock. A class is judged against the alpha
model.probe.until_decided.class_thresholds gives (its price break-even on the tier, else its break-even; the
words say which: 'break-even' alone read as the speed one). The
spread between prompts comes from the workbook's interval on the class where a measurement left one, else an
assumed spread (model.acceptance.sequential.requests_to_decide). A run starts afresh: the workbook keeps a
measured class's interval and request count, not its requests' own counts, so the requests measured before are
not pooled with the new ones and the expected requests are counted from zero (the words say so). A class held as
a profile or a length is judged on E at the tier's K against its break-even length
(model.acceptance.sequential.requests_to_decide_length), its spread from the interval on E where it has one, and
a half-width for it is ``length_half_width``, in tokens per step (alpha's ``half_width`` is a proportion).
A class whose interval in the workbook (a probe applied, an import) already lies wholly on one side of its
threshold at the confidence asked, or is as narrow as the half-width, needs nothing: it is said decided and costs
nothing, as the results grid shows its verdict decided (before, such a class was counted afresh from zero).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from model.common import formatting as fmt
from model.acceptance import acceptance_of
from model.acceptance.sequential import (OPEN, LengthThreshold, Need, length_acceptance, look_schedule,
                                         requests_to_decide, requests_to_decide_length, side)
from model.acceptance.value import Acceptance
from model.probe.plan import ProbeSettings, estimate
from model.probe.prompt_file import ProbePrompt
from model.probe.until_decided import Threshold, priced_thresholds
from model.workbook.rows import Workbook


@dataclass(frozen=True)
class ClassNeed:
    task_class: str
    in_workbook: bool
    alpha: float | None  # E at the threshold's K where it is a length
    threshold: Threshold
    half_width: float | None
    need: Need
    cost: float | None  # of need.extra requests at the tier's output and input prices; None without prices
    earlier: int  # requests the workbook's interval came from (not reused by the run)
    # already decided by the workbook's interval: "above" / "below" its threshold, or HALF_WIDTH_REACHED; "" if not
    decided: str = ""
    # the threshold is the price break-even on the tier (it has a baseline); else the speed one (K c + v)
    price: bool = False

    @property
    def decidable(self) -> bool:
        return self.in_workbook and math.isfinite(self.need.extra)

    @property
    def open(self) -> bool:
        """Whether a run has anything to decide for the class (in the workbook and not decided there already)."""
        return self.in_workbook and not self.decided

    def decided_words(self) -> str:
        """'at or above price break-even 65.8%' / 'below ...' / 'half-width 0.030 reached': what the workbook
        decided."""
        if self.decided == HALF_WIDTH_REACHED:
            return f"{self.target()} reached"
        return f"{'at or above' if self.decided == 'above' else 'below'} {self.limit()}"

    def limit(self) -> str:
        """'price break-even 65.8%' (or a length's words): which break-even, as 'break-even' alone read as either."""
        which = "price " if self.price else ""
        if isinstance(self.threshold, LengthThreshold):
            return which + self.threshold.words()
        return f"{which}break-even {fmt.pct(self.threshold, 1)}"

    def target(self) -> str:
        if self.half_width is not None:
            unit = " tokens per step of E" if isinstance(self.threshold, LengthThreshold) else ""
            return f"half-width {self.half_width:.3f}{unit}"
        return self.limit()

    def words(self, currency: str) -> str:
        """One line: 'code: alpha 78.0% against price break-even 65.8%: about 9 requests (...), about $0.0034'."""
        if not self.in_workbook:
            return f"{self.task_class}: not in the workbook, no break-even to decide against"
        what = (f"E {self.alpha:.2f}" if isinstance(self.threshold, LengthThreshold)
                else f"alpha {fmt.pct(self.alpha, 1)}")
        head = f"{self.task_class}: {what} against {self.target()}"
        if self.decided:
            return (f"{head}: decided by the workbook's interval over {fmt.count(self.earlier, 'request')} "
                    f"({self.decided_words()}); nothing to send")
        afresh = (f"; the run starts afresh, the workbook's {fmt.count(self.earlier, 'earlier request')} not reused"
                  if self.earlier else "")
        if not math.isfinite(self.need.extra):
            return f"{head}: not decidable ({self.need.basis}{afresh})"
        cost = f", about {fmt.cost(self.cost, currency)}" if self.cost is not None else ""
        return f"{head}: about {fmt.count(round(self.need.extra), 'request')} ({self.need.basis}{afresh}){cost}"


HALF_WIDTH_REACHED = "half-width reached"


def decided_already(acc: Acceptance, threshold: float | None, confidence: float, half_width: float | None) -> str:
    """ABOVE / BELOW where ``acc``'s interval, at ``confidence`` or more, lies wholly on one side of ``threshold``;
    HALF_WIDTH_REACHED where it is as narrow as ``half_width``; "" otherwise (a narrower confidence decides
    nothing at the one asked)."""
    if not acc.has_interval or acc.confidence is None or not acc.confidence >= confidence - 1e-9:
        return ""
    where = side(acc, threshold) if threshold is not None and math.isfinite(threshold) else OPEN
    if where != OPEN:
        return where
    return HALF_WIDTH_REACHED if half_width is not None and acc.half_width <= half_width else ""


def leave_out_decided(needs: list[ClassNeed], prompts: list[ProbePrompt]) -> tuple[list[ProbePrompt], list[str]]:
    """The prompts a run until decided sends (those of the classes the workbook has not decided already) and the
    classes left out, so the run spends what the estimate says it will."""
    done = {n.task_class for n in needs if n.decided}
    return [p for p in prompts if p.task_class not in done], [n.task_class for n in needs if n.decided]


def cost_per_request(settings: ProbeSettings, task_class: str) -> float | None:
    """The estimated cost of one request of the class on the fast tier (the mean over its prompts)."""
    prompts = [p for p in settings.prompts if p.task_class == task_class]
    if not prompts:
        return None
    est = estimate(dataclasses.replace(settings, prompts=prompts, baseline=None, repeats=1,
                                       contexts=settings.contexts[:1], concurrency=(1,)))
    return None if est.cost is None else est.cost / len(prompts)


def needs_before_run(wb: Workbook, tier: str, settings: ProbeSettings, confidence: float,
                     half_width: float | None = None, max_requests: int | None = None,
                     length_half_width: float | None = None) -> list[ClassNeed]:
    """Per probed class (in the prompt file's order): the requests a run is expected to need and their cost.
    With ``max_requests`` (a run until decided) at the looks that run makes, else for one fixed-size run."""
    thresholds, priced = priced_thresholds(wb, tier)
    by_lower = {c.name.lower(): c for c in wb.classes}
    looks = look_schedule(max_requests) if max_requests else None
    out = []
    for name in dict.fromkeys(p.task_class for p in settings.prompts):
        row = by_lower.get(name.lower())
        if row is None:
            out.append(ClassNeed(name, False, None, None, half_width, Need(math.inf, "not in the workbook"), None, 0))
            continue
        over = wb.override_for(tier, row.name)
        acc = acceptance_of(over or row, wb.settings.confidence)
        threshold = thresholds.get(row.name)
        target = length_half_width if isinstance(threshold, LengthThreshold) else half_width
        if isinstance(threshold, LengthThreshold):  # judged on E, and a half-width is in tokens per step
            acc = length_acceptance(over or row, threshold.k, wb.settings.confidence)
            done = decided_already(acc, threshold.length, confidence, target)
            hw = length_half_width  # tokens per step of E; alpha's half_width is not read here
            need = (requests_to_decide_length(acc, threshold, confidence, looks=looks, have=0, half_width=hw)
                    if math.isfinite(acc.point) else Need(math.inf, "no acceptance length"))
        else:
            done = decided_already(acc, threshold, confidence, target)
            need = requests_to_decide(acc, acc.point, threshold if not isinstance(threshold, LengthThreshold) else None,
                                      confidence, half_width, looks=looks, have=0)
        if done:
            need = Need(0.0, f"decided by the workbook's interval over {fmt.count(acc.requests, 'request')}")
        one = cost_per_request(settings, name)
        cost = None if one is None or not math.isfinite(need.extra) or done else need.extra * one
        out.append(ClassNeed(name, True, acc.point, threshold, target, need, cost, acc.requests, done,
                             row.name in priced))
    return out
