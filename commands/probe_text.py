"""`specledger probe`'s report in words: the verdict, K, alpha per class with its interval, the speeds by context and
by concurrency, identity, quality and the checks; what `probe`, `probe --from-run` and `import-metrics RUN` print."""
from __future__ import annotations

from commands import probe_vendor
from model.common import formatting as fmt
from model.probe.analysis import ProbeReport
from model.probe.identity import Identity
from model.probe.speed_verdict import SPEED_VERDICTS


def _fig(x: float | None, spec: str, suffix: str = "") -> str:
    return "–" if x is None else f"{x:{spec}}{suffix}"


def format_report(report: ProbeReport) -> str:
    k_text = "–"
    if report.k_estimate:
        k_text = f"{report.k_estimate}" + (f" (from {report.k_source})" if report.k_source else "")
    head = (f"speed alone: {report.verdict} (acceptance cannot be read from this API)"
            if report.verdict in SPEED_VERDICTS else f"speculative decoding: {report.verdict}")
    lines = [head, f"  {report.evidence}",
             f"stream style: {report.stream_style}; K estimate: {k_text}"]
    if report.k_mismatch is not None:
        lines.append(report.k_mismatch.text)
    if report.timing_unreliable:
        lines.append("timing unreliable on this run: the machine was busy (no K and no alpha from timing; "
                     "probe again on a quieter machine)")
    if report.steps_caution:
        lines.append(f"caution: {report.steps_caution}")
    head = (f"{'class':<16}{'req':>5}{'alpha':>7}{'source':>10}{'reported':>10}{'timing':>8}{'rate':>7}"
            f"{'tok/step':>9}{'TTFT s':>8}{'tok/s':>8}  speedup")
    lines += [head, "-" * len(head)]
    for c in report.classes:
        speed = ", ".join(f"{k} {_fig(v, '.2f', 'x')}" for k, v in (c.speedup_measured or {}).items()) or "–"
        lines.append(f"{c.task_class:<16}{c.requests:>5}{_fig(c.alpha, '.3f'):>7}{c.alpha_source or '–':>10}"
                     f"{_fig(c.alpha_reported, '.3f'):>10}{_fig(c.alpha_timing, '.3f'):>8}"
                     f"{_fig(c.reported_draft_acceptance_rate, '.3f'):>7}"
                     f"{_fig(c.mean_tokens_per_step, '.2f'):>9}{_fig(c.ttft_s, '.3f'):>8}"
                     f"{_fig(c.decode_tokens_per_s, '.0f'):>8}  {speed}")
    if report.classes_left_out:
        lines.append(f"classes read at temperature {report.classes_temperature:g} (the run's): alpha, profile and speedup "
                     f"leave out the {fmt.count(report.classes_left_out, 'request')} at other temperatures (the greedy "
                     "pass, for the identity check)")
    lines.extend(f"caution: {c.task_class}: {c.sources_disagree}; alpha used: the {c.alpha_source} one"
                 for c in report.classes if c.sources_disagree)
    lines.extend(interval_lines(report))
    lines.extend(profile_lines(report))
    if any(c.reported_draft_acceptance_rate is not None for c in report.classes):
        lines.append("rate: the server's own draft acceptance rate, accepted / drafted tokens (its convention)")
    conv = next((c.reported_convention for c in report.classes if c.reported_convention), None)
    if conv:
        lines.append(f"reported by the server: {conv.split(';')[0]} (converted to per-token alpha; timing shown beside as a "
                     "cross-check; the engine's convention per class is in the JSON)")
    if report.identity is not None and report.identity.compared:
        lines.append(identity_line(report.identity))
    lines.extend(probe_vendor.vendor_lines(report))
    if report.quality is not None:
        lines.append(f"quality: {report.quality.words()}")
        lines.append(f"  which test and why: {report.quality.why}")
    lines.extend(check_lines(report))
    if len(report.by_concurrency) > 1 or any(x.concurrency > 1 for x in report.by_concurrency):
        lines.append(format_levels(report))
    for f in report.failed:
        lines.append(f"failed: {f}")
    return "\n".join(lines)


