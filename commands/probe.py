"""`specledger probe`: measure a tier from outside through its OpenAI-compatible API.

    specledger probe WORKBOOK --tier NAME [--against BASELINE] --prompts FILE.jsonl --json OUT
    specledger probe --base-url URL --model NAME [--api-key-env VAR] [--against-model NAME] ... --json OUT
    specledger probe --from-run RUN.jsonl [--json OUT]     (re-analyse a run file, no request sent)

Before sending, it says how many requests and tokens it will send and what they cost at the
tier's prices, and asks (`--yes` skips the question). The raw run goes to a JSON-lines file
beside the result (OUT with .run.jsonl) as each request completes.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from commands import probe_apply, probe_decide, probe_vendor
from commands.runner import confidence_arg
from model.common import formatting as fmt
from model.common.cancel import run_to_end
from model.probe.analysis import ProbeReport, analyse
from model.probe.client import Limits
from model.probe.apis import DEFAULT_API
from model.probe.endpoint import (Endpoint, check_endpoint, check_headers, parse_endpoint_headers, parse_extra_body,
                                  resolve_api_key, tier_endpoint)
from model.probe.events import BASELINE, FAST
from model.probe.filler import context_label, parse_context
from model.probe.identity import Identity
from model.probe.load import estimate_levels, parse_levels, run_any
from model.probe.plan import ProbeSettings, estimate, tier_prices
from model.probe.prompt_file import load_probe_prompts
from model.probe.run import ProbeProgress
from model.probe.run_file import read_run, record_k
from model.probe.sla import parse_sla, sla_plan_words, tier_sla
from model.probe.speed_verdict import SPEED_VERDICTS
from model.common.safe_files import check_output_target
from model.workbook.json_file import load_workbook
from model.workbook.rows import Tier, Workbook



def _tier_and_endpoint(wb: Workbook, name: str, role: str, source: str, allow_http: bool) -> tuple[Tier, Endpoint]:
    """The named tier of a workbook and its endpoint; a missing tier or endpoint is one line naming both."""
    i = wb.tier_index(name)
    if i is None:
        raise ValueError(f"{source}: no {role} named {name!r}")
    tier = wb.tiers[i]
    endpoint = tier_endpoint(tier, allow_http)
    if endpoint is None:
        raise ValueError(f"{source}: {role} {tier.name!r} has no endpoint (base URL and model)")
    return tier, endpoint

def add_probe_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workbook", nargs="?", type=Path, help="workbook .json whose tier carries an endpoint")
    parser.add_argument("--tier", help="the tier to probe (with a workbook)")
    parser.add_argument("--against", metavar="BASELINE", help="the baseline tier to compare with (default: the tier's baseline)")
    parser.add_argument("--prompts", type=Path, help="JSONL of {\"task_class\", \"prompt\" or \"messages\"}, as for `sample`")
    parser.add_argument("--contexts", default="0", help="filler before each prompt, e.g. 1K,8K,32K (default 0: the prompt alone)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="times each prompt is sent (default 1); at a --temperature above 0, the samples per "
                             "prompt and tier the quality test reads")
    parser.add_argument("--temperature", type=float, default=0.0, metavar="T",
                        help="sample at T (default 0: greedy): after one greedy answer per prompt and tier (identity), "
                             "the repeats are sent at T and the quality test says whether the fast tier samples from "
                             "the same model as the baseline (lossy / lossless / undecided, and how small a shift "
                             "the run could see)")
    parser.add_argument("--max-tokens", type=int, default=64, help="output tokens per request (default 64)")
    parser.add_argument("--check-margin", type=float, default=2.0, metavar="POINTS",
                        help="prompts with a \"check\": the fast tier's pass rate within this many points of the "
                             "baseline's counts as the same (default 2)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the result here (and the raw run beside it)")
    parser.add_argument("--run", type=Path, metavar="RUN.jsonl", help="raw run file (default: OUT with .run.jsonl)")
    parser.add_argument("--yes", action="store_true", help="send without asking")
    parser.add_argument("--base-url", help="endpoint without a workbook, e.g. https://api.vendor.example/v1")
    parser.add_argument("--model", help="model name at --base-url")
    parser.add_argument("--api-key-env", default="", metavar="VAR", help="environment variable holding the API key")
    parser.add_argument("--extra-body", default="", metavar="JSON", help="extra request fields, e.g. '{\"service_tier\": \"priority\"}'")
    parser.add_argument("--against-model", help="baseline model name (same base URL unless --against-base-url)")
    parser.add_argument("--against-base-url", help="baseline endpoint's base URL")
    parser.add_argument("--against-extra-body", default="", metavar="JSON", help="baseline's extra request fields")
    probe_vendor.add_vendor_arguments(parser)
    parser.add_argument("--allow-http", action="store_true", help="allow plain http to a host other than loopback")
    parser.add_argument("--concurrency", metavar="N,N,...",
                        help="parallel streams per level, one level at a time, e.g. 1,4,16 (default 1, or 1 and "
                             "the workbook tier's concurrency); fast and baseline are probed at each level")
    parser.add_argument("--from-run", type=Path, metavar="RUN.jsonl", help="re-analyse a run file; sends nothing")
    probe_apply.add_apply_arguments(parser)
    parser.add_argument("--confidence", type=confidence_arg, default=0.95,
                        help="confidence of each class's interval on alpha (default 0.95)")
    probe_decide.add_decide_arguments(parser)


def _endpoints(args: argparse.Namespace) -> tuple[ProbeSettings, str]:
    """The settings from a workbook tier or the command line; the currency for the cost line."""
    if args.prompts is None:
        raise ValueError("--prompts FILE.jsonl is required")
    prompts = load_probe_prompts(args.prompts)
    contexts = tuple(dict.fromkeys(parse_context(c) for c in args.contexts.split(",") if c.strip())) or (0,)
    levels = parse_levels(args.concurrency) if args.concurrency else None
    common = dict(prompts=prompts, contexts=contexts, repeats=args.repeats, max_tokens=args.max_tokens,
                  prompts_path=str(args.prompts), concurrency=levels or (1,),
                  temperature=getattr(args, "temperature", 0.0),
                  check_margin_points=getattr(args, "check_margin", 2.0))
    if args.workbook is not None:
        if args.base_url or args.model:
            raise ValueError("give either a workbook with --tier or --base-url/--model, not both")
        if args.api or args.header or args.against_api or args.against_header:
            raise ValueError("--api and --header go with --base-url; a workbook tier's endpoint holds its own "
                             "(set them in the Probe dock)")
        if not args.tier:
            raise ValueError("--tier NAME is required with a workbook")
        wb = load_workbook(args.workbook)
        tier, fast = _tier_and_endpoint(wb, args.tier, "tier", args.workbook, args.allow_http)
        base_name = args.against if args.against is not None else tier.baseline
        baseline = base_tier = None
        if base_name:
            base_tier, baseline = _tier_and_endpoint(wb, base_name, "baseline tier", args.workbook, args.allow_http)
        settings = ProbeSettings(fast=fast, baseline=baseline, fast_name=tier.name, tier_k=tier.k,
                                 baseline_name=base_tier.name if base_tier else "",
                                 fast_prices=tier_prices(tier), baseline_prices=tier_prices(base_tier),
                                 **common)
        if levels is None and tier.concurrency > 1:  # the load the analyst runs, beside a quiet server's
            settings.concurrency = (1, tier.concurrency)
        settings.sla = parse_sla(args.sla) if args.sla else tier_sla(tier)
        return settings, wb.settings.currency
    if not args.base_url or not args.model:
        raise ValueError("give a workbook with --tier, or --base-url and --model")
    api = args.api or DEFAULT_API
    headers = parse_endpoint_headers(args.header, "--header")
    fast = Endpoint(args.base_url, args.model, args.api_key_env, extra_body=parse_extra_body(args.extra_body, "--extra-body"),
                    allow_http=args.allow_http, api=api, headers=headers)
    baseline = None
    if args.against_model or args.against_base_url:
        baseline = Endpoint(args.against_base_url or args.base_url, args.against_model or args.model, args.api_key_env,
                            extra_body=parse_extra_body(args.against_extra_body, "--against-extra-body"),
                            allow_http=args.allow_http, api=args.against_api or api,
                            headers=parse_endpoint_headers(args.against_header, "--against-header")
                            if args.against_header else headers)
    return ProbeSettings(fast=fast, baseline=baseline, fast_name=args.model,
                         baseline_name=baseline.model if baseline else "",
                         sla=parse_sla(args.sla) if args.sla else None, **common), ""


def _progress_printer(stream: TextIO):
    def show(event: ProbeProgress) -> None:
        if event.requests_done == 0:
            return
        left = f", {event.seconds_left:.0f} s left" if event.seconds_left is not None else ""
        level = f" ({event.message})" if " stream" in event.message else ""  # "fast, 1 stream", "baseline, 4 streams"
        stream.write(f"  {event.requests_done}/{fmt.count(event.requests_total, 'request')}{level}, "
                     f"{event.tokens_per_second:.0f} tok/s{left}\n")
        stream.flush()
    return show


def _ask(question: str) -> bool:
    if not sys.stdin.isatty():
        raise ValueError(f"{question} -- not asked: stdin is not a terminal; add --yes to send")
    answer = input(f"{question} Send? [y/N] ").strip().lower()
    return answer in ("y", "yes")


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


def run_probe_command(args: argparse.Namespace) -> int:
    err = sys.stderr
    if args.json is not None:
        args.json = check_output_target(args.json, "JSON result")
    if args.run is not None:  # a missing folder is refused, as for --json: not made (as root, anywhere)
        args.run = check_output_target(args.run, "run file")
    probe_decide.check_decide_arguments(args)
    probe_apply.check_apply_arguments(args)
    if args.from_run is not None:
        return _from_run(args)
    settings, currency = _endpoints(args)
    settings.check()
    check_endpoint(settings.fast)
    keys = {FAST: resolve_api_key(settings.fast)}
    check_headers(settings.fast)
    if settings.baseline is not None:
        check_endpoint(settings.baseline)
        keys[BASELINE] = resolve_api_key(settings.baseline)
        check_headers(settings.baseline)
    contexts = ", ".join(context_label(c) for c in settings.contexts)
    what = (estimate(settings).describe(currency) if settings.concurrency == (1,)
            else estimate_levels(settings).describe(currency))
    question = (f"probe {settings.fast.describe()}" + (f" against {settings.baseline.describe()}" if settings.baseline else "")
                + f" at {contexts}: {what}.")
    until = getattr(args, "until_decided", False)
    if until and settings.temperature > 0:
        raise ValueError("--temperature with --until-decided: the quality test has no stopping rule of its own; "
                         "probe at a temperature with a fixed --repeats")
    if until:
        probe_decide.decide_thresholds(args, settings)  # refused here, before the question and any request
        question = (f"probe {settings.fast.describe()} until each class is decided: at most {args.max_requests} "
                    "requests a class" + (f" and {fmt.cost(args.max_cost, currency)}" if args.max_cost is not None else "")
                    + ".")
    if args.workbook is not None and args.tier:
        wb = load_workbook(args.workbook)
        for line in probe_decide.need_lines(wb, settings.fast_name, settings, currency,
                                            args.confidence, args.half_width, args.max_requests if until else None):
            print(line, file=err)
        if until:  # the classes the workbook already decides are not sent, as the lines above say
            settings, done = probe_decide.leave_out_decided_classes(wb, settings, args.confidence, args.half_width,
                                                                    args.max_requests)
            if done and not settings.prompts:
                print(f"specledger probe: nothing to send, the workbook's intervals already decide {', '.join(done)}",
                      file=err)
                return 0
            if done:
                question += f" Not sent, already decided by the workbook: {', '.join(done)}."
    if settings.sla is not None:  # 20 requests cannot show 99%: said before anything is sent
        planned = len(settings.prompts) * len(settings.contexts) * settings.repeats * len(settings.concurrency)
        print(sla_plan_words(*settings.sla, planned, args.confidence, settings.max_tokens), file=err)
    if args.yes:
        print(question, file=err)
    elif not _ask(question):
        print("specledger probe: nothing sent", file=err)
        return 1
    run_path = args.run or (args.json.with_suffix(".run.jsonl") if args.json is not None else None)
    if run_path is not None:
        run_path.parent.mkdir(parents=True, exist_ok=True)
    if until:
        try:
            decided, code = probe_decide.run_decide(args, settings, keys, run_path, _progress_printer(err), err)
        except KeyboardInterrupt:
            print("specledger probe: interrupted; the requests that completed are in the run file", file=err)
            return 130
        report = analyse(decided.records, decided.header, args.confidence)
        record_k(run_path, report.k_estimate, report.k_source)
        if args.json is not None:
            probe_decide.write_json(args.json, decided, report.to_dict())
        print(format_report(report))
        print(probe_decide.decide_text(decided, currency))
        if args.json is not None:
            print(f"JSON written to {args.json}")
        if decided.error:
            print(f"specledger probe: {decided.error}", file=err)
        return code
    try:
        run = run_to_end(run_any(settings, keys, run_path, limits=Limits()), _progress_printer(err))
    except KeyboardInterrupt:
        print("specledger probe: interrupted; the requests that completed are in the run file", file=err)
        return 130
    report = analyse(run.records, run.header, getattr(args, "confidence", 0.95))
    record_k(run_path, report.k_estimate, report.k_source)  # import-metrics on the run file then needs no --k
    probe_vendor.record_breakers(run_path, report, run.records, run.header)
    if run_path is not None:
        print(f"run file: {run_path}", file=err)
    code = _finish(report, args, run.error)
    return code


def _from_run(args: argparse.Namespace) -> int:
    """--from-run: the run file analysed again, nothing sent; with --apply, applied to the tier as the window does."""
    if args.apply is not None and args.output is not None:
        probe_apply.check_output(args.output, [args.from_run])
    header, records = read_run(args.from_run)
    if args.sla:
        x, q = parse_sla(args.sla)
        header = {**header, "sla": {"threshold_tokens_per_s": x, "promised_share": q}}
    wb = None
    if args.apply is not None:
        wb, i = probe_apply.tier_of(args.apply, args.tier)
        header = {**header, "tier_k": wb.tiers[i].k}
    elif args.workbook is not None and args.tier:  # the tier's K now, for the K mismatch
        known = load_workbook(args.workbook)
        i = known.tier_index(args.tier)
        if i is None:
            raise ValueError(f"{args.workbook}: no tier named {args.tier!r}")
        header = {**header, "tier_k": known.tiers[i].k}
    if getattr(args, "check_margin", None) is not None:
        header = {**header, "check_margin_points": args.check_margin}
    report = analyse(records, header, getattr(args, "confidence", 0.95))
    code = _finish(report, args, None)
    if wb is not None:
        probe_apply.apply_report(report, wb, args.tier, args.apply, args.output, sys.stdout,
                                 add_missing=args.add_missing, set_k=args.set_k)
    return code


def _finish(report: ProbeReport, args: argparse.Namespace, error: str | None) -> int:
    if args.json is not None:
        from model.common.safe_files import atomic_write

        text = report.to_json() + "\n"
        atomic_write(args.json, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    print(format_report(report))
    if args.json is not None:
        print(f"JSON written to {args.json}")
    if error:
        print(f"specledger probe: {error} ({fmt.count(report.requests, 'request')} that completed {'is' if report.requests == 1 else 'are'} kept)", file=sys.stderr)
        return 1
    return 0
