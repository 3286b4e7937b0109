"""The headless subcommands' work: compute, then print text, JSON or CSV. main.py only parses."""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from typing import Any, Iterable, TextIO

from model.comparison.records import iter_pair_records, pair_records, tier_records
from model.mechanics import arithmetic as ar
from model.common import formatting as fmt
from commands.runner import CommandError
from model.comparison import compare
from model.comparison.verdicts import ON_TOO_FEW, TOO_FEW_LABEL, TOO_FEW_MEANING, labelled
from model.comparison.quality import quality_line
from model.comparison.terms import terms_words
from model.workbook.validation import K_LIMITS, parse_number
from model.workbook.json_file import load_demo, load_workbook


def add_calc_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=int, required=True, help="draft tokens per stretch")
    p.add_argument("--c", type=float, required=True, help="one draft forward / one target decode step")
    p.add_argument("--verify", type=float, default=1.0, help="target verify pass / one decode step (default 1)")
    p.add_argument("--alpha", type=_share, help="per-token acceptance, 0.78 or 78%%")
    p.add_argument("--json", action="store_true", help="print JSON")


def _share(text: str) -> float:
    """argparse type for an acceptance typed as an analyst would: 0.78 or 78%."""
    try:
        return parse_number(text, percent=True)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a share: {text!r} (use 0.78 or 78%)") from None


def add_compare_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("workbook", nargs="?", help="workbook .json (default: the built-in demo)")
    fmt_group = p.add_mutually_exclusive_group()
    fmt_group.add_argument("--json", action="store_true", help="print JSON")
    fmt_group.add_argument("--csv", action="store_true", help="print the (tier, class) rows as CSV")


def calc_result(k: int, c: float, v: float = 1.0, alpha: float | None = None, k_max: int = 16) -> dict[str, Any]:
    be = ar.break_even(k, c, v)
    out: dict[str, Any] = {
        "k": k, "c": c, "v": v, "alpha": alpha,
        "break_even": be.kind_name(),
        "break_even_alpha": None if int(be.kind) == ar.NEVER else float(be.alpha),
    }
    if alpha is not None:
        # search at least up to the K given, as the comparison does: "optimal" never worse than it
        best_k, best_s = ar.optimal_k(alpha, c, v, max(k_max, k))
        out.update({
            "expected_tokens": float(ar.expected_tokens(alpha, k)),
            "accepted_per_stretch": float(ar.accepted_per_stretch(alpha, k)),
            "trailer_fill": float(ar.trailer_fill(alpha, k)),
            "speedup": float(ar.speedup(alpha, k, c, v)),
            "optimal_k": int(best_k), "optimal_speedup": float(best_s),
            "flops_factor": float(ar.flops_factor(alpha, k, c)),
            "draft_acceptance_rate": float(ar.alpha_to_draft_acceptance_rate(alpha, k)),
            "mean_acceptance_length": float(ar.alpha_to_mean_acceptance_length(alpha, k)),
        })
    else:
        for key in ("expected_tokens", "accepted_per_stretch", "trailer_fill", "speedup", "optimal_k",
                    "optimal_speedup", "flops_factor", "draft_acceptance_rate", "mean_acceptance_length"):
            out[key] = None
    return out


