"""The code's shape: no module imports another's private (_name) names; what two modules share is public where
it is defined."""
from __future__ import annotations

import ast

from tests.paths import ROOT

PACKAGES = ("model", "gui", "commands")


def test_no_private_name_is_imported_from_another_module() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
                    found += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, "\n".join(found)
