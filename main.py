"""SpecLedger: is a vendor's "fast tier" worth it on your workload? Parses arguments and starts things."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

COMMANDS = ("calc", "compare", "export", "import", "sample", "screenshot")


def _calc_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calc", help="the arithmetic for one setting of K, c, v and alpha")
    p.add_argument("--k", type=int, required=True, help="draft tokens per stretch")
    p.add_argument("--c", type=float, required=True, help="one draft forward / one target decode step")
    p.add_argument("--verify", type=float, default=1.0, help="target verify pass / one decode step (default 1)")
    p.add_argument("--alpha", type=float, help="per-token acceptance")
    p.add_argument("--json", action="store_true", help="print JSON")


def _compare_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="the priced comparison of a workbook (the demo without one)")
    p.add_argument("workbook", nargs="?", help="workbook .json (default: the built-in demo)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--csv", action="store_true", help="print the (tier, class) rows as CSV")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="specledger", description=__doc__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _calc_parser(sub)
    _compare_parser(sub)
    for extra in _optional_parsers():
        extra(sub)
    return parser


def _optional_parsers() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Subcommands whose modules register their own arguments."""
    from model.cli_extensions import parsers
    return parsers()


def _gui_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="specledger", description=__doc__,
                                epilog=f"headless commands: {', '.join(COMMANDS)} (specledger COMMAND --help)")
    p.add_argument("workbook", nargs="?", help="workbook .json to open (default: the built-in demo)")
    return p


def _has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal", "vnc"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        args = build_parser().parse_args(argv)
        from model.cli_extensions import run_command
        return run_command(args)
    args = _gui_parser().parse_args(argv)
    if not _has_display():
        print("specledger: no display available, so the window cannot open; "
              "try the headless commands, e.g. `specledger compare` or `specledger screenshot out.png`", file=sys.stderr)
        return 2
    from gui.app import run_app
    return run_app(args.workbook)


if __name__ == "__main__":
    sys.exit(main())
