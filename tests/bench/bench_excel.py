"""Time the Excel report export, today's exporter against an older one, in one run.

Run: python tests/bench/bench_excel.py [repeats]
     python tests/bench/bench_excel.py [repeats] --against REV [--rounds N] [--only demo,100x30,profiles]

Without --against: the old exporter (openpyxl, no saved values) is taken from git
commit 8546a61 into a temporary package, so both are timed side by side on the
same machine load. Prints, per workbook, the best and median wall time of
export_report (compare, building the sheets, writing the file atomically) for
each, their ratio, the number of formula cells and the file sizes.

With --against REV (a commit): REV's tree is taken from git (git archive, into a
temporary folder), and each tree exports each workbook in a fresh process of its
own (its own code and its own tests/bench/workbooks.py, the same seeds), the trees
taking turns (ABAB...) for --rounds rounds so both meet the same machine load.
Printed per tree and round: best and median export wall time and CPU time of the
exporting process (which the machine's other load barely moves), formula cells,
file size, compare and build_report times; then the ratios today / REV of each
round's best and median. A workbook REV cannot build is said so.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# a child timing another tree has that tree first on its path (PYTHONPATH), not this one
if "--child" not in sys.argv:
    sys.path.insert(0, str(ROOT))

from model.workbook.rows import Workbook  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402

OLD_COMMIT = "8546a61"
OLD_FILES = ("__init__", "charts", "context_sheet", "export", "inputs_sheet", "layout", "styles")


def _old_exporter(folder: Path):  # noqa: ANN202  (the old export module)
    """The exporter as of OLD_COMMIT, as package `old_report` in `folder` (its imports pointed at itself)."""
    package = folder / "old_report"
    package.mkdir()
    for name in OLD_FILES:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:model/report/{name}.py"],
                              check=True, capture_output=True, text=True).stdout
        (package / f"{name}.py").write_text(text.replace("model.report", "old_report"))
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_report.export")


def _time(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def bench(name: str, wb: Workbook, repeats: int, folder: Path, old, new) -> None:  # noqa: ANN001
    rows = {}
    for label, module in (("old (openpyxl)", old), ("new (XlsxWriter)", new)):
        target = folder / f"{name}-{label.split()[0]}.xlsx"
        module.export_report(wb, target)  # warm-up: imports, caches
        times = _time(lambda: module.export_report(wb, target), repeats)
        rows[label] = times
        print(f"{name:<9} {label:<17} export best {min(times) * 1e3:7.0f} ms  median {statistics.median(times) * 1e3:7.0f} ms"
              f"  {len(module.build_report(wb)[1]):>6} formula cells  {target.stat().st_size / 1024:7.0f} KiB")
    old_best, new_best = (min(t) for t in rows.values())
    print(f"{name:<9} new / old: {new_best / old_best:.2f} (best of {repeats})")


def _child(name: str, repeats: int) -> int:
    """Runs inside the tree under test: times its own export of workbook `name`, prints the figures as JSON."""
    import model.report.export as module
    from model.comparison import compare
    import tests.bench.workbooks as books

    makers = {"demo": load_demo, "100x30": lambda: large_workbook(100, 30),
              "profiles": lambda: books.profile_workbook(100, 30)}
    if name == "profiles" and not hasattr(books, "profile_workbook"):
        print("FIGURES " + json.dumps({"skipped": "no profile_workbook in this tree"}), flush=True)
        return 0
    wb = makers[name]()
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "r.xlsx"
        module.export_report(wb, target)  # warm-up: imports, caches
        times, cpu = [], []
        for _ in range(repeats):  # wall time, and this process's CPU time (which other processes barely move)
            t0, c0 = time.perf_counter(), time.process_time()
            module.export_report(wb, target)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        size = target.stat().st_size
    t0 = time.perf_counter()
    compare(wb)
    compare_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    data, cells = module.build_report(wb)
    build_s = time.perf_counter() - t0
    print("FIGURES " + json.dumps({"times": times, "cpu": cpu, "formulas": len(cells), "size": size, "compare": compare_s,
                                   "build": build_s, "model": module.__file__}), flush=True)
    return 0


def _run_child(tree: Path, name: str, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", name, str(repeats)],
                          capture_output=True, text=True, env=env, cwd=str(tree), timeout=3600)
    for line in proc.stdout.splitlines():
        if line.startswith("FIGURES "):
            return json.loads(line[8:])
    lines = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}").splitlines()
    return {"skipped": "failed: " + lines[-1]}


def against(rev: str, repeats: int, rounds: int, names: list[str]) -> None:
    from tests.bench.bench_gui import _tree_of  # REV's files from git archive, as the GUI bench takes them

    with tempfile.TemporaryDirectory(prefix="specledger-bench-tree-") as folder:
        old = _tree_of(rev, Path(folder))
        trees = {old.name: old, "today": ROOT}
        for name in names:
            runs: dict[str, list[dict]] = {tree: [] for tree in trees}
            for r in range(rounds):
                for tree in (list(trees) if r % 2 == 0 else list(reversed(list(trees)))):
                    got = _run_child(trees[tree], name, repeats)
                    if "skipped" in got:
                        print(f"{name:<9} {tree:<8} round {r + 1}: {got['skipped']}", flush=True)
                        continue
                    runs[tree].append(got)
                    t = got["times"]
                    c = got["cpu"]
                    print(f"{name:<9} {tree:<8} round {r + 1}: export wall best {min(t) * 1e3:6.0f} median "
                          f"{statistics.median(t) * 1e3:6.0f} ms, cpu best {min(c) * 1e3:6.0f} median "
                          f"{statistics.median(c) * 1e3:6.0f} ms  (compare {got['compare'] * 1e3:5.0f} ms, build_report "
                          f"{got['build'] * 1e3:6.0f} ms)  {got['formulas']:>7} formula cells  "
                          f"{got['size'] / 1024:6.0f} KiB", flush=True)
            if all(runs.values()):
                for key in ("times", "cpu"):
                    ratios = [(min(new[key]) / min(was[key]), statistics.median(new[key]) / statistics.median(was[key]))
                              for was, new in zip(runs[old.name], runs["today"])]
                    print(f"{name:<9} today / {old.name}, {'wall' if key == 'times' else 'cpu':<4}: best x "
                          f"{', '.join(f'{b:.2f}' for b, _ in ratios)}   median x "
                          f"{', '.join(f'{m:.2f}' for _, m in ratios)}  (each round)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    parser.add_argument("repeats", nargs="?", type=int, default=5, help="exports per workbook and run")
    parser.add_argument("--against", metavar="REV", help="an older commit timed side by side, one process each")
    parser.add_argument("--rounds", type=int, default=2, help="runs per tree and workbook, taking turns")
    parser.add_argument("--only", default="demo,100x30", help="workbooks: demo, 100x30, profiles")
    parser.add_argument("--child", nargs=2, metavar=("WORKBOOK", "REPEATS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.exit(_child(args.child[0], int(args.child[1])))
    if args.against:
        against(args.against, args.repeats, args.rounds, [n.strip() for n in args.only.split(",") if n.strip()])
        return
    t0 = time.perf_counter()
    import model.report.export as new
    print(f"import of the new export modules and XlsxWriter: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        old = _old_exporter(Path(tmp))
        for name, wb in (("demo", load_demo()), ("100 x 30", large_workbook(100, 30))):
            bench(name, wb, repeats=args.repeats, folder=Path(tmp), old=old, new=new)


if __name__ == "__main__":
    main()
