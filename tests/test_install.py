"""The README's quick start (`pip install -e .`) installs what the README's own examples run: `specledger
serve-demo` needs starlette and uvicorn, so they are runtime dependencies, not an extra."""
from __future__ import annotations

import re
import sys

from tests.paths import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].strip().lower() for r in requirements}


def test_the_default_install_runs_serve_demo():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert {"starlette", "uvicorn"} <= _names(project["dependencies"])


def test_serve_demo_imports_nothing_from_an_extra():
    # every module the command imports lazily is named by a runtime dependency
    source = (ROOT / "model" / "probe" / "demo_server.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^\s*(?:from|import) (starlette|uvicorn)\b", source, flags=re.M))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert imported and imported <= _names(project["dependencies"])
