"""Every formula in the report, recalculated by a real spreadsheet engine (LibreOffice), equals SpecLedger,
and equals the value saved with it in the file.

One LibreOffice run per module converts all the files at once: the demo report,
the edge-case report, and the demo report with inputs edited the way an analyst
would (with openpyxl, which keeps the formulas and drops the saved values, so the
engine has to recompute everything on load).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.excel_cases import demo, edge_workbook, made_up, profiled, ranged, treed  # noqa: E402
from tests.office import convert, printed_pages  # noqa: E402
from model.comparison import VALUE_NAMES, VERDICT_NAMES, compare  # noqa: E402
from model.formatting import context as context_text  # noqa: E402
from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW, build_report, export_report  # noqa: E402
from model.report.comparison_sheet import grey_word  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import (ALPHA_SHIFTS, CLASS_COLUMNS, COMPARISON, GRID, INPUTS, OVERRIDE_COLUMNS,  # noqa: E402
                                 PROFILE_HEADERS, SENSITIVITY, SETTING_ROWS, SUMMARY, InputsLayout, column_of)
from model.workbook.validation import TIER_FIELDS, WorkbookError  # noqa: E402
from model.workbook.rows import Workbook  # noqa: E402

pytestmark = pytest.mark.libreoffice
REL_TOL = 1e-9
# the tiers whose grey inputs the edits change (K, c, v, cost model, speculative): their rows must say stale
STALE_TIERS = {"Helix Fast", "Orbital Rapid", "Apex Standard", "Apex Express"}


@dataclass
class Case:
    original: Path
    recalculated: Path
    expected: dict  # (sheet, cell) -> SpecLedger's value
    workbook: Workbook


# edits as an analyst makes them in Excel: (table, row's name at export, field, new value)
ANALYST_EDITS = [
    ("class", "code", "alpha", 0.55),
    ("class", "prose", "tokens_out", 2.5e8),
    ("class", "json", "name", "structured json"),  # a rename
    ("class", "extraction", "alpha_source", "measured"),
    ("tier", "Helix Fast", "k", 7),
    ("tier", "Helix Fast", "c", 0.2),
    ("tier", "Helix Fast", "v", 1.3),
    ("tier", "Helix Fast", "baseline", "Orbital Standard"),
    ("tier", "Helix Fast", "speculative", "yes"),
    ("tier", "Orbital Rapid", "cost_model", "typed"),  # the 2.33x -> 1.89x
    ("tier", "Apex Standard", "speculative", "yes"),
    ("tier", "Apex Express", "speculative", "no"),  # a fast tier found not to run it: "no", 1.00x, no verdict
    ("tier", "Apex Standard", "claimed_speedup", 1.2),  # a claim where there was none
    ("tier", "Northwind Turbo", "price_out", 31.0),
    ("tier", "Northwind Turbo", "name", "Northwind Turbo 2"),  # a rename
    ("override", 0, "alpha", 0.6),
]
# values the data validation stops when typed, pasted in instead: the rows they feed say so
REFUSED_EDITS = [
    ("class", "code", "alpha", 1.5),  # every tier's code row
    ("tier", "Helix Fast", "k", 0),
    ("tier", "Orbital Rapid", "gpu", "B300 (not a preset)"),
    ("tier", "Apex Standard", "price_out", None),  # a required number cleared
]
# two price-side edits only: the price break-evens they reach, and no others, say stale
PRICE_EDITS = [
    ("class", "prose", "tokens_out", 2.5e8),  # every speculative tier's prose row
    ("tier", "Orbital Standard", "price_in", 2.0),  # Orbital Rapid's baseline: its every row
]


# the ranged report with every class's range narrowed to a point's width, and one override's widened: typed on
# Inputs, the undecided verdicts must follow by formula (the ends are inputs, not SpecLedger's numbers)
def _narrowed() -> list[tuple]:
    """The ranged report with every class's range narrowed to a point's width and the override's widened, typed
    on Inputs: the undecided verdicts must follow by formula (the ends are inputs, not SpecLedger's numbers)."""
    wb = ranged()
    out = []
    for cls in wb.classes:
        out += [("class", cls.name, "alpha_low", round(cls.alpha - 0.002, 6)),
                ("class", cls.name, "alpha_high", round(cls.alpha + 0.002, 6))]
    o = wb.overrides[0]
    return out + [("override", 0, "alpha_low", round(max(0.0, o.alpha - 0.3), 6)), ("override", 0, "alpha_high", 1.0)]


def measured() -> Workbook:
    """The ranged demo with intervals as a probe keeps them (confidence, requests, steps, method) and the
    workbook's confidence moved off its default: every one of them must survive the round trip."""
    wb = ranged()
    wb.settings.confidence = 0.9
    c = wb.classes[0]
    c.alpha_source, c.alpha_confidence, c.alpha_requests, c.alpha_steps = "probed", 0.8, 40, 1234
    c.alpha_method = "cluster-robust logit, requests as the unit"
    c.alpha_prompts = 8  # issue 21: 40 requests of 8 distinct prompts
    wb.classes[1].alpha_low = wb.classes[1].alpha_high = None  # one class without a range
    wb.classes[1].alpha_requests, wb.classes[1].alpha_method = 3, "too few requests for an interval"
    o = wb.overrides[0]
    o.alpha_confidence, o.alpha_requests, o.alpha_steps, o.alpha_method = 0.99, 12, 400, "cluster-robust logit"
    return wb


def _edit_profiles(src: Path, dst: Path, out: Path) -> Case:
    """Rates of two profiles typed anew on Inputs (one that the extension carries past its positions) and a
    tier's K raised past a profile's length: E follows live, the extension's decay too."""
    wb = profiled()
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    book = openpyxl.load_workbook(src)
    ws = book[INPUTS]
    first = layout.profile_header + 1
    rate = len(PROFILE_HEADERS) + 1
    ws.cell(first, rate + 1).value = 0.7  # code, p2: 0.9 -> 0.7 (its p4.. extrapolated from the new fit)
    wb.classes[0].profile = (0.95, 0.7, 0.82)
    ws.cell(first, 8).value, ws.cell(first, 9).value = 3.0, 3.3  # code's interval on E (E now 3.160 at K 3)
    wb.classes[0].acceptance_length_low, wb.classes[0].acceptance_length_high = 3.0, 3.3
    ws.cell(first + 3, rate).value = 0.6  # prose (rows: code, json's length, extraction, prose, the override): p1
    wb.classes[4].profile = (0.6,) + wb.classes[4].profile[1:]
    ws.cell(layout.tier_row(3), column_of(TIER_FIELDS, "k")).value = 6  # Helix Fast (typed c, v): K past code's 3
    wb.tiers[3].k = 6
    book.save(dst)
    return Case(dst, out / dst.name, {}, wb)


def _edit(src: Path, dst: Path, edits: list[tuple], base=demo) -> Workbook:
    """Change inputs in the file as an analyst would in Excel; returns the workbook SpecLedger would compare."""
    wb = base()
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    book = openpyxl.load_workbook(src)
    ws = book[INPUTS]
    for table, key, field, value in edits:
        if table == "setting":
            ws.cell(SETTING_ROWS[field], 2).value = value
            continue
        if table == "tier":
            n = wb.tier_index(key)
            row, specs, target = layout.tier_row(n), TIER_FIELDS, wb.tiers[n]
        elif table == "class":
            n = wb.class_index(key)
            row, specs, target = layout.class_row(n), CLASS_COLUMNS, wb.classes[n]
        else:
            row, specs, target = layout.override_row(key), OVERRIDE_COLUMNS, wb.overrides[key]
        ws.cell(row, column_of(specs, field)).value = value
        setattr(target, field, value)
    book.save(dst)
    return wb


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    src = tmp_path_factory.mktemp("reports")
    out = tmp_path_factory.mktemp("recalculated")
    profile = tmp_path_factory.mktemp("lo_profile")
    cases: dict[str, Case] = {}
    for name, wb in (("demo", demo()), ("edge", edge_workbook()), ("ranged", ranged()), ("measured", measured()),
                     ("made up", made_up()), ("profiled", profiled()), ("treed", treed())):
        path = src / f"{name}.xlsx"
        data, expected = build_report(wb, f"{name}.json")  # what export_report writes, with its values
        path.write_bytes(data)
        cases[name] = Case(path, out / path.name, expected, wb)
    for name, edits in (("edited", ANALYST_EDITS), ("priced", PRICE_EDITS), ("refused", REFUSED_EDITS),
                        ("refused setting", [("setting", None, "k_max", 0)])):
        edited = _edit(cases["demo"].original, src / f"{name}.xlsx", edits)
        cases[name] = Case(src / f"{name}.xlsx", out / f"{name}.xlsx", {}, edited)
    cases["profile edited"] = _edit_profiles(cases["profiled"].original, src / "profile edited.xlsx", out)
    edited = _edit(cases["ranged"].original, src / "narrowed.xlsx", _narrowed(), ranged)
    cases["narrowed"] = Case(src / "narrowed.xlsx", out / "narrowed.xlsx", {}, edited)
    run = convert([c.original for c in cases.values()], "xlsx", out, profile)
    missing = [c.recalculated.name for c in cases.values() if not c.recalculated.exists()]
    assert not missing, f"LibreOffice did not convert {missing}: {run.stdout} {run.stderr}"
    return cases


# how the report writes a number the engine does not have (NaN): blank, a dash, n/a, or a spreadsheet error
_NO_NUMBER = ("", None, "–", "n/a")
_ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


def _no_number(got) -> bool:
    return got in _NO_NUMBER or got in _ERROR_CODES


def _is_number(x) -> bool:
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool)


