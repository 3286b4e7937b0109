"""The GUI's speed, measured in one run, today's tree against an older one side by side.

Run: QT_QPA_PLATFORM=offscreen python tests/bench/bench_gui.py [EDITS] [--against REV] [--rounds N]
        [--no-start] [--starts N] [--compile-each-start] [--only demo,100x30,profiles]

1. Process start to first painted window: a fresh interpreter runs `main.py` (no
   argument: the demo workbook) and reports the first Paint event of its main
   window with the process's CPU time by then; the clock starts before the
   interpreter is launched. The trees take turns, --starts times each. By default
   Python's bytecode cache is written (one start per tree, not timed) and read, as
   an installed app's second start reads it; --compile-each-start removes the
   trees' own caches and compiles their modules at every start.
2. Committed cell edit to everything updated: model.setData (what the delegate
   calls when Enter is pressed) -> undo step -> coalesced recompute -> every
   table model's dataChanged -> charts' show_result -> pending repaints of the
   window processed. Median and p95 over many edits, for the demo workbook, a
   generated 100-tier x 30-class workbook, and the same 100 x 30 with every class
   and override a 16-position profile. Targets (2 cores): p95 <= 16 ms on the
   demo, <= 33 ms at 100 x 30 with or without profiles.

With --against REV (a commit, e.g. the session's start), REV's tree is taken
from git (git archive, into a temporary folder) and each workbook is timed in a
fresh process per tree, the trees taking turns (ABAB...) for --rounds rounds,
so both meet the same machine load; the edits and workbooks are this script's
for both. Printed: per tree and round the median and p95 of wall time and of the
GUI thread's CPU time (which other processes on a shared machine barely move),
then the pooled figures and the ratios today / REV of each round's median and p95.

Each edit is also split in three, on the same clock (the pooled lines marked "split"): "edit" is
model.setData returning (the copy, the checks, the undo step), "compare" the first read of
document.comparison after it (the bench reads it before the event loop delivers the change, so the
GUI's handlers find it computed: the same work, only attributed), and "after" everything from there to
the repaints processed: the table models' dataChanged, the charts' show_result, the status line and
the paints. edit + compare is the model's side, after the GUI's.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
# tests.first_paint, whatever the folder it is run from: last, so a tree's child (its folder first on the path)
# imports that tree's modules, not these
sys.path.append(str(ROOT))

# the child: main.py run as tests/first_paint.py runs it, saying when its window first paints and the CPU time by then
_CHILD = r"""
import sys, time
sys.path.insert(0, {root!r})
def on_import():
    pass
def on_paint(window):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    print("painted", time.process_time(), flush=True)
    window.document.undo_stack.setClean()
    QTimer.singleShot(0, QApplication.instance().quit)
"""

# workbook name -> (label, target p95 in ms, the class column the class edits type into)
WORKBOOKS = {
    "demo": ("demo (8x6)", 16.0, "alpha"),
    "100x30": ("100 x 30", 33.0, "alpha"),
    # typing an alpha replaces a class's profile (rows.drop_acceptance_shape), so profiles are kept
    # by editing the context length, which moves every cell of that class as an alpha does
    "profiles": ("100 x 30, 16-position profiles", 33.0, "context"),
}


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"), PYTHONPATH=str(tree))
    # keep the user's QSettings out of it: a throwaway config home
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="specledger-bench-")
    return env


def _bytecode_env(tree: Path, cached: bool) -> dict[str, str]:
    """The child's environment: with ``cached``, Python writes and reads its bytecode cache as an installed app
    does from its second start (PYTHONDONTWRITEBYTECODE, which a development shell may set, is dropped);
    without, the tree's own modules are compiled at every start (their __pycache__ folders removed first)."""
    env = _env(tree)
    if cached:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for package in ("gui", "model", "commands"):
            for cache in (tree / package).rglob("__pycache__"):
                shutil.rmtree(cache, ignore_errors=True)
    return env


