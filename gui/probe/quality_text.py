"""The probe dock's quality words: the test at the run's temperature, the task checks per class, and the failing
answers side by side with the other tier's (docs/guide/quality.md). Only shows what model/probe computed."""
from __future__ import annotations

from html import escape
from typing import Any

from model.probe.analysis import ProbeReport

SHOWN_FAILURES = 4  # side by side in the dock; every one is in the JSON and the run file
ANSWER_CHARS = 160


def quality_html(r: ProbeReport) -> str:
    out = ""
    if r.quality is not None:
        words = escape(r.quality.words())
        out += f"<br><b>Quality: {words}</b>" if r.quality.verdict == "lossy" else f"<br>Quality: {words}"
        out += f"<br><i>{escape(r.quality.why)}</i>"
    if r.checks:
        out += f"<br>Task checks (margin {r.checks['margin_points']:g} points):"
        for c in r.checks["classes"]:
            line = escape(c["words"])
            out += f"<br>&nbsp;&nbsp;<b>{line}</b>" if c.get("verdict") == "worse" else f"<br>&nbsp;&nbsp;{line}"
        out += failures_html(r.checks)
    return out


def _cell(text: Any) -> str:
    if text is None:
        return "<i>none</i>"
    shown = str(text)
    shown = shown if len(shown) <= ANSWER_CHARS else shown[:ANSWER_CHARS] + "…"
    return f"<tt>{escape(shown)}</tt>".replace("\n", "⏎")


def failures_html(checks: dict[str, Any]) -> str:
    """The first failing answers, each beside the other tier's answer to the same request."""
    failures = checks.get("failures") or []
    if not failures:
        return ""
    rows = "".join(
        f"<tr><td>{escape(f['task_class'])} line {f['line']}, {escape(f['tier'])} failed ({escape(f['why'])})</td>"
        f"<td>{_cell(f['answer'] if f['tier'] == 'fast' else f['other_answer'])}</td>"
        f"<td>{_cell(f['other_answer'] if f['tier'] == 'fast' else f['answer'])}</td></tr>"
        for f in failures[:SHOWN_FAILURES])
    more = checks.get("failures_total", len(failures)) - min(len(failures), SHOWN_FAILURES)
    tail = f"<br>{more} more failing answers in the JSON (checks.failures) and the run file." if more > 0 else ""
    return ("<table border='1' cellspacing='0' cellpadding='2'><tr><th>failing answer</th><th>fast tier</th>"
            f"<th>baseline</th></tr>{rows}</table>{tail}")