def _same(got, want) -> float | None:
    """Relative error of a number, 0 for equal words, None when they differ. Blank text reads as None.

    NaN is strict: SpecLedger's NaN (or None) matches only a cell with no number (blank, '–', 'n/a' or an error),
    and a cell whose value is NaN, or a number where SpecLedger has none, differs (NaN compared with '>' passes)."""
    if isinstance(want, str):
        return 0.0 if (got if got is not None else "") == want else None
    if want is None or _is_number(want) and math.isnan(want):
        return 0.0 if _no_number(got) else None
    if not _is_number(got) or math.isnan(got):
        return None
    if math.isinf(want) or math.isinf(got):
        return 0.0 if got == want else None
    return abs(got - want) / max(abs(want), 1e-300) if want else abs(got)


def _check_all_formulas(original: Path, other: Path, expected: dict) -> tuple[int, float]:
    formulas = openpyxl.load_workbook(original)
    values = openpyxl.load_workbook(other, data_only=True)
    count, worst, problems = 0, 0.0, []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                count += 1
                key = (ws.title, cell.coordinate)
                assert key in expected, f"{key} is a formula with no SpecLedger value to check it against"
                got, want = values[ws.title][cell.coordinate].value, expected[key]
                rel = _same(got, want)
                if rel is None or rel > REL_TOL:
                    problems.append(f"{key}: got {got!r}, SpecLedger {want!r} ({cell.value})")
                else:
                    worst = max(worst, rel)
    assert not problems, "\n".join(problems[:20])
    return count, worst


