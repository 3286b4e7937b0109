"""`specledger import-metrics`: engines' acceptance files read, converted to the three conventions, printed,
and optionally applied to a workbook's classes or one tier's overrides."""
from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import TextIO

from commands.runner import CommandError
from model import formatting as fmt
from model.metrics.read import ENGINES, applicable, missing_k, read_sources, source_note
from model.metrics.result import MetricsError, SourceResult
from model.workbook.json_file import load_workbook, save_workbook
from model.workbook.measured_apply import apply_plan, plan_measured
from model.workbook.validation import check_workbook


def add_import_metrics_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="Prometheus scrape(s) (two of one server: before, after), log, JSON lines, vllm bench or sample JSON")
    p.add_argument("--engine", choices=ENGINES, default="auto", help="which engine wrote the files (default: recognise)")
    p.add_argument("--task-class", metavar="NAME", help="task class for sources that name none")
    p.add_argument("--k", type=int, help="draft tokens per step, where the files do not say")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--apply", metavar="WORKBOOK", help="apply the alphas to this workbook's task classes (with -o)")
    p.add_argument("--tier", metavar="NAME", help="with --apply: set this tier's overrides instead of the classes")
    p.add_argument("--add-missing", action="store_true", help="with --apply: add classes the workbook lacks")
    p.add_argument("-o", "--output", metavar="OUT", help="with --apply: the workbook to write")


def _text(sources: list[SourceResult]) -> str:
    lines = []
    for s in sources:
        c = s.counts
        head = f"{s.file} [{s.engine}{', ' + s.model if s.model else ''}] class {s.task_class or '(none)'}  K = {c.k or '?'}"
        lines.append(head)
        lines.append(f"  per-token alpha {fmt.pct(c.alpha, 1)}   draft acceptance rate {fmt.pct(c.draft_acceptance_rate, 1)}"
                     f"   mean acceptance length {fmt.fixed(c.mean_acceptance_length, 2)}")
        if c.per_position_conditional is not None:
            lines.append("  per position (conditional): " + ", ".join(fmt.pct(x, 0) for x in c.per_position_conditional))
        lines.append(f"  applied alpha {fmt.pct(s.alpha_applied, 1)}: {s.alpha_rule}")
        lines.append(f"  {c.convention_note}")
        for note in s.to_dict()["notes"]:
            lines.append(f"  - {note}")
    return "\n".join(lines) + "\n"


def run_import_metrics(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out
    if (args.tier or args.output or args.add_missing) and not args.apply:
        raise CommandError("--tier, --add-missing and -o go with --apply WORKBOOK")
    if args.apply and not args.output:
        raise CommandError("--apply needs -o OUT: the workbook to write")
    try:
        sources = read_sources(args.files, engine=args.engine, k=args.k, task_class=args.task_class)
    except MetricsError as exc:
        raise CommandError(str(exc)) from None
    unknown = missing_k(sources)
    if unknown:
        files = ", ".join(sorted({s.file for s in unknown}))
        raise CommandError(f"K (draft tokens per step) is not in {files}; pass --k K")
    if args.json:
        json.dump({"sources": [s.to_dict() for s in sources]}, out, indent=2)
        out.write("\n")
    else:
        out.write(_text(sources))
    if args.apply:
        _apply(args, sources, out if not args.json else sys.stderr)
    return 0


def _apply(args: argparse.Namespace, sources: list[SourceResult], say: TextIO) -> None:
    try:
        chosen = applicable(sources)
    except MetricsError as exc:
        raise CommandError(str(exc)) from None
    if not chosen:
        raise CommandError("nothing to apply: no source has both a task class (give --task-class) and an alpha")
    wb = load_workbook(args.apply)
    if args.tier is not None and wb.tier_index(args.tier) is None:
        raise CommandError(f"--tier {args.tier!r}: no such tier in {args.apply}")
    today = date.today()
    todo, skipped = plan_measured(wb, chosen, args.add_missing)
    for item in todo:  # each source keeps its own note: engine, file, date
        apply_plan(wb, [item], source_note(item[1], today), args.tier, source="imported")
    check_workbook(wb, args.apply)
    save_workbook(wb, args.output)
    where = f"tier {args.tier}'s overrides" if args.tier else "task classes"
    say.write(f"applied to {len(todo)} {where} in {args.output}"
              + (f"; left out: {', '.join(skipped)}" if skipped else "") + "\n")

