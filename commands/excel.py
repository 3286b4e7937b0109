"""The `export` and `import` subcommands: a workbook to an Excel report, and inputs back into a workbook."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from commands.runner import CommandError
from model.common import formatting as fmt
from model.common.safe_files import check_output_target, symlink_note
from model.workbook.rows import Workbook
from model.workbook.json_file import load_demo, load_workbook, save_workbook


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("workbook", nargs="?", help="workbook .json (default: the built-in demo)")
    p.add_argument("-o", "--output", required=True, help="report .xlsx to write (replaced atomically)")


def run_export(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # looked up per call: a default bound at import outlives a replaced stdout
    from model.report.export import export_report

    requested = Path(args.output)
    if requested.suffix.lower() != ".xlsx":
        raise CommandError(f"{requested}: the report must be an .xlsx file")
    target = check_output_target(requested, "report")
    wb = load_demo() if args.workbook is None else load_workbook(args.workbook)
    source = Path(args.workbook).name if args.workbook else "built-in demo"
    export_report(wb, target, source)
    note = symlink_note(requested, target)
    out.write(f"wrote {target} ({fmt.count(len(wb.tiers), 'tier')} x {fmt.count(len(wb.classes), 'task class', 'task classes')})"
              f"{f'; {note}' if note else ''}\n")
    return 0


_SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv")


def add_import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="a SpecLedger report .xlsx, or with --tiers/--classes a .csv or .xlsx list")
    p.add_argument("-o", "--output", required=True, help="workbook .json to write")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--tiers", action="store_true", help="SOURCE is a list of tiers (header row; names case-insensitive)")
    kind.add_argument("--classes", action="store_true", help="SOURCE is a list of task classes (header row)")
    p.add_argument("--decimal", choices=(".", ","), default=None,
                   help="with --tiers/--classes: the decimal mark of numbers written as text (default: ',' for a CSV "
                        "separated by ';', else '.'); numbers that read two ways (1,500 with ',') are refused")
    p.add_argument("--into", help="with --tiers/--classes: workbook .json to merge into (a row of the same name takes only the columns the file has; "
                   "default: an empty workbook)")


def run_import(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # looked up per call: a default bound at import outlives a replaced stdout
    from model.report.importer import import_report
    from model.report.price_list import merge_rows, read_price_list

    if args.into and not (args.tiers or args.classes):
        raise CommandError("--into only goes with --tiers or --classes")
    if args.decimal and not (args.tiers or args.classes):
        raise CommandError("--decimal only goes with --tiers or --classes (a report's numbers are numbers)")
    target = Path(args.output)
    # -o names the workbook .json to write: a slip of the keys must never put JSON over the report or list
    # (realpath, not resolve: a symlink loop must not raise here)
    if target.suffix.lower() in _SPREADSHEET_SUFFIXES or os.path.realpath(target) == os.path.realpath(args.source):
        raise CommandError(f"{target}: -o is the workbook .json to write, not a spreadsheet; "
                           "nothing was written")
    check_output_target(target, "workbook")  # before the reading, not after it
    if args.tiers or args.classes:
        kind = "tiers" if args.tiers else "classes"
        base = load_workbook(args.into) if args.into else Workbook()
        merged = merge_rows(base, read_price_list(args.source, kind, decimal=args.decimal))
        wb = merged.workbook
        what = merged.summary().rstrip(".")
    else:
        wb = import_report(args.source)
        what = f"{fmt.count(len(wb.tiers), 'tier')}, {fmt.count(len(wb.classes), 'task class', 'task classes')}, {fmt.count(len(wb.overrides), 'override')}"
    written = save_workbook(wb, args.output)
    note = symlink_note(args.output, written)
    out.write(f"wrote {written} ({what}){f'; {note}' if note else ''}\n")
    return 0