@pytest.mark.parametrize("case", ["demo", "edge", "ranged", "measured", "made up", "profiled", "treed"])
def test_every_formula_equals_specledger_and_its_saved_value(recalculated, case):
    c = recalculated[case]
    count, worst = _check_all_formulas(c.original, c.recalculated, c.expected)
    print(f"{case}: {count} formula cells recalculated by LibreOffice, max relative error {worst:.2e}")
    assert count == len(c.expected) and count > 40
    # the values saved in the file, read as a viewer that does not calculate reads them, are SpecLedger's too
    saved, _ = _check_all_formulas(c.original, c.original, c.expected)
    assert saved == count


def _moved(wb: Workbook, shift: float) -> Workbook:
    out = wb.copy()
    for row in (*out.classes, *out.overrides):
        row.alpha = min(1.0, max(0.0, row.alpha + shift))
    return out


def _table(ws, header_labels: tuple[str, str]) -> tuple[int, dict[str, int]]:
    header = next(r for r in range(1, 60) if (ws.cell(r, 1).value, ws.cell(r, 2).value) == header_labels)
    return header, {ws.cell(header, col).value: col for col in range(1, ws.max_column + 1)}


def _close(got, want) -> bool:
    rel = _same(got, want)
    return rel is not None and rel <= REL_TOL


