"""What a probe measured, from its run file into a workbook, through the same ``apply_probe`` as the window's Apply:

    specledger probe --from-run RUN.jsonl --apply WORKBOOK --tier NAME [-o OUT] [--add-missing] [--set-k]
    specledger import-metrics RUN.jsonl --apply WORKBOOK --tier NAME [-o OUT]

A run whose server reported no counts (the steps timed, not counted) applies too: its measured speedup (and, by
level, the speedup at each concurrency) beside the claim, with no alpha. The run file is read by the probe's own
reader (model/probe/run_file.py) and analysed as `probe --from-run` analyses it.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TextIO

from commands.runner import CommandError
from model.common import formatting as fmt
from model.probe.analysis import ProbeReport, analyse
from model.probe.apply import apply_probe, disagreeing_sources
from model.probe.run_file import read_run
from model.workbook.json_file import load_workbook, save_workbook
from model.workbook.rows import Workbook
from model.workbook.validation import check_workbook

# -o is a workbook .json: never a report, a metrics file or a run file by a slip of the keys
_NOT_WORKBOOK = (".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv", ".prom", ".log", ".txt", ".jsonl", ".metrics")


def add_apply_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--apply", type=Path, metavar="WORKBOOK",
                        help="with --from-run and --tier: apply what the run measured to that tier of this workbook "
                             "(alpha per class as overrides, the speculative flag, the measured speedup), as the "
                             "window's Apply does; written to -o OUT, or back to WORKBOOK")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", help="with --apply: the workbook to write")
    parser.add_argument("--add-missing", action="store_true", help="with --apply: add classes the workbook lacks")
    parser.add_argument("--set-k", action="store_true",
                        help="with --apply: where the run's K differs from the tier's, set the tier's K to it")


def check_apply_arguments(args: argparse.Namespace) -> None:
    """Refused before anything is read: --apply's companions without it, or --apply without a run and a tier."""
    applying = getattr(args, "apply", None) is not None
    if not applying and (getattr(args, "output", None) is not None or getattr(args, "set_k", False)
                         or getattr(args, "add_missing", False)):
        raise CommandError("-o, --add-missing and --set-k go with --apply WORKBOOK")
    if applying and (args.from_run is None or not args.tier):
        raise CommandError("--apply WORKBOOK goes with --from-run RUN.jsonl and --tier NAME: the run to apply and the "
                           "tier it measured")


def check_output(target: Path, inputs: list[Path]) -> None:
    """-o is a workbook .json, never one of the files read, and it replaces nothing but a workbook."""
    if target.suffix.lower() in _NOT_WORKBOOK or os.path.realpath(target) in {os.path.realpath(f) for f in inputs}:
        raise CommandError(f"{fmt.printable(target)}: -o is the workbook .json to write, not a report, a metrics or a "
                           "run file; nothing was written")
    if target.is_file():
        try:
            load_workbook(target)
        except Exception:  # noqa: BLE001 - whatever it is, it is not a workbook to replace
            raise CommandError(f"{fmt.printable(target)}: exists and is not a SpecLedger workbook; -o does not "
                               "overwrite other files (nothing was written)") from None


def tier_of(workbook_path: Path, tier: str) -> tuple[Workbook, int]:
    wb = load_workbook(workbook_path)
    i = wb.tier_index(tier)
    if i is None:
        raise CommandError(f"--tier {fmt.printable(tier)!r}: no such tier in {fmt.printable(workbook_path)}")
    return wb, i


def apply_report(report: ProbeReport, wb: Workbook, tier: str, workbook_path: Path, output: Path | None,
                 say: TextIO, *, add_missing: bool = False, set_k: bool = False) -> None:
    """apply_probe on ``wb``, checked by the one validator, saved (atomically) to ``output`` or back to
    ``workbook_path``; one line on what was applied and what was left out."""
    target = output if output is not None else workbook_path
    skipped = apply_probe(wb, report, tier, add_missing=add_missing, set_k=set_k)
    check_workbook(wb, str(workbook_path))
    save_workbook(wb, target)
    row = wb.tiers[wb.tier_index(tier)]  # type: ignore[index]
    alphas = [c.task_class for c in report.classes if c.alpha is not None and
              not any(s.startswith(f"{c.task_class} ") or s == c.task_class for s in skipped)]
    parts = [f"alpha for {fmt.count(len(alphas), 'class', 'classes')}" + (f" ({', '.join(alphas)})" if alphas else "")]
    if row.measured_speedup is not None:
        parts.append(f"measured speedup {fmt.times(row.measured_speedup)} ({row.measured_note})")
    say.write(fmt.printable(f"applied the probe to tier {tier} in {target}: " + "; ".join(parts)
                            + (f"; left out: {', '.join(skipped)}" if skipped else ""), 900) + "\n")
    if disagreeing_sources(report):
        say.write(fmt.printable(disagreeing_sources(report), 600) + "\n")


def apply_run(run: Path, args: argparse.Namespace, say: TextIO) -> ProbeReport:
    """import-metrics RUN --apply: the probe's reader and analysis, then apply_report; the report is returned to
    be shown."""
    if args.output is not None:
        check_output(Path(args.output), [run])
    wb, i = tier_of(Path(args.apply), args.tier)
    header, records = read_run(run)
    report = analyse(records, {**header, "tier_k": wb.tiers[i].k}, getattr(args, "confidence", 0.95))
    apply_report(report, wb, args.tier, Path(args.apply), Path(args.output) if args.output else None, say,
                 add_missing=getattr(args, "add_missing", False), set_k=getattr(args, "set_k", False))
    return report

