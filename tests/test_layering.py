"""The layering of the packages, declared as import-linter contracts in pyproject.toml, holds; and each
contract really catches the import it forbids (checked on a copy of the tree with one bad import added)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

pytest.importorskip("importlinter")

PACKAGES = ("model", "gui", "commands")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    # import-linter reads [tool.importlinter] from pyproject.toml in the folder it runs in
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
                           "--no-cache"], cwd=root, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def test_the_contracts_hold_on_the_tree() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " broken" in result.stdout and "0 broken" in result.stdout


# (file to change, line to add, the contract that must then break)
VIOLATIONS = [
    ("model/arithmetic.py", "import PySide6.QtCore", "model is plain Python: no Qt, no front end"),
    ("model/workbook/rows.py", "import gui.document", "model is plain Python: no Qt, no front end"),
    ("model/comparison.py", "import model.report.layout", "the core of model imports none of its wings"),
    ("model/safe_files.py", "import model.sampling.prompts", "the core of model imports none of its wings"),
    ("model/workbook/validation.py", "import model.sampling.prompts", "the workbook (the inputs) imports none of the wings"),
    ("model/report/export.py", "import model.sampling.labels", "the wings meet only through the core and the workbook"),
    ("model/engine_reports.py", "import model.metrics.result", "the core of model imports none of its wings"),
    ("model/metrics/records.py", "import model.report.layout", "the wings meet only through the core and the workbook"),
    ("model/probe/steps.py", "import model.sampling.speculative", "the wings meet only through the core and the workbook"),
    ("gui/document.py", "import commands.runner", "the window does not import the headless commands"),
    ("model/sampling/layout.py", "import model.sampling.onnx_lm", "no package imports a sibling that imports it back"),
]


@pytest.mark.parametrize(("path", "line", "contract"), VIOLATIONS, ids=[v[1] for v in VIOLATIONS])
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, path: str, line: str, contract: str) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / path
    target.write_text(target.read_text() + f"\n{line}  # deliberate violation\n")
    result = _lint(tmp_path)
    assert result.returncode != 0, result.stdout
    assert f"{contract} BROKEN" in result.stdout
