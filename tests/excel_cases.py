"""Workbooks shared by the Excel tests: the demo, and one that walks every edge of the formulas."""
from __future__ import annotations

import copy

from model.workbook.acceptance_fields import summary_alpha, summary_fields
from model.workbook.rows import Override, Settings, TaskClass, Tier, Workbook
from model.workbook.json_file import load_demo

# user text a spreadsheet would run as a formula if it were written carelessly
INJECTIONS = ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1:A2)", "=cmd|' /C calc'!A0"]


def edge_workbook() -> Workbook:
    """alpha at 0, 1 and next to 1; never and always break-even; zero prices; hostile names."""
    tiers = [
        Tier(name=INJECTIONS[0], vendor=INJECTIONS[1], speculative="no", price_out=0.0, price_in=0.0,
             notes=INJECTIONS[4]),
        Tier(name="Always pays", vendor=INJECTIONS[3], speculative="yes", k=3, c=0.0, v=1.0, claimed_speedup=2.0,
             claim_context=2048, price_out=5.0, price_in=1.0, baseline=INJECTIONS[0]),
        Tier(name="Never pays", vendor="-", speculative="unknown", k=2, c=1.2, v=1.0, claimed_speedup=5.0,
             price_out=3.0, price_in=0.5, baseline="Always pays", notes="@ note"),
        Tier(name="Roofline big batch", speculative="yes", k=7, cost_model="roofline", gpu="A100 80GB",
             pair="Llama 3B -> 70B", batch=64, claimed_speedup=None, price_out=7.5, price_in=1.25),
    ]
    classes = [
        TaskClass(name=INJECTIONS[2], tokens_out=0.0, tokens_in=1e6, context=1024, alpha=0.0),
        TaskClass(name="certain", tokens_out=0.0, tokens_in=0.0, context=131072, alpha=1.0, alpha_source="measured",
                  source_note=INJECTIONS[3]),
        TaskClass(name="almost certain", tokens_out=0.0, tokens_in=5e5, context=8192, alpha=0.99999999),
    ]
    overrides = [Override(tier="Roofline big batch", task_class="certain", alpha=0.9, alpha_source="imported",
                          source_note=INJECTIONS[1])]
    return Workbook(tiers=tiers, classes=classes, overrides=overrides,
                    settings=Settings(marginal_band=0.1, claim_tolerance=0.0, k_max=12, currency="EUR"),
                    title=INJECTIONS[0])


def demo() -> Workbook:
    return load_demo()


def ranged() -> Workbook:
    """The demo with a range on every class and one override: undecided verdicts and fair prices at both ends."""
    wb = load_demo()
    for c in wb.classes:
        # rounded as typed (a spreadsheet saves 15 digits: 0.8 - 0.08 would come back as 0.72)
        c.alpha_low, c.alpha_high = round(c.alpha - 0.08, 6), round(min(1.0, c.alpha + 0.06), 6)
    o = wb.overrides[0]
    o.alpha_low, o.alpha_high = round(max(0.0, o.alpha - 0.05), 6), round(o.alpha + 0.05, 6)
    return wb


def made_up() -> Workbook:
    """The demo with two tiers a price list brought in without their mechanics (Tier.defaulted): one whose c and v
    were made up, priced against a standard tier, and one whose speculative flag was, the baseline of a third."""
    wb = load_demo()
    wb.tiers += [Tier(name="Zeta Fast", vendor="Zeta", speculative="yes", k=4, c=0.1, v=1.0, price_out=9.5,
                      price_in=1.0, baseline="Northwind Standard", defaulted="c, v"),
                 Tier(name="Zeta Maybe", vendor="Zeta", speculative="unknown", k=4, c=0.1, v=1.0, price_out=6.0,
                      price_in=1.0, defaulted="speculative, k, c, v"),
                 Tier(name="Zeta Over Maybe", vendor="Zeta", speculative="yes", k=3, c=0.05, v=1.1, price_out=8.0,
                      price_in=1.0, baseline="Zeta Maybe")]
    return wb


def class_not_given(tokens: bool = False, acceptance: bool = False) -> Workbook:
    """The demo with a task class added by Add row (TaskClass.defaulted: its acceptance, context and tokens not
    given), then its tokens typed (`tokens`), or its acceptance and context (`acceptance`): no fast tier has a mix
    over the classes until all are."""
    from model.workbook.row_edits import add_row

    wb = load_demo()
    new = wb.classes[add_row(wb, "classes", len(wb.classes))]
    typed = {**({"tokens_out": 40e6, "tokens_in": 10e6} if tokens else {}),
             **({"alpha": 0.7, "context": 8192} if acceptance else {})}
    for field, value in typed.items():
        setattr(new, field, value)
        new.entered(field)
    return wb


