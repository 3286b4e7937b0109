"""compare on a workbook with tiers whose list prices nobody typed: the text says "not given" where the monthly
cost would be and says once why, never "$0"; the JSON carries null figures and prices_not_given."""
import json

import pytest

from model.workbook.json_file import workbook_to_dict
from tests.commands.test_cli import run
from tests.excel_cases import prices_not_given


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "unpriced.json"
    p.write_text(json.dumps(workbook_to_dict(prices_not_given())))
    return p


def test_compare_text_says_not_given_not_zero(path):
    r = run("compare", str(path))
    assert r.returncode == 0, r.stderr
    rows = {line[:22].strip(): line for line in r.stdout.splitlines()[:14]}
    for name in ("Zephyr Standard", "Zephyr Fast", "Helix Standard"):
        assert "$0" not in rows[name] and "not given" in rows[name], rows[name]
        assert "-100%" not in rows[name]
    assert "$0" in rows["Zephyr Free"]  # typed free: a price
    said = [line for line in r.stdout.splitlines() if line.startswith("prices not given:")]
    assert len(said) == 1 and all(name in said[0] for name in ("Helix Standard", "Zephyr Standard", "Zephyr Fast"))
    assert "Helix Fast" in said[0]  # priced against a tier nobody priced


def test_compare_json_has_null_figures(path):
    tiers = {t["tier"]: t for t in json.loads(run("compare", str(path), "--json").stdout)["tiers"]}
    assert tiers["Zephyr Standard"]["monthly_cost"] is None and tiers["Zephyr Standard"]["prices_not_given"]
    assert tiers["Helix Fast"]["premium"] is None and tiers["Helix Fast"]["fair_price_factor"] is None