def _all_close(got: list, want) -> None:
    """Each cell against SpecLedger's value, NaN strictly (see _same)."""
    bad = [(n, g, w) for n, (g, w) in enumerate(zip(got, np.ravel(want))) if not _close(g, float(w))]
    assert len(got) == np.size(want) and not bad, bad[:10]


def test_nan_is_compared_strictly():
    """The comparison this module rests on: a number where SpecLedger says NaN fails, and the reverse."""
    nan = float("nan")
    assert _close("–", nan) and _close(None, nan) and _close("", nan) and _close("#DIV/0!", nan)
    assert not _close(1.5, nan) and not _close(0.0, nan) and not _close(nan, nan) and not _close(nan, 1.5)
    assert not _close("–", 1.5) and not _close(None, 0.0) and _close(1.5, 1.5 * (1 + 1e-12))
    assert _same(2.0, nan) is None and _same(nan, 2.0) is None and _same(float("inf"), 2.0) is None


def test_every_shaded_input_drives_the_report_or_says_stale(recalculated):
    """Baseline, cost model, speculative flag, claim, names, K, c and v edited in the file: each result equals
    compare() of the same edit, or its row says it is stale (and its margin is blank, not wrong)."""
    c = recalculated["edited"]
    wb, cmp, before = c.workbook, compare(c.workbook), compare(demo())
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    shifted = [compare(_moved(wb, shift)) for shift in ALPHA_SHIFTS]  # the whole model, not the report's shortcut
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
            value = lambda name: ws.cell(row, col[name]).value  # noqa: E731
            where = f"{tier.name}/{cls.name}"
            assert (value("Tier"), value("Task class")) == (tier.name, cls.name), where
            assert value("Alpha source") == cmp.alpha_source[i][j], where
            flag = value("Grey values") or ""
            # the edits move a price, a baseline's speculative flag and a class's tokens, which reach every
            # speculative tier's price break-even; optimal K is n/a on the others, which stay unflagged
            want_flag = ("stale" if tier.name in STALE_TIERS else
                         "price break-even stale" if before.speculative[i] else "")
            assert flag == want_flag, where
            for name, want in (("Acceptance alpha", cmp.alpha[i, j]), ("Speedup", cmp.speedup[i, j]),
                               ("Tokens per stretch E", cmp.tokens_per_stretch[i, j]),
                               ("Trailer fill", cmp.trailer_fill[i, j]), ("Cost factor (FLOPs / token)", cmp.cost_factor[i, j]),
                               ("Speedup, alpha -20 pts", shifted[0].speedup[i, j]),
                               ("Speedup, alpha +10 pts", shifted[2].speedup[i, j])):
                assert _close(value(name), float(want)), (where, name, value(name), want)
            assert value("Speed verdict") == VERDICT_NAMES[int(cmp.verdict[i, j])], where
            assert value("Value verdict") == VALUE_NAMES[int(cmp.value_verdict[i, j])], where
            if flag == "stale":
                assert value("Margin over break-even") in (None, ""), where
            else:
                assert _close(value("Margin over break-even"), float(cmp.margin[i, j])), where

    ws = book[SUMMARY]
    assert "Inputs changed since export" in ws.cell(3, 1).value
    header, heads = _table(ws, ("Tier", "Vendor"))
    for i, tier in enumerate(wb.tiers):
        row = header + 1 + i
        get = lambda name: ws.cell(row, heads[name]).value  # noqa: E731
        assert get("Tier") == tier.name
        assert get("Speculative") == ("unknown (unconfirmed)" if tier.speculative == "unknown" else tier.speculative)
        assert get("Baseline") == (tier.baseline or "–")
        assert get("Claim context") == context_text(tier.claim_context)
        for name, want in (("Mix speedup", cmp.mix_speedup[i]), ("Monthly cost", cmp.monthly_cost[i]),
                           ("Premium over baseline", cmp.premium[i]), ("Speedup vs baseline", cmp.speedup_vs_baseline[i]),
                           ("Cost per 1x speedup", cmp.price_per_speedup[i]),
                           ("Claimed speedup", cmp.claimed_speedup[i])):
            assert _close(get(name), float(want)), (tier.name, name, get(name), want)
        holds = cmp.claim_holds[i]
        assert get("Claim holds") == ("–" if holds is None else "yes" if holds else "no"), tier.name
        assert get("Speed verdict") == VERDICT_NAMES[int(cmp.tier_verdict[i])], tier.name
        assert get("Value verdict") == VALUE_NAMES[int(cmp.tier_value_verdict[i])], tier.name
        want_flag = ("stale" if tier.name in STALE_TIERS else "price break-even stale" if before.speculative[i] else "")
        assert (get("Grey values") or "") == want_flag, tier.name
    rapid = wb.tier_index("Orbital Rapid")
    # typed c and v took over from the roofline's (the case): the speedup moved, and the claim followed it
    assert not math.isclose(ws.cell(header + 1 + rapid, heads["Mix speedup"]).value,
                            compare(demo()).mix_speedup[rapid], rel_tol=1e-3)
    sens = book[SENSITIVITY]
    for i in range(len(wb.tiers)):
        assert sens.cell(5 + i, 1).value == wb.tiers[i].name
        got = [sens.cell(5 + i, 2 + m).value for m in range(4)]
        want = [shifted[0].mix_speedup[i], shifted[1].mix_speedup[i], cmp.mix_speedup[i], shifted[2].mix_speedup[i]]
        _all_close(got, want)

    grid = book[GRID]
    _all_close([grid.cell(5 + i, 3 + j).value for i in range(len(wb.tiers)) for j in range(len(wb.classes))],
               cmp.speedup)
    assert [grid.cell(4, 3 + j).value for j in range(len(wb.classes))] == [x.name for x in wb.classes]
    assert not np.allclose(before.mix_speedup, cmp.mix_speedup), "the edits should have moved the report"


