"""A task class added by Add row or a paste (TaskClass.defaulted: acceptance, context and tokens not given): compare()
makes no number from its placeholders, and no tier has a mix, verdict, fair price, claim or brief recommendation over
the classes until it is filled in; compare's text, JSON and CSV say why
(docs/design/verdicts.md#a-class-nobody-described). It used to copy the row above's acceptance, marked "assumed", and every verdict counted it."""
from __future__ import annotations

import csv
import io
import json
import math
from argparse import Namespace

import numpy as np

from commands.calc_compare import run_compare
from model.comparison import NOT_APPLICABLE, compare
from model.comparison.brief import NOT_YET, TAKE, brief
from model.workbook.json_file import load_workbook, save_workbook
from model.workbook.validation import workbook_problems

from tests.excel_cases import class_not_given


def _fast(cmp) -> list[int]:
    return [i for i in range(len(cmp.tier_names)) if cmp.tiers.speculative[i]]


def test_the_new_class_has_no_number_and_no_tier_a_mix_or_verdict():
    wb = class_not_given()
    j, cmp = len(wb.classes) - 1, compare(wb)
    for i in range(len(cmp.tier_names)):
        assert math.isnan(cmp.cells.alpha[i, j]) and cmp.cells.alpha_source[i][j] == "not given"  # on a plain tier too
        if not cmp.tiers.speculative[i]:
            assert cmp.cells.speedup[i, j] == 1.0 and cmp.tiers.mix_speedup[i] == 1.0 and cmp.mix_waits(i) == ""
            continue
        assert cmp.cell_not_given(i, j) == "acceptance and context not given"
        assert all(math.isnan(x) for x in (cmp.cells.speedup[i, j], cmp.cells.tokens_per_stretch[i, j], cmp.cells.c[i, j],
                                            cmp.cells.break_even_alpha[i, j], cmp.cells.price_ratio[i, j]))
        assert cmp.cells.verdict[i, j] == NOT_APPLICABLE and cmp.cells.value_verdict[i, j] == NOT_APPLICABLE
        assert cmp.mix_waits(i) == "class 'New class': acceptance, context and tokens not given"
        assert all(math.isnan(x) for x in (cmp.tiers.mix_speedup[i], cmp.tiers.mix_speedup_low[i], cmp.tiers.speedup_vs_baseline[i],
                                            cmp.fair.factor[i], cmp.tiers.effective_alpha[i], cmp.tiers.monthly_cost[i]))
        assert cmp.tiers.verdict[i] == NOT_APPLICABLE and cmp.tiers.value_verdict[i] == NOT_APPLICABLE
        assert cmp.claims.holds[i] is None
        # the classes that are given keep their cells
        assert np.isfinite(cmp.cells.speedup[i, :j]).all() and (cmp.cells.verdict[i, :j] != NOT_APPLICABLE).all()
    for b in brief(wb, cmp):
        assert b.recommendation == NOT_YET and "'New class'" in b.why and "'New class'" in b.ask
        assert b.look == "undecided"


def test_each_given_field_counts_and_the_last_brings_the_verdicts_back():
    wb = class_not_given(tokens=True)
    new, fast = wb.classes[-1], _fast(compare(wb))
    cmp = compare(wb)
    assert {cmp.mix_waits(i) for i in fast} == {"class 'New class': acceptance and context not given"}
    assert all(math.isfinite(cmp.tiers.monthly_cost[i]) for i in range(len(wb.tiers)))  # its tokens are given
    new.alpha, new.context = 0.7, 8192
    new.entered("alpha")
    cmp = compare(wb)
    assert {cmp.cell_not_given(i, len(wb.classes) - 1) for i in fast} == {"context not given"}
    new.entered("context")
    cmp = compare(wb)
    assert all(math.isfinite(cmp.tiers.mix_speedup[i]) and cmp.mix_waits(i) == "" for i in fast)
    assert any(b.recommendation.startswith(TAKE) for b in brief(wb, cmp))


