"""The layering of the packages, declared as import-linter contracts in pyproject.toml, holds; and each
contract really catches the import it forbids (checked on a copy of the tree with one bad import added)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import model
from tests.paths import ROOT

pytest.importorskip("importlinter")
tomllib = pytest.importorskip("tomllib")  # Python 3.11 on

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


CORE_CONTRACT = "the core of model imports none of its wings"
LAYERS_CONTRACT = "the core and the workbook in layers, each importing only those below it"

# (file to change, line to add, the contract that must then break)
VIOLATIONS = [
    ("model/mechanics/arithmetic.py", "import PySide6.QtCore", "model is plain Python: no Qt, no front end"),
    ("model/workbook/rows.py", "import gui.document", "model is plain Python: no Qt, no front end"),
    ("model/comparison/compute.py", "import model.report.layout", CORE_CONTRACT),
    ("model/common/safe_files.py", "import model.sampling.prompts", CORE_CONTRACT),
    ("model/workbook/validation.py", "import model.sampling.prompts", "the workbook (the inputs) imports none of the wings"),
    ("model/report/export.py", "import model.sampling.labels", "the wings meet only through the core and the workbook"),
    ("model/engines/reports.py", "import model.metrics.result", CORE_CONTRACT),
    ("model/metrics/records.py", "import model.report.layout", "the wings meet only through the core and the workbook"),
    ("model/probe/steps.py", "import model.sampling.speculative", "the wings meet only through the core and the workbook"),
    ("gui/document.py", "import commands.runner", "the window does not import the headless commands"),
    ("model/sampling/layout.py", "import model.sampling.onnx_lm", "no package imports a sibling that imports it back"),
    # each core package, the comparison's brief and load curve included
    ("model/mechanics/solves.py", "import model.probe.run", CORE_CONTRACT),
    ("model/acceptance/units.py", "import model.metrics.read", CORE_CONTRACT),
    ("model/comparison/brief.py", "import model.report.layout", CORE_CONTRACT),
    ("model/comparison/load_curve.py", "import model.probe.by_load", CORE_CONTRACT),
    ("model/curves/chart_data.py", "import model.report.charts", CORE_CONTRACT),
    # the core's layers: nothing imports a layer above it, and the top layer's packages not each other
    ("model/common/formatting.py", "import model.mechanics.arithmetic", LAYERS_CONTRACT),
    ("model/mechanics/tier_costs.py", "import model.workbook.rows", LAYERS_CONTRACT),
    ("model/acceptance/value.py", "import model.workbook.rows", LAYERS_CONTRACT),
    ("model/workbook/rows.py", "import model.comparison.verdicts", LAYERS_CONTRACT),
    ("model/curves/speedup.py", "import model.comparison.verdicts", LAYERS_CONTRACT),
    ("model/engines/spec_checks.py", "import model.curves.speedup", LAYERS_CONTRACT),
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


def _contract(contracts: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(c for c in contracts if c["name"] == name)


def test_one_list_says_what_the_core_is() -> None:
    """model/__init__.py's CORE, the core contract in pyproject.toml, its layers and CONTRIBUTING.md's list name the
    same packages, and every package of model/ is core, the inputs or a wing."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    core = _contract(contracts, CORE_CONTRACT)
    assert core["source_modules"] == [f"model.{p}" for p in model.CORE]
    assert set(core["forbidden_modules"]) == {f"model.{p}" for p in model.WINGS}
    wings = _contract(contracts, "the wings meet only through the core and the workbook")
    assert wings["modules"] == [f"model.{p}" for p in model.WINGS]
    layered = [p.strip() for layer in _contract(contracts, LAYERS_CONTRACT)["layers"] for p in layer.split("|")]
    assert sorted(layered) == sorted(model.CORE + model.INPUTS)
    section = (ROOT / "CONTRIBUTING.md").read_text().split("## The core\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^- `model/(\w+)/`", section, flags=re.M) == list(model.CORE)
    packages = sorted(p.parent.name for p in (ROOT / "model").glob("*/__init__.py"))
    assert packages == sorted(model.CORE + model.INPUTS + model.WINGS)
    assert not [p.name for p in (ROOT / "model").glob("*.py") if p.name != "__init__.py"], "a loose module in model/"