def prices_not_given() -> Workbook:
    """The demo with tiers whose list prices nobody typed (Tier.defaulted "price_out, price_in", their placeholder 0):
    Zephyr Standard added by Add row, typed a plain tier; Zephyr Fast added, its mechanics typed and priced against
    Helix Standard; Helix Standard's prices cleared to not given, so Helix Fast is priced against a tier nobody
    priced; and Zephyr Free, typed free (0 typed is a price), the baseline of Zephyr Paid."""
    from model.workbook.row_edits import add_row

    wb = load_demo()
    typed = [("Zephyr Standard", {"vendor": "Zephyr", "speculative": "no"}),
             ("Zephyr Fast", {"vendor": "Zephyr", "speculative": "yes", "k": 4, "c": 0.1, "v": 1.1,
                              "baseline": "Helix Standard"}),
             ("Zephyr Free", {"vendor": "Zephyr", "speculative": "no", "price_out": 0.0, "price_in": 0.0}),
             ("Zephyr Paid", {"vendor": "Zephyr", "speculative": "yes", "k": 4, "c": 0.1, "v": 1.1,
                              "price_out": 6.0, "price_in": 1.0, "baseline": "Zephyr Free"})]
    for name, fields in typed:
        new = wb.tiers[add_row(wb, "tiers", len(wb.tiers))]
        new.name = name
        for field, value in fields.items():
            setattr(new, field, value)
            new.entered(field)
    new.entered("gpu")
    new.entered("pair")
    helix = wb.tiers[wb.tier_index("Helix Standard")]
    helix.price_out = helix.price_in = 0.0
    helix.defaulted = "price_out, price_in"
    return wb


def profiled() -> Workbook:
    """The demo with acceptance beyond one alpha: per-position profiles (one shorter than some tiers' K, so E is
    extrapolated there; one ending in a zero), a mean acceptance length at K = 3, and an override's profile;
    intervals on E on code (at the workbook's confidence), json and the override (at 90%), carried to every
    tier's K by formula. Rates rounded as typed (a spreadsheet saves 15 digits)."""
    wb = load_demo()
    wb.classes[0].profile = (0.95, 0.9, 0.82)  # code
    wb.classes[1].acceptance_length, wb.classes[1].acceptance_length_k = 2.9, 3  # json
    wb.classes[2].profile = (0.9, 0.0)  # extraction: nothing past the second position
    wb.classes[4].profile = (0.77, 0.584416, 0.533333, 0.5, 0.45, 0.41)  # prose: vLLM's n-gram, then on
    wb.overrides[0].profile = (0.8, 0.6)
    wb.classes[0].acceptance_length_low, wb.classes[0].acceptance_length_high = 3.2, 3.8  # E 3.506 at 3 positions
    wb.classes[1].acceptance_length_low, wb.classes[1].acceptance_length_high = 2.6, 3.1
    wb.classes[1].alpha_confidence = 0.9
    wb.overrides[0].acceptance_length_low, wb.overrides[0].acceptance_length_high = 2.0, 2.5  # E 2.28
    wb.overrides[0].alpha_confidence = 0.9
    for row in (wb.classes[0], wb.classes[1], wb.classes[2], wb.classes[4], wb.overrides[0]):
        summarised(row)
    return wb


def summarised(row: TaskClass | Override) -> TaskClass | Override:
    """The row with its alpha (and its alpha range, where it has one) the summary of its profile or length, as a
    measurement's Apply sets them (docs/design/arithmetic.md#the-alpha-beside-a-profile): an alpha left beside a
    profile set after it would contradict it and be refused."""
    fields = summary_fields(row.profile, row.acceptance_length, row.acceptance_length_k, row.acceptance_length_low,
                            row.acceptance_length_high)
    # rounded as typed: a spreadsheet keeps 15 digits, and the report's round trip compares rows equal
    row.alpha = round(fields["alpha"], 12)
    if row.alpha_low is not None:
        row.alpha_low, row.alpha_high = round(fields["alpha_low"], 12), round(fields["alpha_high"], 12)
    return row


def treed() -> Workbook:
    """The profiled demo with two tree drafts (tree_size), every class a length or a profile on them (the two
    classes given one alpha by overrides: a tree refuses an alpha, comparison.TREE_NEEDS_LENGTH): Orbital Rapid
    (roofline: v is its pass over the tree's 16 tokens) and Apex Express (typed c and v)."""
    wb = profiled()
    rapid, express = wb.tiers[wb.tier_index("Orbital Rapid")], wb.tiers[wb.tier_index("Apex Express")]
    rapid.tree_size = 16
    express.tree_size, express.cost_model, express.c, express.v = 24, "typed", 0.08, 1.3
    for tier in (rapid, express):
        for name, length in (("summarisation", 2.4), ("creative", 1.9)):
            wb.overrides.append(Override(tier=tier.name, task_class=name, alpha=round(summary_alpha((), length, 3), 12),
                                         alpha_source="measured", acceptance_length=length, acceptance_length_k=3))
    return wb


