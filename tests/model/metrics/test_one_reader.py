"""One file, one reader: the probe's run file is read by the probe wing alone (model/probe/run_counts.py); the
metrics import is handed what it found (docs/dev/layout.md#one-reader-per-file)."""
from __future__ import annotations

from pathlib import Path

import model.metrics

WORDS = ("specledger-probe", "probe_run_kind", "probe_kind", "probe-run", "run_file", "probe run file")


def test_no_module_of_the_metrics_wing_names_the_probes_run_file() -> None:
    folder = Path(model.metrics.__file__).parent
    found = [(path.name, word) for path in sorted(folder.rglob("*.py"))
             for word in WORDS if word in path.read_text(encoding="utf-8").lower()]
    assert not found, found
