"""`specledger probe`'s options and lines for a closed vendor's fast mode: the API and headers, the SLA, how each
request was timed, the tier that served the fast requests and the SLA's verdict (docs/reference/probe-apis.md)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from model.common import formatting as fmt
from model.probe.analysis import ProbeReport
from model.probe.apis import API_NAMES
from model.probe.events import RequestRecord
from model.probe.run_file import record_sla
from model.probe.sla import FAR_ABOVE, breaking_requests, sla_line


def add_vendor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--api", choices=API_NAMES, default=None,
                        help="the API the endpoint speaks: openai-chat (Chat Completions, the default), "
                             "openai-responses (the Responses API) or anthropic-messages (Anthropic's Messages API)")
    parser.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                        help="an extra request header, repeatable (e.g. 'anthropic-beta: fast-mode-2026-02-01'); one "
                             "whose name says key, token, auth, secret, cookie, password or credential is a secret: "
                             "give env:VAR or keyring:SERVICE/USER, never the value")
    parser.add_argument("--against-api", choices=API_NAMES, default=None, help="the baseline's API (default: --api)")
    parser.add_argument("--against-header", action="append", default=[], metavar="'NAME: VALUE'",
                        help="the baseline's extra headers (default: --header's)")
    parser.add_argument("--sla", metavar="TOKENS_PER_S@SHARE",
                        help="a speed SLA to judge, e.g. 80@0.99: 99%% of requests above 80 output tokens/s (tokens "
                             "after the first over the time from the first content to the last); default: the "
                             "workbook tier's")


def record_breakers(run_path: Path | None, report: ProbeReport, records: list[RequestRecord],
                    header: dict[str, Any]) -> None:
    """Every request that broke the SLA, by name, as the run file's last line."""
    if report.sla is not None:
        record_sla(run_path, report.sla, breaking_requests(records, header, report.sla["threshold_tokens_per_s"]))


def vendor_lines(report: ProbeReport) -> list[str]:
    """How each request was timed, the tier that served the fast ones, the speedup as served, the SLA."""
    out = []
    t = report.timing
    if t.get("usage"):
        out.append(f"timed by the usage's token count: {t['usage']} of {fmt.count(sum(t.values()), 'request')} "
                   "(several tokens an event, no counts); by the events' counts: "
                   f"{t.get('events', 0)}")
    served = report.served or {}
    if served.get("fast") or served.get("standard"):
        share = served["downgraded_share"]
        lo, hi = served["downgraded_interval"]
        as_served = next((x.speedup_as_served for x in report.by_concurrency if x.speedup_as_served is not None),
                         None)
        out.append(f"served: {served['fast']} fast, {served['standard']} standard, {served['unknown']} unknown of the "
                   f"fast tier's requests; downgraded {share:.0%} ({lo:.0%}-{hi:.0%}, {served['interval_method']}, "
                   f"{served['confidence']:.0%})" + (f"; speedup as served {as_served:.2f}x (time-weighted)" if as_served else ""))
    if report.sla is not None:
        out.append(sla_line(report.sla))
        named = ", ".join(b["request"] for b in report.sla["below"][:5])
        if named:
            more = report.sla["below_count"] - min(5, len(report.sla["below"]))
            out.append(f"  below the line: {named}" + (f" and {more} more (all in the run file)" if more > 0 else ""))
        far = report.sla.get("far_above") or []
        if far:
            out.append(f"  far above the median {report.sla['median_tokens_per_s']:g} tok/s (over {FAR_ABOVE:g}x: a "
                       "burst after a stall?): " + ", ".join(f"{b['request']} {b['tokens_per_s']:g} tok/s" for b in far[:5]))
    return out