def _grey(kind, value) -> float | str:
    word = grey_word(kind, value)
    return word if isinstance(word, str) else float(word)


def test_price_break_even_says_stale_exactly_where_its_inputs_moved(recalculated):
    """A class's tokens and a baseline's price edited in the file: the pairs whose price break-even weighs them
    say so, on Comparison and Summary; every other pair's grey value still equals SpecLedger's after the edit."""
    c = recalculated["priced"]
    wb, before, after = c.workbook, compare(demo()), compare(c.workbook)
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    grey = col["Price break-even alpha (SpecLedger)"]
    flagged, moved = set(), set()
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
            flag = ws.cell(row, col["Grey values"]).value or ""
            assert flag in ("", "price break-even stale"), (tier.name, cls.name, flag)
            if flag:
                flagged.add((tier.name, cls.name))
            now = _grey(after.price_break_even_kind[i, j], after.price_break_even_alpha[i, j])
            shown = ws.cell(row, grey).value
            same = shown == now if isinstance(now, str) else math.isclose(shown, now, rel_tol=1e-12)
            if not same:
                moved.add((tier.name, cls.name))
    spec = [t.name for n, t in enumerate(wb.tiers) if before.speculative[n] and before.baseline_index[n] >= 0]
    want = {(t, "prose") for t in spec} | {("Orbital Rapid", cls.name) for cls in wb.classes}
    assert flagged == want
    assert moved and moved <= flagged, "a grey price break-even changed with no flag on its row"
    ws = book[SUMMARY]
    header, heads = _table(ws, ("Tier", "Vendor"))
    for i, tier in enumerate(wb.tiers):
        flag = ws.cell(header + 1 + i, heads["Grey values"]).value or ""
        assert flag == ("price break-even stale" if tier.name in spec else ""), tier.name
    assert ws.cell(3, 1).value.startswith("Prices, tokens or baselines changed since export")


