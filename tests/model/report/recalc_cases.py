"""The reports the LibreOffice recalculation tests open: SpecLedger's own exports, and copies with inputs edited on
Inputs as an analyst would (with openpyxl, which keeps the formulas and drops the saved values, so the engine has
to recompute everything on load). tests/model/report/conftest.py converts them all in one LibreOffice run."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import openpyxl

from tests.excel_cases import (class_not_given, closed, demo, edge_workbook, made_up, prices_not_given, profiled, ranged,
                               termed, too_few, treed)
from tests.office import convert
from model.report.export import build_report
from model.report.layout import (CLASS_COLUMNS, INPUTS, OVERRIDE_COLUMNS, PROFILE_HEADERS, SETTING_ROWS, InputsLayout, TIER_COLUMNS,
                                 column_of)
from model.workbook.acceptance_fields import take_summary
from model.workbook.rows import Workbook

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
# a vendor's terms typed anew in Excel: a long-context price, a downgraded share, a cached price on a baseline,
# a class's cached share and its share past the band, an SLA measured share (docs/design/vendor-terms.md)
TERMS_EDITS = [
    ("tier", "Northwind Turbo", "price_out_long", 55.0),
    ("tier", "Northwind Turbo", "downgraded_share", 0.38),
    ("tier", "Northwind Standard", "price_cached_in", 0.3),
    ("tier", "Helix Fast", "downgraded_share", 0.5),
    ("tier", "Helix Fast", "sla_measured_share", 1.0),
    ("tier", "Helix Fast", "sla_share_low", 0.995),
    ("tier", "Helix Fast", "sla_share_high", 1.0),
    ("class", "prose", "cached_share", 0.8),
    ("class", "code", "long_share", 0.6),
]
# the classes measured from too few requests given a range on Inputs: code's on alpha, json's (a length) on E in
# the profiles table, whose only row it is; their verdicts lose '(too few requests)' by formula
TOO_FEW_RANGED = [
    ("class", "code", "alpha_low", 0.74), ("class", "code", "alpha_high", 0.86),
    ("profile", 0, "acceptance_length_low", 2.7), ("profile", 0, "acceptance_length_high", 3.1),
]


def narrowed_edits() -> list[tuple]:
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
    c.alpha_prompts = 8  # 40 requests of 8 distinct prompts
    wb.classes[1].alpha_low = wb.classes[1].alpha_high = None  # one class without a range
    wb.classes[1].alpha_requests, wb.classes[1].alpha_method = 3, "too few requests for an interval"
    o = wb.overrides[0]
    o.alpha_confidence, o.alpha_requests, o.alpha_steps, o.alpha_method = 0.99, 12, 400, "cluster-robust logit"
    return wb


_PROFILE_FIELDS = {"acceptance_length_low": "E low (at the K measured)",
                   "acceptance_length_high": "E high (at the K measured)"}


def edit(src: Path, dst: Path, edits: list[tuple], base: Callable[[], Workbook] = demo) -> Workbook:
    """Change inputs in the file as an analyst would in Excel; returns the workbook SpecLedger would compare.
    An edit is (table, key, field, value): a setting (key None), a tier or class by name, an override by its
    place, or a row of the profiles table by its place (a class's interval on E)."""
    wb = base()
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    book = openpyxl.load_workbook(src)
    ws = book[INPUTS]
    profile_rows = [r for r in (*wb.classes, *wb.overrides) if r.profile or r.acceptance_length is not None]
    for table, key, field, value in edits:
        if table == "setting":
            ws.cell(SETTING_ROWS[field], 2).value = value
            continue
        if table == "profile":
            ws.cell(layout.profile_header + 1 + key, PROFILE_HEADERS.index(_PROFILE_FIELDS[field]) + 1).value = value
            setattr(profile_rows[key], field, value)
            continue
        if table == "tier":
            n = wb.tier_index(key)
            row, specs, target = layout.tier_row(n), TIER_COLUMNS, wb.tiers[n]
        elif table == "class":
            n = wb.class_index(key)
            row, specs, target = layout.class_row(n), CLASS_COLUMNS, wb.classes[n]
        else:
            row, specs, target = layout.override_row(key), OVERRIDE_COLUMNS, wb.overrides[key]
        ws.cell(row, column_of(specs, field)).value = value
        setattr(target, field, value)
    book.save(dst)
    return wb


def edit_profiles(src: Path, dst: Path, out: Path) -> Case:
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
    ws.cell(layout.tier_row(3), column_of(TIER_COLUMNS, "k")).value = 6  # Helix Fast (typed c, v): K past code's 3
    wb.tiers[3].k = 6
    book.save(dst)
    # the alphas beside the two profiles, left as they were, now contradict them: the import puts each profile's
    # summary in their place and says so in the row's source note (docs/design/arithmetic.md#the-alpha-beside-a-profile)
    for row in (wb.classes[0], wb.classes[4]):
        assert take_summary(row).startswith("alpha ")
    return Case(dst, out / dst.name, {}, wb)


EXPORTED = {"demo": demo, "edge": edge_workbook, "ranged": ranged, "measured": measured, "made up": made_up,
            "profiled": profiled, "treed": treed, "too few": too_few, "termed": termed,
            "closed": closed,
            # a class added by Add row: nothing given, then its tokens only, then its acceptance and context only
            "class not given": class_not_given, "class tokens given": lambda: class_not_given(tokens=True),
            "class acceptance given": lambda: class_not_given(acceptance=True),
            # tiers whose list prices nobody typed (Add row, a price list without them), beside a free one typed 0
            "prices not given": prices_not_given}


def build_cases(src: Path, out: Path, profile: Path) -> dict[str, Case]:
    """Every report as exported and as edited, converted by one LibreOffice run into ``out``."""
    cases: dict[str, Case] = {}
    for name, make in EXPORTED.items():
        path = src / f"{name}.xlsx"
        data, expected = build_report(make(), f"{name}.json")  # what export_report writes, with its values
        path.write_bytes(data)
        cases[name] = Case(path, out / path.name, expected, make())

    def edited(name: str, base: str, edits: list[tuple]) -> None:
        dst = src / f"{name}.xlsx"
        cases[name] = Case(dst, out / dst.name, {}, edit(cases[base].original, dst, edits, EXPORTED[base]))

    for name, edits in (("edited", ANALYST_EDITS), ("priced", PRICE_EDITS), ("refused", REFUSED_EDITS),
                        ("refused setting", [("setting", None, "k_max", 0)])):
        edited(name, "demo", edits)
    cases["profile edited"] = edit_profiles(cases["profiled"].original, src / "profile edited.xlsx", out)
    edited("narrowed", "ranged", narrowed_edits())
    edited("too few ranged", "too few", TOO_FEW_RANGED)
    edited("terms edited", "termed", TERMS_EDITS)
    edited("terms refused", "termed", [("tier", "Northwind Turbo", "price_in_long", -3.0)])
    edited("closed at 80%", "closed", [("setting", None, "confidence", 0.8)])
    run = convert([c.original for c in cases.values()], "xlsx", out, profile)
    missing = [c.recalculated.name for c in cases.values() if not c.recalculated.exists()]
    assert not missing, f"LibreOffice did not convert {missing}: {run.stdout} {run.stderr}"
    return cases
