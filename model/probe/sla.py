"""A speed SLA, judged: "a share q of requests above X output tokens/s" (docs/design/vendor-speed.md#the-sla).

Each request served fast is timed as model.probe.output_timing says (tokens after the first over the time from
the first content to the last; end to end beside it). With n timed requests of which m fall below X, the measured
share is 1 - m/n; its exact interval (binomial.exact_bounds, each end a one-sided bound at the confidence) says
met (low end at or above q), breached (high end below q) or undecided. How many requests a "met" needs at q is
said before the run, since 20 requests cannot show 99%.

A request too short to time is left out and counted untimed (docs/design/vendor-speed.md#which-requests-the-sla-times):
it must hold MIN_CHUNKS of the run's chunks' worth of tokens and take MIN_SPAN_S at the line's speed, a rule on
its length alone, so which requests are judged never depends on how fast each one went.
"""
from __future__ import annotations

import math
import statistics
from typing import Any, Sequence

from model.probe.binomial import exact_bounds, requests_needed
from model.probe.events import RequestRecord
from model.probe.output_timing import OutputTiming, output_timing
from model.workbook.rows import Tier
from model.common import formatting as fmt

MET, BREACHED, UNDECIDED = "met", "breached", "undecided"
METHOD = "Clopper-Pearson, each end a one-sided bound at the confidence"
DEFINITION = ("output tokens after the first over the time from the first content to the last (end to end beside "
              "it: all output tokens over the time from sending to the last content)")
MIN_CHUNKS = 8  # a timed request's tokens fill this many of the run's chunks: the first chunk's share is small
MIN_SPAN_S = 0.25  # and take this long at the line's speed: a late chunk moves its speed little
RULE = (f"a request is timed for the SLA when its output tokens fill at least {MIN_CHUNKS} of the run's chunks (the "
        f"median tokens a chunk over the requests judged) and take at least {MIN_SPAN_S:g} s at the line's speed; "
        "shorter ones are left out and counted untimed (a rule on length alone, not on the request's speed)")
FAR_ABOVE = 2.0  # a request timed this many times the median of the requests judged is flagged: a burst
MAX_NAMED = 50  # requests below the line named in the JSON (the run file's trailer names them all)


def parse_sla(text: str) -> tuple[float, float]:
    """'80@0.99' (or 80@99%) into (tokens/s, share); one line naming what is wrong otherwise."""
    speed, at, share = str(text).strip().partition("@")
    try:
        x = float(speed)
        q = float(share.rstrip("%")) / (100.0 if share.strip().endswith("%") else 1.0)
    except ValueError:
        raise ValueError(f"--sla {str(text)[:40]!r}: expected TOKENS_PER_S@SHARE, e.g. 80@0.99") from None
    if not at or not (math.isfinite(x) and 0 < x <= 1e6) or not (math.isfinite(q) and 0 < q < 1):
        raise ValueError(f"--sla {str(text)[:40]!r}: expected a speed above 0 and a share above 0 and below 1, "
                         "e.g. 80@0.99")
    return x, q


def tier_sla(tier: Tier) -> tuple[float, float] | None:
    """A workbook tier's SLA (sla_tokens_per_s, sla_share), where it has both."""
    x, q = tier.sla_tokens_per_s, tier.sla_share
    return (float(x), float(q)) if x and q else None


def tokens_a_chunk(records: Sequence[RequestRecord]) -> float | None:
    """The run's chunking: the median output tokens a content event over these requests (1 where each event is one
    token; a timer-flushed gateway's tokens a flush otherwise)."""
    per = [output_timing(r).tokens / len(r.content_events) for r in records if r.ok and r.content_events]
    return statistics.median(per) if per else None


def min_timed_tokens(records: Sequence[RequestRecord], threshold: float) -> int:
    """The fewest output tokens a request needs to be timed against the line (RULE)."""
    chunk = tokens_a_chunk(records) or 1.0
    return max(math.ceil(MIN_CHUNKS * chunk), math.ceil(MIN_SPAN_S * threshold) + 1)


def timed_speeds(records: Sequence[RequestRecord], threshold: float
                 ) -> tuple[list[tuple[str, float, OutputTiming]], int, int]:
    """The requests long enough to time (RULE), each (label, output speed, timing); how many completed requests
    were left untimed; the fewest tokens a timed one needs."""
    least = min_timed_tokens(records, threshold)
    timed, untimed = [], 0
    for r in records:
        if not r.ok:
            continue
        timing = output_timing(r)
        if timing.tokens_per_s is None or timing.tokens < least:
            untimed += 1
        else:
            timed.append((r.label, timing.tokens_per_s, timing))
    return timed, untimed, least


