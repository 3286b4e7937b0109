"""The reports recalculated by LibreOffice, shared by the test_recalc_* modules: one LibreOffice run converts
them all (tests/model/report/recalc_cases.py lists them)."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="package")
def recalculated(tmp_path_factory: pytest.TempPathFactory) -> dict:
    pytest.importorskip("openpyxl")
    from tests.model.report.recalc_cases import build_cases
    return build_cases(tmp_path_factory.mktemp("reports"), tmp_path_factory.mktemp("recalculated"),
                       tmp_path_factory.mktemp("lo_profile"))