def first_window(tree: Path = ROOT, cached: bool = True) -> tuple[float, float]:
    """Wall time from launching ``python main.py`` (the demo workbook) to the first Paint of its main window,
    and the process's CPU time by then (interpreter start included)."""
    start = time.perf_counter()
    from tests.first_paint import RUN_MAIN

    proc = subprocess.Popen([sys.executable, "-c", _CHILD.format(root=str(tree)) + RUN_MAIN],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=_bytecode_env(tree, cached), cwd=str(tree))
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.wait(timeout=60)
    if not line.startswith("painted "):
        raise RuntimeError("the window never painted")
    return elapsed, float(line.split()[1])


def first_window_seconds(tree: Path = ROOT, repeats: int = 3) -> list[float]:
    """Wall time of ``repeats`` starts to the first painted window (bytecode cached)."""
    return [first_window(tree)[0] for _ in range(repeats)]


def start_up(trees: dict[str, Path], starts: int, cached: bool) -> None:
    """Process start to first painted window, the trees taking turns; best and median of wall and CPU time, and
    (two trees) the ratios of the last to the first."""
    if cached:
        for tree in trees.values():
            first_window(tree)  # writes the bytecode cache; not timed
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for r in range(starts):
        for name in (list(trees) if r % 2 == 0 else list(reversed(list(trees)))):
            runs[name].append(first_window(trees[name], cached))
    cache_words = "bytecode cached" if cached else "compiled at each start"
    for name, got in runs.items():
        wall, cpu = [w for w, _ in got], [c for _, c in got]
        print(f"process start -> first painted window ({cache_words}), {name:<8} wall best {min(wall):.2f} "
              f"median {statistics.median(wall):.2f} s   cpu best {min(cpu):.2f} median {statistics.median(cpu):.2f} s"
              f"   runs {', '.join(f'{w:.2f}' for w in wall)} s", flush=True)
    if len(trees) == 2:
        old, new = (runs[name] for name in trees)
        for i, clock in enumerate(("wall", "cpu")):
            a, b = [run[i] for run in old], [run[i] for run in new]
            print(f"  today / {next(iter(trees))}, {clock}: best x {min(b) / min(a):.2f}   "
                  f"median x {statistics.median(b) / statistics.median(a):.2f}", flush=True)


def make_workbook(name: str):  # noqa: ANN201  (a Workbook of whichever tree is imported)
    sys.path.insert(0, str(BENCH))
    from workbooks import large_workbook, profile_workbook

    from model.workbook.json_file import load_demo

    return {"demo": load_demo, "100x30": lambda: large_workbook(100, 30),
            "profiles": lambda: profile_workbook(100, 30, 16)}[name]()