def check_lines(report: ProbeReport) -> list[str]:
    """The task checks: per class, each tier's pass rate and the difference's verdict; the failures' count."""
    if not report.checks:
        return []
    lines = [f"task checks (pass rate, prompts as the unit; margin {report.checks['margin_points']:g} points):"]
    lines += [f"  {c['words']}" for c in report.checks["classes"]]
    if report.checks["failures_total"]:
        lines.append(f"  {report.checks['failures_total']} failing answers, each beside the other tier's, in the JSON "
                     "('checks.failures')")
    return lines + [f"  note: {n}" for n in report.checks["notes"]]


def identity_line(identity: Identity) -> str:
    """How many outputs matched the baseline, where the others first diverge, and what that supports."""
    text = (f"identity at temperature 0: {identity.identical} of {identity.answers_words()} "
            f"identical to the baseline ({identity.share:.0%})")
    if identity.divergences:
        text += (f"; the {len(identity.divergences)} other{'s' if len(identity.divergences) > 1 else ''} first "
                 f"diverge at {identity.position_words()}")
    return f"{text}: {identity.judgement_words()}"


def interval_lines(report: ProbeReport) -> list[str]:
    """Each class's alpha with its interval (distinct prompts as the unit), or why it has none."""
    parts = []
    for c in report.classes:
        if c.alpha_interval:
            parts.append(f"{c.task_class} {c.alpha_interval[0]:.3f}–{c.alpha_interval[1]:.3f}")
        elif c.alpha is not None:
            parts.append(f"{c.task_class}: {c.interval_note}")
    return [f"interval on alpha ({report.confidence:.0%}, distinct prompts as the unit): " + "; ".join(parts)] if parts else []


def profile_lines(report: ProbeReport) -> list[str]:
    """Each class's per-position profile from its steps, the steps it rests on and the interval on its E."""
    out = []
    for c in report.classes:
        if not c.profile or not c.profile_counts:
            continue
        n = c.profile_counts
        rates = " ".join(f"{p:.2f}" for p in c.profile)
        e_text = ""
        if c.mean_acceptance_length_interval:
            lo, hi = c.mean_acceptance_length_interval
            e_text = f"; E {lo:.2f}–{hi:.2f} at {len(c.profile)} positions ({report.confidence:.0%})"
        cut = (f"; positions past {len(c.profile)} reached by fewer than {n['min_reached']} steps"
               if len(c.profile) < n["k"] else "")
        out.append(f"profile {c.task_class}: {rates} (p_i by position, {n['steps']} steps of {n['requests']} requests"
                   f"{e_text}{cut})")
    return out


def format_levels(report: ProbeReport) -> str:
    head = f"{'streams':>8}{'req':>5}{'tok/s/stream':>13}{'base tok/s':>11}{'TTFT s':>8}{'tok/step':>9}{'alpha':>7}  speedup"
    lines = ["speed at each concurrency (per stream; fast and baseline at the same level; the speedup's interval "
             f"at {report.confidence:.0%} in brackets, requests as the unit):", head, "-" * len(head)]
    for x in report.by_concurrency:
        mark = (f"  throttled: {x.throttled_responses + x.extra_throttled} answers were 429"
                + (f" ({x.extra_throttled} to load-keeping requests)" if x.extra_throttled else "")
                + " (the rate limit, not the tier)") if x.throttled else ""
        lines.append(f"{x.concurrency:>8}{x.requests:>5}{_fig(x.decode_tokens_per_s, '.1f'):>13}"
                     f"{_fig(x.baseline_decode_tokens_per_s, '.1f'):>11}{_fig(x.ttft_s, '.3f'):>8}"
                     f"{_fig(x.mean_tokens_per_step, '.2f'):>9}{_fig(x.alpha, '.3f'):>7}  "
                     f"{_fig(x.speedup_measured, '.2f', 'x')}"
                     + (f" [{x.speedup_interval[0]:.2f}-{x.speedup_interval[1]:.2f}]" if x.speedup_interval else "")
                     + mark)
    return "\n".join(lines)
