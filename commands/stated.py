"""`specledger import-metrics --stated 'rate=0.62,k=4,engine=vllm'` (or a small JSON, inline or a file): a figure a
vendor stated, in its own convention, converted to the others with the assumptions said, and with --apply set on a
task class or one tier's override (docs/reference/stated-acceptance.md)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from commands.runner import CommandError
from model.common import formatting as fmt
from model.acceptance.conventions import BY_KEY, CONVENTIONS, Conversion, StatedError, StatedFigure, convert, parse
from model.common.safe_files import FileRefused, read_text_limited
from model.workbook.assume_stated import assume_stated
from model.workbook.json_file import load_workbook, save_workbook
from model.workbook.validation import check_workbook

_P = fmt.printable


def read_stated(text: str) -> StatedFigure:
    """The --stated value: NAME=VALUE pairs, inline JSON, or the path of a small JSON file."""
    if not text.lstrip().startswith("{") and text.lower().endswith(".json") and "=" not in text:
        try:
            text = read_text_limited(text, limit_bytes=64 * 1024, what="stated figure")
        except FileRefused as exc:
            raise CommandError(_P(str(exc), 400)) from None
    try:
        return parse(text)
    except StatedError as exc:
        raise CommandError(_P(f"--stated: {exc}", 600)) from None


def conversion_text(c: Conversion) -> str:
    lines = [f"stated: {_P(c.figure.words, 300)}", "  in every convention:"]
    for conv in CONVENTIONS:
        value = c.values.get(conv.key)
        shown = (fmt.pct(value, 1) if conv.is_rate else fmt.fixed(value, 3)) if value is not None else \
            f"– ({c.missing.get(conv.key, 'not known')})"
        mark = "  (as stated)" if conv.key == c.figure.convention else ""
        pos = f" at position {c.figure.position or 1}" if conv.key == "position_cumulative" else ""
        lines.append(f"    {conv.name + pos:<58} {shown}{mark}")
        lines.append(f"      {conv.formula}; printed by {conv.printed_by}")
    for a in c.assumptions:
        lines.append(f"  assumed: {a}")
    return "\n".join(lines) + "\n"


def run_stated(args: argparse.Namespace, out: TextIO) -> int:
    figure = read_stated(args.stated)
    k = args.k[0] if isinstance(args.k, list) and args.k else args.k
    if k is not None and not isinstance(k, int):
        raise CommandError("--k with --stated is one K (a whole number), the K the figure was measured at")
    if figure.k is not None and k is not None and figure.k != k:
        raise CommandError(f"--stated says k={figure.k} but --k {k} was given")
    try:
        conversion = convert(figure, k)
    except StatedError as exc:
        raise CommandError(_P(f"--stated: {exc}", 600)) from None
    if args.json:
        json.dump({"stated": conversion.to_dict()}, out, indent=2)
        out.write("\n")
    else:
        out.write(conversion_text(conversion))
    if args.apply:
        _apply(args, figure, k, sys.stderr if args.json else out)
    return 0


def _apply(args: argparse.Namespace, figure: StatedFigure, k: int | None, say: TextIO) -> None:
    if not args.task_class:
        raise CommandError("--stated with --apply needs --task-class NAME: the class the figure is for")
    wb = load_workbook(args.apply)
    try:
        row = assume_stated(wb, args.task_class, figure, k, args.tier)
    except ValueError as exc:
        raise CommandError(_P(str(exc), 600)) from None
    check_workbook(wb, args.apply)
    save_workbook(wb, args.output)
    where = f"tier {args.tier}'s override on {args.task_class}" if args.tier else f"task class {args.task_class}"
    what = (f"alpha {fmt.pct(row.alpha, 1)}" if row.acceptance_length is None else
            f"mean acceptance length {row.acceptance_length:.3f} at K = {row.acceptance_length_k} (alpha "
            f"{fmt.pct(row.alpha, 1)} its i.i.d. summary)")
    say.write(_P(f"applied to {where} in {Path(args.output).name}: {what}; source assumed, note '{row.source_note}'",
                 800) + "\n")


def conventions_help() -> str:
    return "; ".join(f"{c.key} ({c.name})" for c in CONVENTIONS if c.key in BY_KEY)