def edit_latencies(workbook, edits: int, class_column: str = "alpha", cpu: list[float] | None = None,  # noqa: ANN001
                   split: dict[str, list[float]] | None = None) -> list[float]:
    """Wall time of each edit; with ``cpu``, this thread's CPU time of each edit is appended to it (what other
    processes on a shared machine barely move: the GUI's own work, painting included, runs on this thread).
    With ``split``, each edit's phases are appended to it: "<phase> wall" and "<phase> cpu" for the phases
    edit, compare and after (the module's docstring says what each holds)."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from gui.window.app import application
    from gui.window.main_window import MainWindow

    app = application()
    settings = QSettings(os.path.join(tempfile.mkdtemp(prefix="specledger-bench-"), "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(workbook, None, settings)
    window.resize(1600, 980)
    window.show()
    window.tier_view.setCurrentIndex(window.tier_model.index(1, 0))
    for _ in range(5):
        app.processEvents()
    try:  # what run_app does once the window is up (trees before it had none)
        from gui.window.app import settle_start_up
    except ImportError:
        pass
    else:
        settle_start_up()
    done = []
    # connected last, so it runs after the models and the charts have handled the change
    window.document.changed.connect(lambda: done.append(True))
    class_col = window.class_model.column_of(class_column)
    k_col = window.tier_model.column_of("k")
    n_classes, n_tiers = len(workbook.classes), len(workbook.tiers)
    samples = []
    for i in range(edits):
        # alternate class edits (alpha, or context) and tier-K edits, on different rows, always a new value
        if i % 2 == 0:
            j = i % n_classes
            row = window.document.workbook.classes[j]
            if class_column == "alpha":
                alpha = 0.40 + (i % 50) / 100
                if abs(row.alpha - alpha) < 1e-9:
                    alpha += 0.005
                value = f"{alpha * 100:g}%"
            else:
                context = 1024 * (1 + i % 31)
                value = str(context + 512 if row.context == context else context)
            model, index = window.class_model, window.class_model.index(j, class_col)
        else:
            row = 1 + (i % (n_tiers - 1))
            k = 2 + i % 7
            if window.document.workbook.tiers[row].k == k:
                k += 1
            model, index, value = window.tier_model, window.tier_model.index(row, k_col), str(k)
        done.clear()
        start, start_cpu = time.perf_counter(), time.thread_time()
        if not model.setData(index, value):
            raise RuntimeError(f"edit {i} refused: {window.statusBar().currentMessage()}")
        edited, edited_cpu = time.perf_counter(), time.thread_time()
        window.document.comparison  # noqa: B018  (computed here rather than in the first handler: attributed)
        compared, compared_cpu = time.perf_counter(), time.thread_time()
        while not done:
            app.processEvents()
        app.processEvents()  # the repaints the change scheduled
        end, end_cpu = time.perf_counter(), time.thread_time()
        samples.append(end - start)
        if cpu is not None:
            cpu.append(end_cpu - start_cpu)
        if split is not None:
            for phase, wall, cpu_time in (("edit", edited - start, edited_cpu - start_cpu),
                                          ("compare", compared - edited, compared_cpu - edited_cpu),
                                          ("after", end - compared, end_cpu - compared_cpu)):
                split.setdefault(f"{phase} wall", []).append(wall)
                split.setdefault(f"{phase} cpu", []).append(cpu_time)
    window.document.undo_stack.setClean()
    window.close()
    QApplication.processEvents()
    return samples


def _stats(samples_ms: list[float]) -> tuple[float, float]:
    ms = sorted(samples_ms)
    return statistics.median(ms), ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]


def _child(workbook: str, edits: int) -> int:
    """Runs inside the tree under test (its folder first on sys.path): prints the samples in ms as JSON."""
    wb = make_workbook(workbook)
    cpu: list[float] = []
    split: dict[str, list[float]] = {}
    samples = edit_latencies(wb, edits, WORKBOOKS[workbook][2], cpu, split)
    out = {"wall": [s * 1000 for s in samples], "cpu": [s * 1000 for s in cpu]}
    out.update({key: [s * 1000 for s in values] for key, values in split.items()})
    print("SAMPLES " + json.dumps(out), flush=True)
    return 0


def _run_child(tree: Path, workbook: str, edits: int) -> dict[str, list[float]] | str:
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", workbook, str(edits)],
                          capture_output=True, text=True, env=_env(tree), cwd=str(tree), timeout=1800)
    for line in proc.stdout.splitlines():
        if line.startswith("SAMPLES "):
            return json.loads(line[8:])
    lines = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}").splitlines()
    return "failed: " + lines[-1]


def _tree_of(rev: str, folder: Path) -> Path:
    """REV's files (as committed) in ``folder``, from git archive: no worktree or branch is touched."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], check=True,
                            capture_output=True, text=True).stdout.strip()
    archive = folder / "tree.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), commit], check=True)
    target = folder / commit
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return target


