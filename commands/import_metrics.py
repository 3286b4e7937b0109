"""`specledger import-metrics`: engines' acceptance files read, converted to the three conventions, printed,
and optionally applied to a workbook's classes or one tier's overrides."""
from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Generator, TextIO

from commands.probe_apply import check_output
from commands.runner import CommandError, confidence_arg
from commands.stated import conventions_help, run_stated
from model.common import formatting as fmt
from model.acceptance.units import UNIT_PROMPT, UNIT_REQUEST
from model.engines.recorded import RecordedFile
from model.metrics.read import (ENGINES, applicable, missing_k, missing_k_files, parse_k_per_drafter, read_sources,
                                read_task_map, source_note)
from model.probe.run_counts import reported_counts, reported_counts_steps
from model.probe.run_file import is_run_file
from model.metrics.result import MetricsError, SourceResult, k_mismatch_lines
from model.workbook.json_file import load_workbook, save_workbook
from model.workbook.measured_apply import apply_plan, plan_measured
from model.workbook.validation import check_workbook


def add_import_metrics_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="Prometheus scrape(s) (two of one server: before, after), log, JSON lines, vllm bench or sample "
                        "JSON, or a probe's run file (read by the probe: with --apply and --tier, applied as the window does)")
    p.add_argument("--stated", metavar="FIGURE",
                   help="a figure a vendor stated, with what it means, instead of files: 'rate=0.62,k=4,engine=vllm', "
                        "'length=2.8,k=4,source=Acme slides', 'value=62%%,convention=draft_rate,k=4', or that as JSON "
                        "(inline or a .json file); conventions: " + conventions_help())
    p.add_argument("--engine", choices=ENGINES, default="auto", help="which engine wrote the files (default: recognise)")
    p.add_argument("--task-class", metavar="NAME", help="task class for sources that name none")
    p.add_argument("--k", type=k_arg, action="append", metavar="K | NAME=K",
                   help="draft tokens per step (1 to 64), where the files do not say; NAME=K for one drafter of a log "
                        "with several (repeat, or NAME=K,NAME=K)")
    p.add_argument("--task-map", metavar="FILE",
                   help="task ids to task classes for a llama.cpp log: JSON {\"42\": \"code\"} or lines '42,code'")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--confidence", type=confidence_arg, default=0.95,
                   help="confidence of the interval on alpha from per-request records (default 0.95)")
    p.add_argument("--apply", metavar="WORKBOOK", help="apply the alphas to this workbook's task classes (with -o)")
    p.add_argument("--tier", metavar="NAME", help="with --apply: set this tier's overrides instead of the classes")
    p.add_argument("--add-missing", action="store_true", help="with --apply: add classes the workbook lacks")
    p.add_argument("-o", "--output", metavar="OUT", help="with --apply: the workbook to write")


def k_arg(text: str) -> int | dict[str, int]:
    """--k 4, or --k NAME=K[,NAME=K] for drafters by name."""
    if "=" not in text:
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a K (a whole number) nor NAME=K") from None
    try:
        return parse_k_per_drafter(text)
    except MetricsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _k_given(values: list[int | dict[str, int]] | None) -> int | dict[str, int] | None:
    """One K, or K per drafter; both at once, or two plain K, is refused."""
    if not values or isinstance(values, int):
        return values or None
    plain = [v for v in values if isinstance(v, int)]
    named = {name: k for v in values if isinstance(v, dict) for name, k in v.items()}
    if len(plain) > 1 or (plain and named):
        raise CommandError("--k: give one K for every source, or NAME=K per drafter, not both")
    return plain[0] if plain else named


_P = fmt.printable  # names and notes come from files: escaped, so no ESC sequence or fake line reaches the terminal


def _text(sources: list[SourceResult]) -> str:
    lines = []
    for s in sources:
        c = s.counts
        head = (f"{_P(s.file)} [{_P(s.engine)}{', ' + _P(s.model) if s.model else ''}] class "
                f"{_P(s.task_class) if s.task_class else '(none)'}  K = {c.k or '?'}")
        lines.append(head)
        if s.format:
            lines.append(f"  read as: {_P(s.format)}")
        length = fmt.fixed(c.mean_acceptance_length, 2)
        bounds = c.mean_acceptance_length_range
        if c.mean_acceptance_length is None and bounds is not None:  # steps bounded, not counted: no invented point
            length = f"between {fmt.fixed(bounds[0], 2)} and {fmt.fixed(bounds[1], 2) if bounds[1] < 1e300 else 'no bound without K'}"
        lines.append(f"  per-token alpha {fmt.pct(c.alpha, 1)}   draft acceptance rate {fmt.pct(c.draft_acceptance_rate, 1)}"
                     f"   mean acceptance length {length}")
        if c.per_position_conditional is not None:
            lines.append("  per position (conditional): " + ", ".join(fmt.pct(x, 0) for x in c.per_position_conditional))
        lines.append(f"  applied alpha {fmt.pct(s.alpha_applied, 1)}: {s.alpha_rule}")
        a = s.acceptance
        noun = {UNIT_PROMPT: "distinct prompt", UNIT_REQUEST: "request"}.get(s.interval_unit or "", "unit")
        lines.append(f"  {s.confidence:.0%} interval {fmt.pct(a.low, 1)} to {fmt.pct(a.high, 1)} over "
                     f"{fmt.count(a.requests, noun)} (unit: {s.interval_unit})" if a.interval else f"  interval: {a.note}")
        lines.append(f"  {c.convention_note}")
        for note in s.to_dict()["notes"]:
            lines.append(f"  - {_P(note, 400)}")
    return "\n".join(lines) + "\n"