def run_calc(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # looked up per call: a default bound at import outlives a replaced stdout
    if not K_LIMITS[0] <= args.k <= K_LIMITS[1]:
        raise CommandError(f"--k must be a whole number from {K_LIMITS[0]} to {K_LIMITS[1]} (got {args.k})")
    if not (0.0 <= args.c <= 10.0) or math.isnan(args.c):
        raise CommandError(f"--c must be from 0 to 10 (got {args.c})")
    if not (0.0 < args.verify <= 100.0):
        raise CommandError(f"--verify must be above 0 and at most 100 (got {args.verify})")
    if args.alpha is not None and not (0.0 <= args.alpha <= 1.0):
        raise CommandError(f"--alpha must be from 0 to 1 (got {args.alpha})")
    r = calc_result(args.k, args.c, args.verify, args.alpha)
    if args.json:
        json.dump(r, out, indent=2)
        out.write("\n")
        return 0
    kind = r["break_even"]
    if kind == "always":
        be_text = "always pays (K c + v <= 1)"
    elif kind == "never":
        be_text = f"never pays at K={args.k} (K c + v >= K + 1)"
    else:
        be_text = f"alpha* = {r['break_even_alpha']:.4f}"
    out.write(f"K={args.k}  c={args.c:g}  v={args.verify:g}\nbreak-even: {be_text}\n")
    if args.alpha is not None:
        out.write(
            f"at alpha={args.alpha:g}: tokens/stretch {r['expected_tokens']:.3f}, trailer fill {fmt.pct(r['trailer_fill'])}, "
            f"speedup {fmt.times(r['speedup'])}, FLOPs factor {fmt.times(r['flops_factor'])}\n"
            f"optimal K in 1..{max(16, r['k'])}: {r['optimal_k']} ({fmt.times(r['optimal_speedup'])})\n")
    return 0


def load_or_demo(path: str | None):
    return load_demo() if path is None else load_workbook(path)


def write_json_streamed(out: TextIO, head: dict[str, Any], lists: dict[str, Iterable[dict[str, Any]]]) -> None:
    """One JSON object: the `head` fields, then each list a record to a line as it is made.

    json.dump with indent runs the pure-Python encoder and wants the whole list in memory; a record
    at a time through the C encoder keeps memory flat and is several times faster."""
    out.write("{\n")
    for key, value in head.items():
        out.write(f"  {json.dumps(key)}: {json.dumps(value)},\n")
    for n, (key, records) in enumerate(lists.items()):
        out.write(f"  {json.dumps(key)}: [")
        sep = "\n    "
        for record in records:
            out.write(sep + json.dumps(record))
            sep = ",\n    "
        out.write("\n  ]" if sep != "\n    " else "]")
        out.write(",\n" if n < len(lists) - 1 else "\n")
    out.write("}\n")


def run_compare(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # looked up per call: a default bound at import outlives a replaced stdout
    wb = load_or_demo(args.workbook)
    cmp = compare(wb)
    if args.json:
        write_json_streamed(out, {"workbook": args.workbook or "demo", "currency": cmp.currency,
                                  "acceptance_convention": "per-token alpha (i.i.d.)",
                                  "mix_weights": "equal (no output tokens entered)" if cmp.equal_weights
                                  else "monthly output tokens"},
                            {"pairs": iter_pair_records(cmp), "tiers": tier_records(cmp)})
        return 0
    if args.csv:
        # written a record at a time: the whole table as dicts took 2.9 GB at 2.4 million pairs
        rows = (_csv_record(r) for r in iter_pair_records(cmp))
        first = next(rows, None)
        writer = csv.DictWriter(out, fieldnames=list(first) if first else ["tier", "task_class"], lineterminator="\n")
        writer.writeheader()
        # names and notes are the analyst's (or a vendor's price list's) text: never a formula in Excel
        for row in ([first] if first else []):
            writer.writerow({k: fmt.spreadsheet_safe_text(v) for k, v in row.items()})
        for row in rows:
            writer.writerow({k: fmt.spreadsheet_safe_text(v) for k, v in row.items()})
        return 0
    out.write(comparison_text(cmp))
    return 0


def _csv_record(r: dict[str, Any]) -> dict[str, Any]:
    """A pair's record as CSV columns: an interval as two numbers (its _low and _high) a spreadsheet computes with;
    it was one text field, "[1.61, 2.13]"."""
    out: dict[str, Any] = {}
    for key, value in r.items():
        if key.endswith("_interval"):
            low, high = value if value else (None, None)
            out[f"{key}_low"], out[f"{key}_high"] = low, high
        else:
            out[key] = value
    return out


def _claim_alpha_text(r: dict) -> str:
    # an impossible claim says so, in the one word used everywhere (not the dash of no claim at all)
    return fmt.OUT_OF_REACH if r["claim_reachable"] is False else fmt.pct(r["claim_implied_alpha"], 0)


def _alpha_text(kind: str, alpha: float | None) -> str:
    return {"never": "never", "n/a": "–"}.get(kind) or fmt.pct(alpha, 0)


def _tier_pays_text(r: dict[str, Any]) -> str:
    """The mix's price break-even: an alpha, or for a mix with a profile or a length its E* (model/comparison/guarantee.py)."""
    if r["guarantee_unit"] == "length" and r["price_break_even"] == "root" and r["guarantee_length"] is not None:
        return f"E* {r['guarantee_length']:.2f}"
    return _alpha_text(r["price_break_even"], r["price_break_even_alpha"])


def _acceptance_cells(r: dict[str, Any]) -> tuple[str, str, str]:
    """alpha, its break-even and the price's, or for a profile or a length the same in tokens per step."""
    if r["acceptance_kind"] == "alpha":
        return (fmt.pct(r["alpha"], 0), _alpha_text(r["break_even"], r["break_even_alpha"]),
                _alpha_text(r["price_break_even"], r["price_break_even_alpha"]))

    def length(x: float | None, prefix: str) -> str:
        return "–" if x is None else f"{prefix}{x:.2f}"

    mark = "*" if r["extrapolated"] else ""
    return (length(r["mean_acceptance_length"], "AL ") + mark, length(r["break_even_length"], "E* "),
            length(r["price_break_even_length"], "E* "))


# a tier's verdicts while its mix waits for a class nobody filled in (the window's Per tier table says the same)
WAITS = "class not given"
# a bill from list prices nobody typed (docs/design/verdicts.md#prices-nobody-gave): the monthly column's words
UNPRICED = "not given"


def comparison_text(cmp) -> str:
    # speed verdict: against plain decoding; value verdict: speed over the baseline against price over it
    tiers, pairs = tier_records(cmp), pair_records(cmp)
    lines = _tier_table(cmp, tiers)
    lines += _tier_sentences(cmp, tiers)
    lines.append("")
    lines += _pair_table(cmp, tiers, pairs)
    lines.append("")
    lines.extend(fair_price_lines(cmp, tiers))
    lines.append(f"verdict: speed against plain decoding. value: speedup over the baseline against the price ratio"
                 " (tier / baseline); 'pays a' is the acceptance at which they are equal (for a tier: the one"
                 f" acceptance every class would need). {_confidence_words(cmp.confidence, pairs)}; 'undecided' where"
                 " one reaches both sides of a break-even.")
    return "\n".join(lines) + "\n"


def _tier_table(cmp, tiers: list[dict[str, Any]]) -> list[str]:
    """One line per tier: mix, bill, premium, claim, verdicts (and the SLA's where any tier has one)."""
    # intervals widen the speed columns only where the workbook has any
    tw = 22 if any(r["speedup_interval"] for r in tiers) else 8
    verdicts = [r["incomplete"] or (WAITS if r["mix_waits_for"] else "") or r["verdict"] + (" (measured)" if r["judged_on_measured"] else
                                                   " (unconfirmed)" if r["unconfirmed"] else "") for r in tiers]
    vw = max([22] + [len(v) + 1 for v in verdicts])  # "incomplete: needs c and v" pushed the columns after it
    # "out of reach" ran into the claim before it ("3.0xout of reach") in a 9-wide column
    nw = max([9] + [len(_claim_alpha_text(r)) + 2 for r in tiers])
    values = ["incomplete" if r["incomplete"] else WAITS if r["mix_waits_for"] else r["baseline_incomplete"]
              or r["value_verdict"] for r in tiers]
    # the SLA's verdict beside the tier's, where any tier has an SLA (docs/design/vendor-terms.md)
    slas = [(r["sla"]["verdict"] or "promised") if r["sla"] else "–" for r in tiers]
    sla_head = f"{'':<{max(len(v) for v in values) - 5}}  SLA" if any(r["sla"] for r in tiers) else ""
    lines = [f"{'tier':<22}{'mix':>{tw}}{'monthly':>12}{'premium':>9}{'claim':>7}{'needs a':>{nw}}  holds  "
             f"{'verdict':<{vw}}{'pays a':>7}  value{sla_head}"]
    for r, verdict, value, sla in zip(tiers, verdicts, values, slas):
        holds = {None: "–", True: "yes", False: "no"}[r["claim_holds"]]
        mix = fmt.times_interval(r["mix_speedup"], *(r["speedup_interval"] or (None, None)))
        monthly = UNPRICED if r["prices_not_given"] else fmt.money(r["monthly_cost"], cmp.currency)
        lines.append(f"{r['tier'][:21]:<22}{mix:>{tw}}{monthly:>12}"
                     f"{fmt.signed_pct(r['premium'], 0):>9}{fmt.times(r['claimed_speedup'], 1):>7}"
                     f"{_claim_alpha_text(r):>{nw}}  {holds:<5}  {verdict:<{vw}}"
                     f"{'–' if r['incomplete'] else _tier_pays_text(r):>7}"
                     + (f"  {value:<{max(len(v) for v in values)}}  {sla}" if sla_head else f"  {value}"))
    waits = sorted({r["mix_waits_for"] for r in tiers if r["mix_waits_for"]})
    if waits:  # the class a mix waits for, said once (every fast tier waits for the same one, bar an override)
        lines.append(f"{WAITS}: no mix, verdict or fair price until it is filled in ({'; '.join(waits)}).")
    return lines + unpriced_lines(cmp, tiers)


def unpriced_lines(cmp, tiers: list[dict[str, Any]]) -> list[str]:
    """The tiers whose list prices nobody typed, said once: what they withhold and from which tiers."""
    names = [r["tier"] for r in tiers if r["prices_not_given"]]
    if not names:
        return []
    priced_against = [r["tier"] for r in tiers if not r["prices_not_given"] and r["baseline"] in names]
    also = f", nor for {', '.join(priced_against)} priced against them" if priced_against else ""
    return [f"prices not given: {', '.join(names)}: no monthly cost, premium, price ratio, value verdict or fair "
            f"price from them{also}; type their list prices (0 for a free tier) to see what they cost."]


def _tier_sentences(cmp, tiers: list[dict[str, Any]]) -> list[str]:
    """Under the tiers, where any: the speeds probes measured, the vendors' terms, quality, the speed at load."""
    lines: list[str] = []
    measured = [(r, cmp.tier_parts[i].measured) for i, r in enumerate(tiers) if r["measured_speedup"] is not None]
    if measured:
        # a probe's speed over the baseline beside the model's and the claim: the numbers a negotiation quotes
        lines.append("")
        lines.append("measured speed (a probe: tokens/s over the baseline's), beside the model and the claim:")
        for r, m in measured:
            claim = (f" Claim {fmt.times(r['claimed_speedup'])} at {fmt.context(r['claim_context'])}."
                     if r["claimed_speedup"] is not None else "")
            lines.append(f"  {r['tier']}: {m.words()}{claim}")
    terms = [(name, terms_words(cmp, i)) for i, name in enumerate(cmp.tier_names)]
    if any(words for _, words in terms):
        # what the vendor's terms make of the tier (docs/design/vendor-terms.md): mix and bill as served, the SLA
        lines.append("")
        lines.append("vendor's terms (as served: downgraded requests at the standard tier's speed and prices):")
        lines += [f"  {tier}: {line}" for tier, words in terms for line in words]
    quality = [(name, quality_line(cmp, i)) for i, name in enumerate(cmp.tier_names) if quality_line(cmp, i)]
    if quality:
        # beside the speed and value verdicts: a lossy tier's speed is not the standard tier's model's
        # (docs/design/quality.md)
        lines.append("")
        lines.append("quality (a probe at a temperature and on checked tasks):")
        lines += [f"  {tier}: {q.removeprefix('Quality: ')}" for tier, q in quality]
    at_load = [(r["tier"], cmp.tier_parts[i].at_load.words()) for i, r in enumerate(tiers)]
    if any(words for _, words in at_load):
        # the speed at the analyst's own parallel streams: a vendor's claim is for a quiet server
        lines.append("")
        lines.append("speed at your load (parallel streams, the tier's concurrency):")
        lines += [f"  {tier}: {words}" for tier, words in at_load if words]
    return lines


def _pair_table(cmp, tiers: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> list[str]:
    """One line per (tier, class) that runs speculative decoding, then what its marks mean."""
    pw = 22 if any(r["speedup_interval"] for r in pairs) else 9
    # a verdict resting on too few requests for an interval says so beside it: the measured point's, not firm
    few = [r["verdict_basis"] == ON_TOO_FEW for r in pairs]
    pvw = max([9] + [len(r["acceptance_not_given"] or labelled(r["verdict"], f)) + 1 for r, f in zip(pairs, few)])
    lines = [f"{'tier':<22}{'class':<15}{'alpha':>8}{'alpha*':>8}{'fill':>7}{'speedup':>{pw}}  {'verdict':<{pvw}}"
             f"{'price':>7}{'pays a':>8}  value"]
    # a value verdict withheld for the whole tier says why (its baseline's mechanics made up), not "n/a"
    withheld = {name: cmp.value_withheld(i) for i, name in enumerate(cmp.tier_names)}
    for r, f in zip(pairs, few):
        if r["verdict"] == "n/a" and not r["acceptance_refused"] and not r["acceptance_not_given"]:
            continue
        alpha_cell, be, pays = _acceptance_cells(r)
        ratio = "–" if r["value_verdict"] == "n/a" else ("free" if r["price_ratio"] is None else fmt.times(r["price_ratio"]))
        speed = fmt.times_interval(r["speedup"], *(r["speedup_interval"] or (None, None)))
        lines.append(f"{r['tier'][:21]:<22}{r['task_class'][:14]:<15}{alpha_cell:>8}{be:>8}"
                     f"{fmt.pct(r['trailer_fill'], 0):>7}{speed:>{pw}}  "
                     f"{r['acceptance_not_given'] or labelled(r['verdict'], f):<{pvw}}"
                     f"{ratio:>7}{pays:>8}  {withheld[r['tier']] or labelled(r['value_verdict'], f)}")
    if any(few):
        lines.append(f"({TOO_FEW_LABEL}): the class was {TOO_FEW_MEANING}.")
    if any(r["acceptance_kind"] != "alpha" for r in pairs if r["verdict"] != "n/a"):
        lines.append("AL: the mean acceptance length (tokens per verify step) of a class given as a profile or a"
                     " length, where alpha does not apply; E*: the length it must reach (K c + v, or the price's);"
                     " * extrapolated past the K it was measured at.")
    refused = [(r["tier"], r["acceptance_refused"]) for r in tiers if r["acceptance_refused"]]
    if refused:
        lines.append("no speedup (–) where a tree draft (tree_size) has a class given as one alpha: "
                     + next(r["acceptance_refused"] for r in pairs if r["acceptance_refused"])
                     + "; give those classes a length or a profile ("
                     + "; ".join(f"{tier}: {', '.join(names)}" for tier, names in refused) + ").")
    return lines


def _confidence_words(confidence: float, pairs: list[dict[str, Any]]) -> str:
    """The confidence of the bracketed intervals. A class's is the one it was measured (or typed) at, which the
    workbook's setting does not change; the mixes combine them at the workbook's. It said every bracket was at
    the setting's 80% where the classes' were measured at 95%."""
    own = sorted({r["confidence"] for r in pairs if r["speedup_interval"] and r["confidence"] is not None})
    if not own or own == [confidence]:
        return f"Intervals in brackets are at {confidence:.0%} confidence (classes combined as independent)"
    return (f"Intervals in brackets: a tier's mix at {confidence:.0%} confidence (the workbook's; classes combined as"
            f" independent), a class's at the confidence it was measured or typed at "
            f"({', '.join(f'{c:.0%}' for c in own)})")


def fair_price_lines(cmp, tiers: list[dict[str, Any]]) -> list[str]:
    """Per tier with a baseline: the fair price (factor and prices per 1M tokens), at the measured acceptance and
    at the pessimistic end, and the acceptance to guarantee beside the one the workload runs like."""
    out = []
    for r in tiers:
        if r["fair_price_factor"] is None:
            continue
        cur = cmp.currency
        line = (f"{r['tier']}: fair price {fmt.times(r['fair_price_factor'])} list ({fmt.money(r['fair_price_out'], cur, 2)}"
                f" out, {fmt.money(r['fair_price_in'], cur, 2)} in per 1M)")
        if r["fair_price_factor_low"] is not None:
            line += (f"; open at {fmt.times(r['fair_price_factor_low'])} ({fmt.money(r['fair_price_out_low'], cur, 2)} out, "
                     f"{fmt.money(r['fair_price_in_low'], cur, 2)} in), the pessimistic end")
        if r["judged_on_measured"]:  # no mechanics: no acceptance to guarantee, the price rests on the speed measured
            out.append(f"{line}; on the measured speed (how its fast mode runs is not given: no acceptance to guarantee)")
            continue
        g = cmp.tier_parts[cmp.tier_names.index(r["tier"])].guarantee
        guarantee = (f"acceptance to guarantee {g.text()}" if r["price_break_even"] == "root"
                     else f"acceptance to guarantee: {r['price_break_even']}")
        out.append(f"{line}; {guarantee}, runs like {g.runs_text()}")
    if out:
        out.append("")
    return out