def _line(label: str, tree: str, run: dict[str, list[float]], target: float) -> str:
    ms = run["wall"]
    median, p95 = _stats(ms)
    cpu_median, cpu_p95 = _stats(run["cpu"])
    return (f"  {tree:<10} {label:<8} wall median {median:6.1f} p95 {p95:6.1f} max {max(ms):6.1f} ms   "
            f"cpu median {cpu_median:5.1f} p95 {cpu_p95:5.1f} ms   n={len(ms):<4} "
            f"p95 <= {target:.0f} ms: {'OK' if p95 <= target else 'OVER'}")


PHASES = ("edit", "compare", "after")


def _split_line(tree: str, run: dict[str, list[float]]) -> str | None:
    """The pooled phases of an edit (median / p95 of each, CPU then wall); None for a run without them."""
    if not all(f"{phase} cpu" in run for phase in PHASES):
        return None
    parts = []
    for clock in ("cpu", "wall"):
        parts.append(f"{clock} " + "  ".join(f"{phase} {_stats(run[f'{phase} {clock}'])[0]:5.1f}/"
                                             f"{_stats(run[f'{phase} {clock}'])[1]:5.1f}" for phase in PHASES))
    return f"  {tree:<10} split    (median/p95 ms) " + "   ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    parser.add_argument("edits", nargs="?", type=int, default=200, help="edits per demo run (half at 100 x 30)")
    parser.add_argument("--against", metavar="REV", help="an older commit timed side by side")
    parser.add_argument("--rounds", type=int, default=2, help="runs per tree and workbook, taking turns")
    parser.add_argument("--no-start", action="store_true", help="skip process start to first window")
    parser.add_argument("--starts", type=int, default=6, help="starts per tree to the first window, taking turns")
    parser.add_argument("--compile-each-start", action="store_true",
                        help="start without the bytecode cache (the trees' modules compiled at every start)")
    parser.add_argument("--only", default=",".join(WORKBOOKS), help="workbooks: " + ",".join(WORKBOOKS))
    parser.add_argument("--child", nargs=2, metavar=("WORKBOOK", "EDITS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.child[0], int(args.child[1]))

    with tempfile.TemporaryDirectory(prefix="specledger-bench-tree-") as folder:
        trees = {"today": ROOT}
        if args.against:
            old = _tree_of(args.against, Path(folder))
            trees = {old.name: old, "today": ROOT}
        if not args.no_start:
            start_up(trees, args.starts, not args.compile_each_start)
        for workbook in [w.strip() for w in args.only.split(",") if w.strip()]:
            label, target, column = WORKBOOKS[workbook]
            edits = args.edits if workbook == "demo" else max(40, args.edits // 2)
            print(f"edit -> all updated, {label} (class {column} and tier K edits, {edits} a run):", flush=True)
            runs: dict[str, list[dict[str, list[float]]]] = {name: [] for name in trees}
            for r in range(args.rounds):
                order = list(trees) if r % 2 == 0 else list(reversed(list(trees)))
                for name in order:
                    got = _run_child(trees[name], workbook, edits)
                    if isinstance(got, str):
                        print(f"  {name:<10} round {r + 1:<5} {got}", flush=True)
                        continue
                    runs[name].append(got)
                    print(_line(f"round {r + 1}", name, got, target), flush=True)
            for name, rs in runs.items():
                if rs:
                    print(_line("pooled", name, {key: [x for run in rs for x in run[key]] for key in ("wall", "cpu")},
                                target))
            for name, rs in runs.items():
                split = _split_line(name, {key: [x for run in rs for x in run[key]] for key in rs[0]}) if rs else None
                if split:
                    print(split)
            if args.against and all(runs.values()):
                old_name = next(iter(trees))
                for key in ("wall", "cpu"):
                    ratios = [(_stats(new[key])[0] / _stats(old[key])[0], _stats(new[key])[1] / _stats(old[key])[1])
                              for old, new in zip(runs[old_name], runs["today"])]
                    print(f"  today / {old_name}, {key:<4}: median x {', '.join(f'{m:.2f}' for m, _ in ratios)}   "
                          f"p95 x {', '.join(f'{p:.2f}' for _, p in ratios)}  (each round)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