def test_an_input_pasted_out_of_range_is_said_on_every_row_it_feeds(recalculated):
    """Data validation stops a value typed, not one pasted: an alpha of 150%, a K of 0, a GPU off the list
    and a cleared price each mark the rows they feed, the banner says so, and the import names the cell."""
    c = recalculated["refused"]
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    wb = demo()
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    bad_tiers = {"Helix Fast", "Orbital Rapid", "Apex Standard"}
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
            flag = ws.cell(row, col["Grey values"]).value or ""
            want = tier.name in bad_tiers or cls.name == "code"
            assert (flag == "input out of range") == want, (tier.name, cls.name, flag)
    header, heads = _table(book[SUMMARY], ("Tier", "Vendor"))
    for i, tier in enumerate(wb.tiers):  # every tier has a code row
        assert book[SUMMARY].cell(header + 1 + i, heads["Grey values"]).value == "input out of range", tier.name
    for name in (SUMMARY, COMPARISON):
        assert book[name].cell(3, 1).value.startswith("An input on the Inputs sheet is outside"), name
    with pytest.raises(WorkbookError) as info:
        import_report(c.recalculated)
    assert "Acceptance alpha" in str(info.value) and "K" in str(info.value)
    # a setting every row reads: every row says so
    book = openpyxl.load_workbook(recalculated["refused setting"].recalculated, data_only=True)
    flags = {book[COMPARISON].cell(COMPARISON_HEADER_ROW + 1 + n, col["Grey values"]).value
             for n in range(len(wb.tiers) * len(wb.classes))}
    assert flags == {"input out of range"}


def test_report_saved_by_libreoffice_imports_back(recalculated):
    for case in ("demo", "edge", "edited", "priced", "ranged", "measured", "narrowed", "made up", "profiled",
                 "profile edited", "treed"):
        c = recalculated[case]
        assert import_report(c.recalculated) == c.workbook, case
    # the intervals on E (profiles table on Inputs) come back, typed anew too
    back = import_report(recalculated["profile edited"].recalculated)
    assert (back.classes[0].acceptance_length_low, back.classes[0].acceptance_length_high) == (3.0, 3.3)
    assert (back.overrides[0].acceptance_length_low, back.overrides[0].acceptance_length_high) == (2.0, 2.5)
    # what the round trip must keep, spelled out: a typed range, a measured interval's provenance, the confidence
    back = import_report(recalculated["measured"].recalculated)
    want = measured()
    assert back.settings.confidence == 0.9
    for got, exp in zip(back.classes + back.overrides, want.classes + want.overrides):
        for field in ("alpha_low", "alpha_high", "alpha_confidence", "alpha_requests", "alpha_steps", "alpha_method",
                      "alpha_prompts"):
            assert getattr(got, field) == getattr(exp, field), (field, exp)