def test_an_override_gives_one_tier_the_acceptance_the_class_lacks():
    wb = class_not_given(tokens=True)
    new = wb.classes[-1]
    new.entered("context")
    wb.set_override("Helix Fast", new.name, 0.75)
    cmp, j = compare(wb), len(wb.classes) - 1
    helix, turbo = wb.tier_index("Helix Fast"), wb.tier_index("Northwind Turbo")
    assert cmp.cell_not_given(helix, j) == "" and math.isfinite(cmp.cells.speedup[helix, j])
    assert cmp.mix_waits(helix) == "" and math.isfinite(cmp.tiers.mix_speedup[helix])
    assert cmp.cell_not_given(turbo, j) == "acceptance not given" and math.isnan(cmp.tiers.mix_speedup[turbo])


def test_compare_text_json_and_csv_say_why(tmp_path):
    path = tmp_path / "w.json"
    save_workbook(class_not_given(), path)
    outputs = {}
    for mode in ("text", "json", "csv"):
        out = io.StringIO()
        run_compare(Namespace(workbook=str(path), json=mode == "json", csv=mode == "csv"), out)
        outputs[mode] = out.getvalue()
    assert "class not given: no mix, verdict or fair price until it is filled in (class 'New class'" in outputs["text"]
    assert "take it" not in outputs["text"].lower()
    data = json.loads(outputs["json"])
    turbo = next(t for t in data["tiers"] if t["tier"] == "Northwind Turbo")
    assert turbo["mix_waits_for"] == "class 'New class': acceptance, context and tokens not given"
    assert turbo["mix_speedup"] is None and turbo["verdict"] == "n/a" and turbo["fair_price_factor"] is None
    pair = next(p for p in data["pairs"] if (p["tier"], p["task_class"]) == ("Northwind Turbo", "New class"))
    assert pair["acceptance_not_given"] == "acceptance and context not given"
    assert pair["speedup"] is None and pair["alpha"] is None and pair["optimal_k"] is None
    rows = list(csv.DictReader(io.StringIO(outputs["csv"])))
    row = next(r for r in rows if (r["tier"], r["task_class"]) == ("Northwind Turbo", "New class"))
    assert row["acceptance_not_given"] == "acceptance and context not given" and row["speedup"] == ""


def test_the_workbook_file_keeps_what_was_not_given(tmp_path):
    wb = class_not_given(tokens=True)
    path = tmp_path / "w.json"
    save_workbook(wb, path)
    back = load_workbook(path)
    assert back.classes[-1].defaulted == "alpha, context" and back == wb
    assert math.isnan(compare(back).tiers.mix_speedup[back.tier_index("Helix Fast")])


def test_the_validator_refuses_a_field_that_cannot_be_not_given():
    wb = class_not_given()
    wb.classes[-1].defaulted = "alpha, price_out"
    problems = workbook_problems(wb)
    assert len(problems) == 1 and "'price_out' cannot be not given" in problems[0] and "'New class'" in problems[0]


def test_the_load_chart_draws_no_roofline_mix_over_a_class_not_filled_in():
    from model.comparison.load_curve import load_curve

    wb = class_not_given()
    i = wb.tier_index("Northwind Turbo")
    assert wb.tiers[i].cost_model == "roofline"
    curve = load_curve(wb, compare(wb).cells.alpha[i], None, i)
    assert curve.roofline is None and "a task class is not filled in" in curve.note


def test_an_acceptance_assumed_or_measured_for_the_class_is_given():
    """Edit > Assume a published acceptance, Enter a stated acceptance and a measurement's Apply set the class's
    acceptance: it is given from then on; a class a measurement adds has its acceptance only."""
    from types import SimpleNamespace

    from model.acceptance.conventions import StatedFigure
    from model.acceptance.presets import PRESETS
    from model.workbook.assume_preset import assume_preset
    from model.workbook.assume_stated import assume_stated
    from model.workbook.measured_apply import apply_plan

    for assume in (lambda wb: assume_preset(wb, "New class", PRESETS[0], k=6),
                   lambda wb: assume_stated(wb, "New class", StatedFigure(0.7, "alpha", k=4)),
                   lambda wb: apply_plan(wb, [("New class", SimpleNamespace(alpha=0.7), False)], "m", None)):
        wb = class_not_given()
        assume(wb)
        assert wb.classes[-1].defaulted == "context, tokens_out, tokens_in"
    wb = class_not_given()
    apply_plan(wb, [("legal", SimpleNamespace(alpha=0.7), True)], "measured", None)
    assert wb.classes[-1].name == "legal" and wb.classes[-1].defaulted == "context, tokens_out, tokens_in"