def judge_sla(records: Sequence[RequestRecord], threshold: float, share: float,
              confidence: float = 0.95) -> dict[str, Any]:
    """`probe --json`'s `sla`, over these requests (the fast tier's requests served fast)."""
    timed, untimed, least = timed_speeds(records, threshold)
    below = [(label, speed) for label, speed, _ in timed if speed < threshold]
    e2e_above = sum(t.end_to_end_tokens_per_s is not None and t.end_to_end_tokens_per_s >= threshold
                    for _, _, t in timed)
    n = len(timed)
    median = statistics.median([speed for _, speed, _ in timed]) if timed else None
    # far above the others: a catch-up burst after a stall (its first content late) rather than the tier's speed;
    # counted above the line as measured, flagged so the analyst can look at its end-to-end speed
    far = [(label, speed) for label, speed, _ in timed if median and speed > FAR_ABOVE * median]
    bounds = exact_bounds(n - len(below), n, confidence)
    verdict = UNDECIDED
    if bounds is not None and bounds[0] >= share:
        verdict = MET
    elif bounds is not None and bounds[1] < share:
        verdict = BREACHED
    return {"threshold_tokens_per_s": threshold, "promised_share": share,
            "measured_share": (n - len(below)) / n if n else None,
            "share_interval": list(bounds) if bounds else None, "requests": n, "verdict": verdict,
            "below": [{"request": label, "tokens_per_s": round(s, 2)} for label, s in below[:MAX_NAMED]],
            "below_count": len(below), "untimed": untimed,
            "far_above": [{"request": label, "tokens_per_s": round(s, 2)} for label, s in far[:MAX_NAMED]],
            "median_tokens_per_s": round(median, 2) if median else None, "min_output_tokens": least, "timing_rule": RULE,
            "requests_needed_for_met": requests_needed(share, confidence),
            "end_to_end_share": e2e_above / n if n else None,
            "interval_method": METHOD, "confidence": confidence, "speed_definition": DEFINITION}


def below_line(records: Sequence[RequestRecord], threshold: float) -> list[dict[str, Any]]:
    """Every timed request below the line, by its label: the run file names them all (run_file.record_sla)."""
    timed, _, _ = timed_speeds(records, threshold)
    return [{"request": label, "tokens_per_s": round(speed, 2)} for label, speed, _ in timed if speed < threshold]


def breaking_requests(records: Sequence[RequestRecord], header: dict[str, Any], threshold: float) -> list[dict[str, Any]]:
    """below_line over the fast tier's requests served fast, as the analysis judged them."""
    from model.probe.events import FAST
    from model.probe.served import requested_tier, served_fast

    mine = [r for r in records if r.role == FAST and r.ok]
    return below_line(served_fast(mine, requested_tier(header.get("fast"))), threshold)


def sla_line(sla: dict[str, Any]) -> str:
    """"SLA: 75% (51-90%) of requests above 80 tok/s against 99% promised: breached"."""
    x, q = sla["threshold_tokens_per_s"], sla["promised_share"]
    if not sla["requests"]:
        why = (f" (answers under {sla['min_output_tokens']} tokens are too short to time)"
               if sla.get("untimed") and sla.get("min_output_tokens") else "")
        return f"SLA: no request served fast could be timed against {x:g} tok/s for {_pct(q)}{why}: undecided"
    lo, hi = sla["share_interval"]
    short = (f" ({sla['untimed']} too short to time left out: under {sla['min_output_tokens']} tokens)"
             if sla.get("untimed") and sla.get("min_output_tokens") else "")
    text = (f"SLA: {_pct(sla['measured_share'])} ({_pct(lo)}-{_pct(hi)}) of {fmt.count(sla['requests'], 'request')} "
            f"above {x:g} tok/s{short} against {_pct(q)} promised: {sla['verdict']}")
    if sla["verdict"] == UNDECIDED and sla["below_count"] == 0 and sla["requests_needed_for_met"]:
        text += f" (a met needs {sla['requests_needed_for_met']:,} requests with none below)"
    return text


def sla_plan_words(threshold: float, share: float, fast_requests: int, confidence: float = 0.95,
                   max_tokens: int | None = None) -> str:
    """Said before the run: how many requests showing the SLA met takes, against how many this run sends (and,
    where the answers' token budget is too small to time any against the line, that it is)."""
    least = math.ceil(MIN_SPAN_S * threshold) + 1  # RULE's span term: known before the run, unlike the chunking
    short = (f"; but answers of at most {max_tokens} tokens are too short to time against {threshold:g} tok/s (at "
             f"least {least} tokens, {MIN_SPAN_S:g} s at that speed): raise the output tokens or no request is judged"
             if max_tokens is not None and max_tokens < least else "")
    need, need1 = requests_needed(share, confidence), requests_needed(share, confidence, below=1)
    head = (f"SLA {threshold:g} tok/s for {_pct(share)} of requests: showing it met at {confidence:.0%} needs at "
            f"least {need:,} requests served fast with none below ({need1:,} with one below)")
    if need is not None and fast_requests < need:
        return (f"{head}; this run sends {fast_requests:,} to the fast tier, so it can show the SLA breached or leave it "
                "undecided, not show it met" + short)
    return f"{head}; this run sends {fast_requests:,} to the fast tier" + short


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%".replace(".0%", "%") if x * 100 % 1 else f"{x:.0%}"