def test_currency_and_title_edited_in_the_file_show_on_the_pages(tmp_path):
    """Currency and title are shaded inputs too: printed, the money cells take the new currency's symbol
    and the Summary's line names the new title and currency."""
    src = tmp_path / "report.xlsx"
    export_report(demo(), src, "demo.json")
    book = openpyxl.load_workbook(src)
    book[INPUTS].cell(SETTING_ROWS["title"], 2).value = "Q3 negotiation"
    book[INPUTS].cell(SETTING_ROWS["currency"], 2).value = "EUR"
    book.save(src)
    convert([src], "pdf", tmp_path, tmp_path / "profile")
    pages = [p.text for p in printed_pages(tmp_path / "report.pdf")]
    by_sheet = {name: "".join(p for p in pages if p.splitlines() and name in p.splitlines()[0])
                for name in (SUMMARY, SENSITIVITY, INPUTS)}
    summary = by_sheet[SUMMARY]
    assert "Workbook: Q3 negotiation" in summary and "Currency: EUR" in summary and "File: demo.json" in summary
    for name, text in by_sheet.items():
        assert "€" in text and "$" not in text, f"{name} still prints dollars after the currency became EUR"


def test_undecided_and_the_fair_price_follow_the_prices_by_formula(recalculated):
    """With intervals, LibreOffice computes the same undecided verdicts and fair prices; the fair price is live."""
    c = recalculated["ranged"]
    values = openpyxl.load_workbook(c.recalculated, data_only=True)
    cmp = compare(c.workbook)
    ws = values[SUMMARY]
    header, cols = _table(ws, ("Tier", "Vendor"))
    verdicts = {ws.cell(r, 1).value: ws.cell(r, cols["Value verdict"]).value
                for r in range(header + 1, header + 1 + len(cmp.tier_names))}
    assert verdicts == {t: VALUE_NAMES[int(v)] for t, v in zip(cmp.tier_names, cmp.tier_value_verdict)}
    assert "undecided" in verdicts.values()
    fair_head = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 2).value == "Fair price factor")
    rows = {ws.cell(r, 1).value: r for r in range(fair_head + 1, ws.max_row + 1) if ws.cell(r, 1).value}
    i = cmp.tier_names.index("Northwind Turbo")
    r = rows["Northwind Turbo"]
    assert _close(ws.cell(r, 2).value, cmp.fair_price_factor[i])
    assert _close(ws.cell(r, 5).value, cmp.fair_price_factor_low[i])
    assert _close(ws.cell(r, 3).value, cmp.fair_price_out[i])


def test_the_guarantee_of_a_profiled_mix_is_a_length_after_recalculation(recalculated):
    """Where a class is a profile or a length the Summary's acceptance to guarantee is the mix's price break-even
    length at the tier's K (model/guarantee.py), grey beside the live fair price; LibreOffice keeps it."""
    from model.guarantee import tier_guarantee
    c = recalculated["profiled"]
    cmp = compare(c.workbook)
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    header, heads = _table(ws, ("Tier", "Vendor"))
    checked = 0
    for i, tier in enumerate(c.workbook.tiers):
        g = tier_guarantee(cmp, i)
        cell = ws.cell(header + 1 + i, heads["Price break-even alpha (SpecLedger)"])
        if g.unit == "length" and g.text().startswith("AL"):
            assert cell.number_format == '"AL "0.00' and _close(cell.value, g.value), tier.name
            checked += 1
    assert checked


def _pairs(book, wb: Workbook):
    """(tier index, class index, "tier/class", the row's value by Comparison header) for every row of the sheet."""
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    n_c = len(wb.classes)
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * n_c + j
            yield i, j, f"{tier.name}/{cls.name}", lambda name, row=row: ws.cell(row, col[name]).value


