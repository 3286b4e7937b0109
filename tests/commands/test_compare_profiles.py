"""compare on a workbook whose classes hold a profile and a length: JSON, CSV and text."""
import csv
import io
import json

import pytest

from tests.commands.test_cli import run

WORKBOOK = {
    "format": "specledger-workbook", "schema_version": 2,
    "tiers": [{"name": "Std", "speculative": "no", "price_out": 10, "price_in": 1},
              {"name": "Eagle", "speculative": "yes", "k": 3, "cost_model": "typed", "c": 0.05, "v": 1.05,
               "price_out": 18, "price_in": 1, "baseline": "Std"}],
    "task_classes": [
        {"name": "code", "tokens_out": 3e6, "tokens_in": 1e6, "context": 4096, "profile": [0.77, 0.45 / 0.77, 0.24 / 0.45]},
        {"name": "chat", "tokens_out": 1e6, "tokens_in": 1e6, "context": 4096, "acceptance_length": 3.1,
         "acceptance_length_k": 5},
        {"name": "prose", "tokens_out": 1e6, "tokens_in": 1e6, "context": 4096, "alpha": 0.5}],
}


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "profiles.json"
    p.write_text(json.dumps(WORKBOOK))
    return p


def test_compare_json_states_the_acceptance_and_the_break_even_in_tokens_per_step(path):
    r = run("compare", str(path), "--json")
    assert r.returncode == 0, r.stderr
    pairs = {(p["tier"], p["task_class"]): p for p in json.loads(r.stdout)["pairs"]}
    code, chat, prose = pairs["Eagle", "code"], pairs["Eagle", "chat"], pairs["Eagle", "prose"]
    assert code["acceptance_kind"] == "profile" and code["mean_acceptance_length"] == pytest.approx(2.46)
    assert code["profile"] == pytest.approx([0.77, 0.45 / 0.77, 0.24 / 0.45]) and not code["extrapolated"]
    assert code["break_even_length"] == pytest.approx(3 * 0.05 + 1.05) and code["break_even_alpha"] is None
    assert chat["acceptance_kind"] == "length" and chat["extrapolated"]  # measured at K = 5, used at K = 3
    assert chat["acceptance_measured_k"] == 5 and chat["profile"] is None
    assert prose["acceptance_kind"] == "alpha" and prose["break_even_alpha"] is not None
    assert prose["mean_acceptance_length"] == pytest.approx(1.875) and prose["break_even_alpha_note"] is None
    for p in (code, chat, prose):
        assert p["price_break_even_length"] is not None
        assert (p["value_verdict"] == "worth the premium") == (p["mean_acceptance_length"] >= p["price_break_even_length"])


def test_compare_csv_and_text_carry_them(path):
    rows = list(csv.DictReader(io.StringIO(run("compare", str(path), "--csv").stdout)))
    assert len(rows) == 6 and {r["acceptance_kind"] for r in rows} == {"profile", "length", "alpha"}
    text = run("compare", str(path)).stdout
    assert "AL 2.46" in text and "AL 3.10*" not in text and "E* 1.20" in text
    assert "AL: the mean acceptance length" in text