def too_few() -> Workbook:
    """The demo with two classes measured from too few requests for an interval (model.acceptance.TOO_FEW): code
    an alpha, json a mean acceptance length at K = 3; their verdicts are the measured point's alone."""
    from model.acceptance import TOO_FEW
    wb = load_demo()
    code, json_ = wb.classes[0], wb.classes[1]
    code.alpha_source, code.alpha_requests, code.alpha_steps, code.alpha_method = "probed", 3, 120, TOO_FEW
    json_.acceptance_length, json_.acceptance_length_k = 2.9, 3
    summarised(json_)
    json_.alpha_source, json_.alpha_requests, json_.alpha_steps, json_.alpha_method = "probed", 4, 90, TOO_FEW
    return wb


def termed() -> Workbook:
    """The ranged demo with a vendor's terms: bands, cached input, downgraded shares (one measured, with its interval,
    one typed), an SLA measured and one only promised; classes past the band by context and by share, cached input;
    and a baseline with terms of its own (docs/design/vendor-terms.md)."""
    wb = ranged()
    fast, other, standard = wb.tiers[1], wb.tiers[3], wb.tiers[0]
    fast.price_cached_in, fast.band_threshold, fast.price_in_long, fast.price_out_long = 0.4, 100_000, 7.0, 40.0
    fast.price_cached_in_long = 0.9
    fast.downgraded_share, fast.downgraded_low, fast.downgraded_high, fast.downgraded_requests = 0.25, 0.14, 0.4, 48
    fast.sla_tokens_per_s, fast.sla_share, fast.sla_measured_share = 80.0, 0.99, 0.75
    fast.sla_share_low, fast.sla_share_high, fast.sla_requests = 0.51, 0.9, 20
    fast.price_source = "list prices as read 2026-12-06 from the vendor's page; not current, check them"
    other.downgraded_share = 0.1
    other.sla_tokens_per_s, other.sla_share = 50.0, 0.99
    standard.price_cached_in, standard.band_threshold, standard.price_in_long, standard.price_out_long = 0.2, 100_000, 3.0, 12.0
    wb.classes[0].cached_share, wb.classes[1].long_share, wb.classes[2].cached_share = 0.5, 0.3, 0.25
    wb.classes[-1].context = 200_000
    return wb


def closed() -> Workbook:
    """The demo with a closed vendor's fast mode from a preset: mechanics nobody gave, its speed measured by a probe
    with an interval at 90% (the workbook's is 95%), a downgraded share; judged on the measured speed
    (docs/design/vendor-terms.md#judged-on-the-measured-speed)."""
    from model.workbook.vendor_presets import add_preset, load_vendor_presets

    wb = demo()
    add_preset(wb, load_vendor_presets()[0])
    fast = wb.tiers[wb.tier_index("Claude Opus 4.6 fast mode")]
    fast.measured_speedup, fast.measured_speedup_low, fast.measured_speedup_high = 2.2211, 2.0286, 2.4319
    fast.measured_speedup_confidence, fast.measured_note = 0.9, "probed 2026-12-06 at prompt only, against demo"
    fast.downgraded_share, fast.downgraded_low, fast.downgraded_high, fast.downgraded_requests = 0.0833, 0.033, 0.196, 48
    return wb


LONG_NAMES = ["Quasar Hyperdrive Priority Max", "Lumen Express Ultra", "Vega Swift Plus Enterprise",
              "Nimbus Rapid Long-Context"]


def long_named() -> Workbook:
    """Eight fast tiers: the demo's four and four more with long names from vendors with long names (advice lines
    wrap), Northwind Turbo and Apex Express measured off the model's speed (2.65x above it, 1.10x below)."""
    wb = load_demo()
    for n, t in enumerate([t for t in wb.tiers if t.speculative != "no"]):
        extra = copy.deepcopy(t)
        extra.renew_identity()
        extra.name, extra.vendor = LONG_NAMES[n], f"{t.vendor} Global Partners"
        extra.price_out *= 1.3 + 0.2 * n
        wb.tiers.append(extra)
    for name, speed in (("Northwind Turbo", 2.65), ("Apex Express", 1.1)):
        tier = wb.tiers[wb.tier_index(name)]
        tier.measured_speedup, tier.measured_speedup_low, tier.measured_speedup_high = speed, speed - 0.1, speed + 0.1
        tier.measured_note = "probed at 4K against its standard tier"
    return wb