def test_a_range_typed_on_inputs_moves_the_intervals_and_verdicts(recalculated):
    """The interval's ends are inputs: narrowed on Inputs, LibreOffice's ends, mix intervals and verdicts are
    compare()'s of the narrowed workbook, and the undecided verdicts of the range as exported are decided."""
    c = recalculated["narrowed"]
    cmp, before = compare(c.workbook), compare(ranged())
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    for i, j, where, value in _pairs(book, c.workbook):
        for name, want in (("Speedup, low end", cmp.speedup_low[i, j]), ("Speedup, high end", cmp.speedup_high[i, j]),
                           ("Speedup vs baseline, low end", cmp.pair_vs_baseline_low[i, j]),
                           ("Speedup vs baseline, high end", cmp.pair_vs_baseline_high[i, j])):
            assert _close(value(name), float(want)), (where, name, value(name), want)
        assert value("Speed verdict") == VERDICT_NAMES[int(cmp.verdict[i, j])], where
        assert value("Value verdict") == VALUE_NAMES[int(cmp.value_verdict[i, j])], where
    ws = book[SUMMARY]
    header, heads = _table(ws, ("Tier", "Vendor"))
    for i, tier in enumerate(c.workbook.tiers):
        get = lambda name: ws.cell(header + 1 + i, heads[name]).value  # noqa: E731
        for name, want in (("Mix low", cmp.mix_speedup_low[i]), ("Mix high", cmp.mix_speedup_high[i]),
                           ("Speedup vs baseline, low end", cmp.speedup_vs_baseline_low[i])):
            assert _close(get(name), float(want)), (tier.name, name, get(name), want)
        assert get("Value verdict") == VALUE_NAMES[int(cmp.tier_value_verdict[i])], tier.name
        assert get("Speed verdict") == VERDICT_NAMES[int(cmp.tier_verdict[i])], tier.name
    from model.comparison import UNDECIDED as undecided
    was = {t for i, t in enumerate(before.tier_names) if before.tier_value_verdict[i] == undecided}
    now = {t for i, t in enumerate(cmp.tier_names) if cmp.tier_value_verdict[i] == undecided}
    # the narrower ranges decided Northwind Turbo; Helix Fast stays undecided by its widened override
    assert "Northwind Turbo" in was - now and "Helix Fast" in now, (was, now)
    # the override's range was widened: its class's verdict on that tier went undecided
    o = c.workbook.overrides[0]
    i, j = c.workbook.tier_index(o.tier), c.workbook.class_index(o.task_class)
    assert cmp.value_verdict[i, j] == undecided != before.value_verdict[i, j] or cmp.verdict[i, j] != before.verdict[i, j]


def test_profile_rates_typed_on_inputs_move_e_and_the_speedups(recalculated):
    """A profile's rates and a tier's K edited on Inputs: E (1 + the running products up to K), its extrapolated
    mark and the speedups are compare()'s of the edited workbook, recalculated by LibreOffice."""
    c = recalculated["profile edited"]
    assert [r.profile for r in c.workbook.classes if r.profile][0] == (0.95, 0.7, 0.82)
    cmp = compare(c.workbook)
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    for i, j, where, value in _pairs(book, c.workbook):
        for name, want in (("Tokens per stretch E", cmp.tokens_per_stretch[i, j]), ("Speedup", cmp.speedup[i, j]),
                           ("Break-even length E*", cmp.break_even_length[i, j]),
                           ("Speedup vs baseline", cmp.pair_vs_baseline[i, j]),
                           ("E, low end", cmp.tokens_per_stretch_low[i, j]),
                           ("E, high end", cmp.tokens_per_stretch_high[i, j]),
                           ("Speedup, low end", cmp.speedup_low[i, j]), ("Speedup, high end", cmp.speedup_high[i, j])):
            assert _close(value(name), float(want)), (where, name, value(name), want)
        if cmp.acceptance.kind[i, j] and cmp.speculative[i]:
            assert (value("E extrapolated") == "extrapolated") == bool(cmp.extrapolated[i, j]), where
    fast, code = c.workbook.tier_index("Helix Fast"), c.workbook.class_index("code")
    # code's interval on E typed anew on Inputs, carried to K 6 by formula (it was empty for profiles before)
    assert 3.0 < cmp.tokens_per_stretch_low[fast, code] < cmp.tokens_per_stretch_high[fast, code]
    assert cmp.extrapolated[fast, code]  # K 6 past code's three positions: the decay cell carried it
    header, heads = _table(book[SUMMARY], ("Tier", "Vendor"))
    for i, tier in enumerate(c.workbook.tiers):
        assert _close(book[SUMMARY].cell(header + 1 + i, heads["Mix speedup"]).value, float(cmp.mix_speedup[i])), tier.name
