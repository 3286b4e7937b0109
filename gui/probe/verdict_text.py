"""The probe dock's words: the verdict line over the table, and what a run until decided decided."""
from __future__ import annotations

import re
from html import escape

from gui.probe.quality_text import quality_html
from model.common import formatting as fmt
from model.probe.analysis import ProbeReport
from model.probe.sla import sla_line
from model.probe.speed_verdict import SPEED_VERDICTS
from model.probe.identity import EARLY, LATE, MIXED, Identity, early_limit_words
from model.probe.until_decided import PROMPTS_USED_UP, ClassDecision, UntilDecidedRun


DETAILS, LESS = "#evidence-details", "#evidence-less"  # the links that open and close the evidence's details
_LEAD_SENTENCES = 2  # the stream's style and what its steps showed; the rest (logprobs, silent tokens, K) on demand


def evidence_html(evidence: str, details: bool = False) -> str:
    """The evidence's lead (its first sentences) and a link to the rest: a llama.cpp-style run's whole paragraph
    took 12 lines of the narrow dock above the table."""
    sentences = re.split(r"(?<=[.)])\s+(?=[A-Z0-9])", evidence.strip())
    if len(sentences) <= _LEAD_SENTENCES + 1:
        return escape(evidence)
    if details:
        return f"{escape(evidence)} <a href='{LESS}'>less</a>"
    return (f"{escape(' '.join(sentences[:_LEAD_SENTENCES]))} <a href='{DETAILS}'>details "
            f"({len(sentences) - _LEAD_SENTENCES} more)…</a>")


def verdict_html(r: ProbeReport, details: bool = False) -> str:
    """Speculative or not and on what evidence, identity with the baseline, and the speedup per load level.
    ``details``: the evidence whole, else its lead and a link (DETAILS) to the rest."""
    k = f", K about {r.k_estimate}" if r.k_estimate else ""
    identity = f"<br>{identity_words(r.identity, r.baseline_name)}" if r.identity and r.identity.compared else ""
    levels = ""
    if any(x.concurrency > 1 for x in r.by_concurrency):
        levels = "<br>Speedup over the baseline by parallel streams: " + ", ".join(
            f"{x.concurrency}: " + ("–" if x.speedup_measured is None else f"{x.speedup_measured:.2f}x")
            + (" (throttled: 429s)" if x.throttled else "") for x in r.by_concurrency) + "."
    caution = f"<br><b>Caution:</b> {r.steps_caution}." if r.steps_caution else ""
    levels += vendor_words(r)
    head = (f"<b>Speed alone: {r.verdict} than its baseline</b> (acceptance cannot be read from this API)"
            if r.verdict in SPEED_VERDICTS else f"<b>Runs speculative decoding: {r.verdict}</b>")
    return (f"{head} ({r.stream_style}{k}){caution}<br>{evidence_html(r.evidence, details)}{identity}"
            f"{levels}{quality_html(r)}")


def vendor_words(r: ProbeReport) -> str:
    """The tier that served the fast requests, the speedup as served, the SLA's verdict, where the run has them."""
    out = ""
    served = r.served or {}
    if served.get("standard"):
        lo, hi = served["downgraded_interval"]
        as_served = next((x.speedup_as_served for x in r.by_concurrency if x.speedup_as_served is not None), None)
        out += (f"<br>Downgraded: {served['standard']} of {served['fast'] + served['standard']} fast requests served "
                f"at standard speed ({served['downgraded_share']:.0%}, {lo:.0%}–{hi:.0%})"
                + (f"; speedup as served {as_served:.2f}x (time-weighted)" if as_served is not None else "") + ".")
    elif served.get("fast"):
        out += f"<br>Served fast: all {served['fast']} fast requests that named their tier."
    if r.sla is not None:
        out += f"<br><b>{escape(sla_line(r.sla))}</b>"
        if r.sla["below"]:
            out += f" Below the line: {escape(', '.join(b['request'] for b in r.sla['below'][:3]))}" + (
                " and more (all in the run file)." if r.sla["below_count"] > 3 else ".")
    return out


def identity_words(identity: Identity, baseline: str) -> str:
    """One short sentence (the dock is narrow): share identical, where the rest diverge, what that supports."""
    head = f"Identity at temperature 0: {identity.share:.0%} of {identity.compared} prompts match {baseline}"
    verdict = identity.judge()
    if verdict == LATE:
        late = "late" if not identity.early else "mostly late"
        return f"{head}; the rest diverge {late} ({identity.span_words()}): rounding, not lossy."
    if verdict in (EARLY, MIXED):
        early = identity.early
        what = "lossy or another model" if verdict == EARLY else "inconclusive (CLI names them)"
        return f"{head}; {len(early)} diverge{'s' if len(early) == 1 else ''} within {early_limit_words(early)}: {what}."
    return head + "."


def decided_words(run: UntilDecidedRun, currency: str, priced: set[str] | None = None) -> str:
    """One line: per class decided (which verdict, which side of its break-even) or why it stopped, after how many
    requests. ``priced``: the classes judged against the price break-even (their value verdict is what was decided,
    model.probe.until_decided.priced_thresholds); the grid shows the speed verdict unless switched, so it says so."""
    cost = "" if run.cost is None else f"; cost {fmt.cost(run.cost, currency)}"
    words = "; ".join(_class_words(c, priced) for c in run.classes)
    over = f" {run.cost_notes[-1][0].upper()}{run.cost_notes[-1][1:]}." if run.cost_notes else ""  # the cap's, if any
    shown = (" The results grid shows the speed verdict: pick Value verdict above it to see the one decided."
             if priced and any(c.stopped == "decided" and c.task_class in priced for c in run.classes) else "")
    return f"Until decided: {words}{cost}.{over}{shown}"


def _class_words(c: ClassDecision, priced: set[str] | None = None) -> str:
    after = f"after {fmt.count(c.requests, 'request')}"
    if c.stopped == "decided":
        which = "" if priced is None else ("value verdict " if c.task_class in priced else "speed verdict ")
        line = "price break-even" if priced is not None and c.task_class in priced else "break-even"
        side = "at or above" if c.side == "above" else "below"
        return f"{c.task_class} {which}decided ({side} its {line}, {c.threshold_words()}) {after}"
    if c.stopped == PROMPTS_USED_UP:  # the CLI's long reason read '...; give the class more prompts after 8' here
        return f"{c.task_class} undecided {after}: every prompt of the class sent (add prompts)"
    return f"{c.task_class} {c.stopped} {after}"