def run_import_metrics(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out
    if (args.tier or args.output or args.add_missing) and not args.apply:
        raise CommandError("--tier, --add-missing and -o go with --apply WORKBOOK")
    if args.apply and not args.output:
        raise CommandError("--apply needs -o OUT: the workbook to write")
    if args.output:
        check_output(Path(args.output), [Path(f) for f in args.files])
    if getattr(args, "stated", None):
        if args.files:
            raise CommandError("--stated takes no FILE: it is the figure itself")
        return run_stated(args, out)
    if not args.files:
        raise CommandError("give the metrics FILE(s) to read, or --stated FIGURE")
    run = args.files[0] if len(args.files) == 1 and is_run_file(args.files[0]) else None
    if run is not None and args.apply:
        return _apply_probe_run(args, out)
    given = reported_counts(run) if run is not None else None  # the probe's reader (docs/dev/layout.md#one-reader-per-file)
    if given is not None and not given.classes:
        return _show_probe_run(args, out)

    def reader(path: str) -> RecordedFile | None | Generator[int, None, RecordedFile | None]:  # the run file once
        return given if given is not None and path == given.file else reported_counts_steps(path)
    try:
        task_map = read_task_map(args.task_map) if args.task_map else None
        sources = read_sources(args.files, engine=args.engine, k=_k_given(args.k), task_class=args.task_class,
                               task_map=task_map, recorded=reader)
    except MetricsError as exc:
        raise CommandError(_P(str(exc), 600)) from None
    for s in sources:
        s.confidence = args.confidence
    if args.json:
        json.dump({"sources": [s.to_dict() for s in sources]}, out, indent=2)
        out.write("\n")
    else:
        out.write(_text(sources))
    unknown = missing_k(sources)
    if unknown:  # the figures that need no K were printed; alpha waits for it
        out.flush()  # the figures first, then the line about K
        sys.stderr.write(_P(
            f"K (draft tokens per step) is not in {missing_k_files(unknown)}: the figures it states are shown in its "
            "own convention; per-token alpha is unknown until K is given (--k K, or --k NAME=K per drafter)", 600) + "\n")
    if args.apply:
        _apply(args, sources, out if not args.json else sys.stderr)
    return 0


def _apply_probe_run(args: argparse.Namespace, out: TextIO) -> int:
    """A probe's run file with --apply: read and analysed by the probe (`probe --from-run`), applied through the
    window's apply_probe, so a run whose server counted nothing applies its measured speedup too."""
    from commands.probe_text import format_report
    from commands.probe_apply import apply_run

    if args.tier is None:
        raise CommandError("a probe's run file applies to one tier: give --tier NAME")
    say = out if not args.json else sys.stderr
    report = apply_run(Path(args.files[0]), args, say)
    out.write((report.to_json() if args.json else format_report(report)) + "\n")
    return 0


def _show_probe_run(args: argparse.Namespace, out: TextIO) -> int:
    """A run file whose server reported no counts (the steps timed, not counted): what the probe reads from it,
    as `probe --from-run` shows it, so a timing-only run is not a dead end here."""
    from commands.probe_text import format_report
    from model.probe.analysis import analyse
    from model.probe.run_file import read_run

    header, records = read_run(args.files[0])
    report = analyse(records, header, args.confidence)
    out.write((report.to_json() if args.json else format_report(report)) + "\n")
    out.flush()
    sys.stderr.write(_P(f"{args.files[0]}: no request to the probed tier carries the server's own acceptance; above is "
                        "the probe's analysis of the run (alpha and K by timing). Apply it with --apply WORKBOOK "
                        "--tier NAME -o OUT", 600) + "\n")
    return 0


def _apply(args: argparse.Namespace, sources: list[SourceResult], say: TextIO) -> None:
    try:
        chosen = applicable(sources)
    except MetricsError as exc:
        raise CommandError(_P(str(exc), 600)) from None
    if not chosen:
        raise CommandError("nothing to apply: no source has both a task class (give --task-class) and an alpha")
    wb = load_workbook(args.apply)
    if args.tier is not None and wb.tier_index(args.tier) is None:
        raise CommandError(f"--tier {_P(args.tier)!r}: no such tier in {_P(args.apply)}")
    today = date.today()
    todo, skipped = plan_measured(wb, chosen, args.add_missing)
    for item in todo:  # each source keeps its own note: engine, file, date
        apply_plan(wb, [item], source_note(item[1], today), args.tier, source="imported")
    check_workbook(wb, args.apply)
    save_workbook(wb, args.output)
    where = f"tier {args.tier}'s overrides" if args.tier else "task classes"
    say.write(f"applied to {len(todo)} {_P(where)} in {_P(args.output)}"
              + (f"; left out: {_P(', '.join(skipped), 600)}" if skipped else "") + "\n")
    tiers = [wb.tiers[wb.tier_index(args.tier)]] if args.tier is not None else wb.tiers
    for line in k_mismatch_lines([item[1] for item in todo], tiers):
        say.write(_P(line, 600) + "\n")
