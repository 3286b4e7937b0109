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
from typing import Any, TextIO

from commands import probe_apply, probe_decide, probe_vendor
from commands.probe_text import format_report
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
from model.probe.load import estimate_levels, parse_levels, run_any
from model.probe.plan import ProbeSettings, estimate, tier_prices
from model.probe.prompt_file import load_probe_prompts
from model.probe.run import ProbeProgress
from model.probe.run_file import read_run, record_k
from model.probe.sla import parse_sla, sla_plan_words, tier_sla
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
    keys = _checked_keys(settings)
    until = getattr(args, "until_decided", False)
    question = _question(args, settings, currency, until)
    if args.workbook is not None and args.tier:
        planned = _workbook_lines(args, settings, currency, question, until, err)
        if planned is None:
            return 0
        settings, question = planned
    if settings.sla is not None:  # 20 requests cannot show 99%: said before anything is sent
        planned_n = len(settings.prompts) * len(settings.contexts) * settings.repeats * len(settings.concurrency)
        print(sla_plan_words(*settings.sla, planned_n, args.confidence, settings.max_tokens), file=err)
    if args.yes:
        print(question, file=err)
    elif not _ask(question):
        print("specledger probe: nothing sent", file=err)
        return 1
    run_path = args.run or (args.json.with_suffix(".run.jsonl") if args.json is not None else None)
    if run_path is not None:
        run_path.parent.mkdir(parents=True, exist_ok=True)
    if until:
        return _run_until_decided(args, settings, keys, run_path, currency)
    return _run_fixed(args, settings, keys, run_path)


def _checked_keys(settings: ProbeSettings) -> dict[str, Any]:
    """The settings, endpoints and headers checked, the API keys resolved (from where the endpoints say)."""
    settings.check()
    check_endpoint(settings.fast)
    keys = {FAST: resolve_api_key(settings.fast)}
    check_headers(settings.fast)
    if settings.baseline is not None:
        check_endpoint(settings.baseline)
        keys[BASELINE] = resolve_api_key(settings.baseline)
        check_headers(settings.baseline)
    return keys


def _question(args: argparse.Namespace, settings: ProbeSettings, currency: str, until: bool) -> str:
    """What will be sent and what it costs, asked before anything is; --until-decided's limits refused here."""
    contexts = ", ".join(context_label(c) for c in settings.contexts)
    what = (estimate(settings).describe(currency) if settings.concurrency == (1,)
            else estimate_levels(settings).describe(currency))
    question = (f"probe {settings.fast.describe()}" + (f" against {settings.baseline.describe()}" if settings.baseline else "")
                + f" at {contexts}: {what}.")
    if until and settings.temperature > 0:
        raise ValueError("--temperature with --until-decided: the quality test has no stopping rule of its own; "
                         "probe at a temperature with a fixed --repeats")
    if until:
        probe_decide.decide_thresholds(args, settings)  # refused here, before the question and any request
        question = (f"probe {settings.fast.describe()} until each class is decided: at most {args.max_requests} "
                    "requests a class" + (f" and {fmt.cost(args.max_cost, currency)}" if args.max_cost is not None else "")
                    + ".")
    return question


def _workbook_lines(args: argparse.Namespace, settings: ProbeSettings, currency: str, question: str, until: bool,
                    err: TextIO) -> tuple[ProbeSettings, str] | None:
    """What the workbook's intervals need, said; with --until-decided, the classes they already decide left out
    (None: nothing left to send)."""
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
            return None
        if done:
            question += f" Not sent, already decided by the workbook: {', '.join(done)}."
    return settings, question


def _run_until_decided(args: argparse.Namespace, settings: ProbeSettings, keys: dict[str, Any],
                       run_path: Path | None, currency: str) -> int:
    err = sys.stderr
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


def _run_fixed(args: argparse.Namespace, settings: ProbeSettings, keys: dict[str, Any], run_path: Path | None) -> int:
    err = sys.stderr
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
    return _finish(report, args, run.error)


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
