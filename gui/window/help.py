"""The in-app guide: docs/guide/ rendered with Qt's Markdown, opened at the section about a number or a field.

The text is the repository's own guide (gui/window/guide_text.py reads it), read when Help first opens so
start-up does not pay for it; the dialog is gui/window/help_dialog.py, imported then too (the window needs only
the section names below to start). Sections are named by their headings' anchors as GitHub makes them, so F1 and
a link in the docs address the same place; tests/gui/window/test_help_guide.py checks every name below is a
heading of the guide.
"""
from __future__ import annotations

# the guide's sections that F1 and the Help menu open (docs/guide/*.md headings)
DAY, PROBE, MEASURE = "getting-started-the-analysts-day", "probe-a-tier", "measure-acceptance"
PRICE_LISTS, METRICS, WHERE_CV = "price-lists", "engine-metrics", "where-to-get-c-and-v"
EDITING, LOAD = "editing-the-tables", "batch-and-concurrency-the-servers-load-and-yours"
STRETCH, ALPHA, FILL = "stretch-and-k", "acceptance-α-and-its-three-conventions", "trailer-fill-f"
COST, SPEEDUP, BREAK_EVEN = "draft-cost-c-and-verify-cost-v", "speedup-s", "break-even-α"
VERDICT, VALUE = "speed-verdict-gain-marginal-tax", "value-verdict-is-the-speed-worth-the-premium"
CERTAINTY, SHAPES = "intervals-undecided-verdicts-and-the-fair-price", "profiles-and-mean-acceptance-lengths"
OPTIMAL_K, COST_FACTOR, MIX = "best-k", "flops-per-token-the-cost-including-the-draft", "mix-speedup"
PRICING, CLAIM = "monthly-cost-premium-cost-per-1x", "the-vendors-claim-and-the-α-it-needs"
CONTEXT, MEASURED = "context-length", "measured-against-modelled"
EXPORT, NEGOTIATE = "export", "negotiate"
TERMS = "a-vendors-fast-mode-context-bands-cached-input-downgrades-the-sla"
QUALITY = "quality-at-your-temperature"

# F1 on an input cell: the section that says what that field does to the numbers
ANCHOR_FOR_FIELD = {
    "name": EDITING, "vendor": EDITING, "notes": EDITING, "speculative": VERDICT, "k": STRETCH,
    "cost_model": COST, "c": COST, "v": COST, "gpu": COST, "pair": COST, "batch": LOAD,
    "concurrency": LOAD,
    "claimed_speedup": CLAIM, "claim_context": CLAIM, "price_out": PRICING, "price_in": PRICING,
    "baseline": PRICING, "tokens_out": MIX, "tokens_in": PRICING, "context": CONTEXT, "alpha": ALPHA,
    "alpha_source": ALPHA, "source_note": ALPHA,
    # a vendor's terms (model/workbook/validation.py TERMS_FIELDS) and the workload's share of them (WORKLOAD_FIELDS)
    **dict.fromkeys(("price_cached_in", "band_threshold", "price_in_long", "price_out_long", "price_cached_in_long",
                     "price_source", "downgraded_share", "sla_tokens_per_s", "sla_share", "long_share",
                     "cached_share"), TERMS),
}

# F1 on a column of the per-tier summary; the rest open at the mix
ANCHOR_FOR_SUMMARY = {"Speed verdict": VERDICT, "Value verdict": VALUE, "Claim holds": CLAIM,
                      "Claim needs alpha": CLAIM, "Fair price": CERTAINTY, "Value needs": CERTAINTY,
                      "Runs like": CERTAINTY, "Price ratio": VALUE, "Measured": MEASURED,
                      "Monthly cost": PRICING, "Premium": PRICING, "Cost per 1x": PRICING,
                      "vs baseline": PRICING, "FLOPs/token": COST_FACTOR, "Claim": CLAIM,
                      "SLA": TERMS, "Downgraded": TERMS, "Quality": QUALITY}

ANCHOR_FOR_METRIC = {"speedup": SPEEDUP, "break_even": BREAK_EVEN, "margin": BREAK_EVEN,
                     "speed_verdict": VERDICT, "value_verdict": VALUE, "price_break_even": VALUE,
                     "price_ratio": VALUE,
                     "trailer_fill": FILL, "alpha": ALPHA, "optimal_k": OPTIMAL_K, "cost_factor": COST_FACTOR}


def version() -> str:
    """The installed SpecLedger's version (pyproject's), or 'unknown' when run from an uninstalled tree."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("specledger")
    except PackageNotFoundError:
        return "unknown"


def about_html() -> str:
    return (f"<h3>SpecLedger {version()}</h3><p>Is a vendor's speculative-decoding fast tier worth its price on your "
            "workload? Break-even acceptance, priced comparison, measured acceptance, and a report for the "
            "negotiation.</p><p>Help &gt; Getting started walks through an analyst's day; F1 on any cell explains "
            "that number.</p>")
