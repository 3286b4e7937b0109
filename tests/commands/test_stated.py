"""A figure a vendor states, typed with its convention: converted to every other convention (the assumptions said),
round-tripping through each, and applied to a class or one tier's override with its source recorded
(model/acceptance/conventions.py, model/workbook/assume_stated.py, import-metrics --stated)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from model.acceptance.conventions import CONVENTIONS, StatedError, convert, parse
from model.workbook.assume_stated import assume_stated
from model.workbook.json_file import load_demo, load_workbook, save_workbook
from tests.paths import ROOT

# alpha 0.7 at K = 4, by hand: E = 1 + .7 + .49 + .343 + .2401 = 2.7731; draft acceptance rate (E - 1) / 4 = 0.443275;
# accepted with the bonus over steps x (K + 1): E / 5 = 0.55462; accepted per step without the bonus 1.7731;
# the cumulative rate at position 2 is 0.7^2 = 0.49; conditional and any-position rates are alpha itself
HAND = {"alpha": 0.7, "draft_rate": 0.443275, "rate_with_bonus": 0.55462, "any_position": 0.7, "length": 2.7731,
        "length_excl_bonus": 1.7731, "position_conditional": 0.7, "position_cumulative": 0.49}


def test_every_convention_is_listed_with_who_prints_it() -> None:
    assert {c.key for c in CONVENTIONS} == set(HAND)
    by = {c.key: c.printed_by for c in CONVENTIONS}
    assert "SGLang 0.5.x" in by["rate_with_bonus"] and "vLLM V1" in by["draft_rate"] and "trtllm-bench" in by["length"]


@pytest.mark.parametrize("convention", sorted(HAND))
def test_each_convention_round_trips(convention: str) -> None:
    pos = ",pos=2" if convention.startswith("position") else ""
    figure = parse(f"value={HAND[convention]},convention={convention},k=4{pos}")
    c = convert(figure)
    # the cumulative rate is shown at the figure's position: 2 for the per-position figures, else 1 (alpha^1 = 0.7)
    expected_values = {**HAND, "position_cumulative": 0.49 if pos else 0.7}
    for key, expected in expected_values.items():
        assert c.values[key] == pytest.approx(expected, abs=2e-6), (convention, key)
    assert c.alpha == pytest.approx(0.7, abs=2e-6) and c.length == pytest.approx(2.7731, abs=2e-6)


def test_the_same_words_mean_what_the_engine_prints() -> None:
    # "accept rate 0.62" from SGLang 0.5.x at K = 3 is E / 4: E = 2.48, draft acceptance rate 1.48 / 3 = 0.4933;
    # the same words from a later SGLang are the draft acceptance rate itself: E = 1 + 3 x 0.62 = 2.86
    old, new = convert(parse("rate=0.62,k=3,engine=sglang-0.5")), convert(parse("rate=0.62,k=3,engine=sglang"))
    assert old.length == pytest.approx(2.48) and old.values["draft_rate"] == pytest.approx(1.48 / 3)
    assert new.length == pytest.approx(2.86) and new.values["rate_with_bonus"] == pytest.approx(2.86 / 4)
    # trtllm-bench's "acceptance rate" is tokens per iteration
    assert parse("rate=2.4,engine=trtllm-bench").convention == "length"
    assert any("every draft K = 3 long" in a for a in old.assumptions)
    with pytest.raises(StatedError, match="give engine="):
        parse("rate=0.62,k=3")
    with pytest.raises(StatedError, match="cannot occur at K = 2"):
        convert(parse("length=3.5,k=2"))
    # no K: what needs none is given, the rest says it needs K
    c = convert(parse("draft_rate=80%"))
    assert c.values["draft_rate"] == 0.8 and c.values["length"] is None and c.missing["alpha"].startswith("needs K")
    assert convert(parse("length=2.8")).values["length_excl_bonus"] == pytest.approx(1.8)


def test_applied_to_a_class_and_an_override_with_the_source_recorded() -> None:
    wb = load_demo()
    cls = wb.classes[0].name
    fast = next(t for t in wb.tiers if t.speculative != "no")
    tier = fast.name
    row = assume_stated(wb, cls, parse("rate=0.62,k=4,engine=vllm,source=Acme slides p.4"))
    # E = 1 + 4 x 0.62 = 3.48 at K = 4
    assert row.acceptance_length == pytest.approx(3.48) and row.acceptance_length_k == 4 and row.alpha_source == "assumed"
    assert row.source_note.startswith("stated: 62% draft acceptance rate at K = 4 (vllm), Acme slides p.4")
    assert "assumed every draft K long, i.i.d. alpha" in row.source_note and row.alpha_low is None
    over = assume_stated(wb, cls, parse("alpha=0.8"), tier=tier)
    assert over.alpha == pytest.approx(0.8) and over.acceptance_length is None and over.source_note == "stated: 80% per-token alpha"
    # a length without K on a tier takes the tier's K
    over = assume_stated(wb, cls, parse("length=2.5"), tier=tier)
    assert over.acceptance_length_k == fast.k and f"K = {fast.k} (not stated)" in over.source_note
    with pytest.raises(StatedError, match="needs K"):
        assume_stated(wb, cls, parse("draft_rate=0.5"))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_cli_stated_json_and_apply(tmp_path: Path) -> None:
    r = run("--stated", "rate=0.62,k=4,engine=vllm", "--json")
    assert r.returncode == 0, r.stderr
    stated = json.loads(r.stdout)["stated"]
    values = {c["convention"]: c["value"] for c in stated["conventions"]}
    # E 3.48; alpha with 1 + a + a^2 + a^3 + a^4 = 3.48: 0.8177 (0.81: 3.4325, 0.82: 3.4879)
    assert values["length"] == pytest.approx(3.48) and values["rate_with_bonus"] == pytest.approx(3.48 / 5)
    assert 0.81 < values["alpha"] < 0.82 and stated["assumptions"]
    figure = tmp_path / "claim.json"
    figure.write_text(json.dumps({"length": 2.8, "k": 4, "source": "Acme PDF"}))
    wb, out = tmp_path / "wb.json", tmp_path / "out.json"
    save_workbook(load_demo(), wb)
    cls = load_demo().classes[1].name
    r = run("--stated", str(figure), "--apply", str(wb), "--task-class", cls, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "applied to task class" in r.stdout and "mean acceptance length 2.800 at K = 4" in r.stdout
    row = load_workbook(out).classes[1]
    assert row.acceptance_length == pytest.approx(2.8) and row.source_note.startswith("stated: 2.8 tokens per verify step")
    bad = run("--stated", "rate=0.62")
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "engine=" in bad.stderr
