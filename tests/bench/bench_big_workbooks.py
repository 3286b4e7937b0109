"""Peak memory and time of `compare --json` / `--csv` against workbook size, up to the size limits
and past them (the issue's 300,000 classes x 8 tiers and 60,000 tiers x 6 classes, which are refused).

Each run is a fresh `main.py compare` process; its peak resident size comes from wait4, so the
figures include the interpreter, the imports, reading and checking the file, the comparison and
the output (written to /dev/null). The per-pair columns show how each grows with the pairs. The
files are written by another process: Linux counts the peak a forked child inherited from its
parent, so this process stays small (it imports nothing of the model).

Run: python tests/bench/bench_big_workbooks.py [--quick]   (--quick: the smaller sizes only)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (tiers, classes): up to the limits (5,000 tiers, 20,000 task classes, 250,000 pairs), then the
# issue's two files, which are refused past them
SIZES = [(8, 1_000), (8, 10_000), (50, 5_000), (5_000, 50), (12, 20_000), (1_000, 6), (5_000, 6)]
REFUSED = [(8, 300_000), (60_000, 6)]


def write(n_tiers: int, n_classes: int, path: Path) -> None:
    """The workbook file as large_workbook makes it, rows as the issue's (only the fields a file must give)."""
    sys.path.insert(0, str(ROOT))
    from model.workbook.json_file import FORMAT_NAME, SCHEMA_VERSION
    from tests.bench.workbooks import large_workbook

    wb = large_workbook(n_tiers, n_classes)
    classes = [{"name": c.name, "tokens_out": c.tokens_out, "tokens_in": c.tokens_in, "context": c.context,
                "alpha": c.alpha} for c in wb.classes]
    data = {"format": FORMAT_NAME, "schema_version": SCHEMA_VERSION, "title": wb.title,
            "settings": asdict(wb.settings), "tiers": [asdict(t) for t in wb.tiers], "task_classes": classes,
            "overrides": [asdict(o) for o in wb.overrides]}
    path.write_text(json.dumps(data), encoding="utf-8")


def run(path: Path, mode: str) -> tuple[float, float, int]:
    """(seconds, peak resident MB, exit code) of one compare process."""
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        proc = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "compare", str(path), mode], stdout=sink,
                                stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    peak_mb = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return seconds, peak_mb, os.waitstatus_to_exitcode(status)


def main() -> None:
    if sys.argv[1:2] == ["--write"]:
        write(int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
        return
    quick = "--quick" in sys.argv
    sizes = SIZES[:2] + SIZES[5:6] if quick else SIZES
    print(f"{'tiers':>7} {'classes':>8} {'pairs':>9} {'file MB':>8} {'mode':>6} {'exit':>4} {'time s':>7} "
          f"{'peak MB':>8} {'ms/1k pairs':>11} {'KB/pair':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for n_tiers, n_classes in sizes + ([] if quick else REFUSED):
            path = Path(folder) / f"wb_{n_tiers}x{n_classes}.json"
            subprocess.run([sys.executable, __file__, "--write", str(n_tiers), str(n_classes), str(path)], check=True)
            pairs = n_tiers * n_classes
            for mode in ("--json", "--csv"):
                seconds, peak, code = run(path, mode)
                print(f"{n_tiers:>7,} {n_classes:>8,} {pairs:>9,} {path.stat().st_size / 1e6:>8.1f} {mode:>6} "
                      f"{code:>4} {seconds:>7.1f} {peak:>8.0f} {seconds / pairs * 1e6:>11.1f} "
                      f"{peak * 1024 / pairs:>8.2f}", flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
