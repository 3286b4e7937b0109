"""A busy client reads late, and a late read merges steps: found here and left out of the reading.

In a per-token stream a step is a run of events a few microseconds apart, steps a decode time D
apart. A reader that wakes late (another process on every core, the analyst editing during a run)
takes two steps' events in one read, and they look like one big step: the reading then sees
"up to 10 tokens per step" against a server running K = 4. The stream does not say where the
steps inside such a group divide (any split of its tokens is as likely), so a suspect group is left
out rather than split; which groups a late reader merges depends on the reader's timing, not on the
steps' sizes, so what remains is a fair sample. A merge needs the reader to have been away from
the moment one step arrived until the next one did, about a decode time. A group is suspect when:
- the client's own timer (model.probe.stalls) stalled for at least STALL decode times and woke
  just before this group was read (the read that finds two steps waiting is the first after the
  stall; a stall that ended mid-gap, the reader busy with the group before, merged nothing, and
  leaving out the step after a big one would bias alpha); a group that merely arrived late while
  the client was awake was sent late (a busy server), which merges nothing;
- where the client's stalls were not measured (a run file from before), it arrived more than LATE
  decode times after the group before it (a merge of two steps arrives at least two decode times
  after the step before them, unless that one was late too);
- where the times are the kernel's receive times (loop_client on Linux), the same gap rule, and it is
  exact there: a late reader does not move a stamp, so an on-time step reads a decode time after the
  one before however late it was read, while the kernel's receive queue joins two steps a late reader
  finds waiting into one, stamped at the second's arrival, two decode times after the step before
  (the timer's rule does not apply: it compares the stall with the time of the read, which the stamp
  is not). A step the server itself sent late is left out too, which does not depend on its size. The
  first step is timed against the stream's first payload where that came apart before it (a role chunk),
  and left out where it came in the same read (two steps a late reader found at the very start would
  read as one; on a real server the first token comes alone from the prompt pass anyway);
- once K is known, it holds more than K + 1 tokens, which no verify step emits.
When more than UNRELIABLE_SHARE of the groups are suspect, the timing says nothing trustworthy
about K or alpha on this run, and the reading says so instead of giving them. Where the reading stands but over
MATERIAL_SHARE of the steps were left out for any reason, it says that too (material_note): the analyst learns that
the timing rests on a visibly smaller sample, from a server whose pace was uneven.

The opposite happens too: a server that pauses between a step's own tokens (llama.cpp at trace log level on a
loaded machine: 10-15 ms inside a step of 720 ms) splits one step into two groups a small fraction of a decode
time apart, and the first part reads as a rejection (a full step of 5 read as 1 + 4). Two verify steps are at
least a verify pass apart, so groups less than SPLIT decode times apart whose second one the client's timer does
not mark as read after a stall are one step: join_splits joins them (K + 1 still bounds the result, by size).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from model.common import formatting as fmt

LATE = 1.5
STALL = 0.9  # a merge needs the reader away for about a whole decode time
WOKE, WOKE_MIN_S = 0.25, 0.003  # a stall ends this close before the group's arrival (its read) to count
MOST = 0.5  # left out for any reason: the rest is too thin a sample to read K and alpha from
UNRELIABLE_SHARE = 0.15  # bench_probe_busy: 1-12% left out on clean runs, 17-23% where alpha went wrong at 5 ms steps
# Left out for any reason, the kernel's fair timing included (each request's first group read with the opening not
# counted: one a request however steady the pace): past this share the reading still stands (those steps do not bias
# it by their size) but rests on visibly fewer steps than the run read, and the server's pace was uneven (a cold
# engine, another load on its machine), so the analyst is told, in the text, the JSON and the dock. 15%, the bar
# past which reader merges void the reading, and above what clean runs leave out (1-12%, bench_probe_busy); a cold
# llama.cpp server (gemma-3-270m, K = 4) on a loaded 2-core machine left out 16% (148 of 901), 49 of 180 in an
# earlier session, neither said before
MATERIAL_SHARE = 0.15
MIN_GAPS = 4  # a request with fewer gaps between groups takes the run's decode time
BUSY = "timing unreliable on this run: the machine was busy"

LATE_READ, STALLED, TOO_BIG, LATE_ARRIVAL = "late", "client stalled", "too large", "late by the kernel's time"
WITH_OPENING = "read with the stream's opening"
TIMED_FAIRLY = (LATE_ARRIVAL, WITH_OPENING)  # left out for when they came, not for their size: no sign of a busy reader
# a real llama.cpp run (gemma-3-270m with a draft, K = 4): 19 of 1,042 gaps under 0.02 D, every one joining to at
# most K + 1 tokens, then none up to 0.1 D and the bulk of the steps from 0.3 D
SPLIT = 0.1


@dataclass
class Group:
    """A step as the client read it: its tokens, its first event's arrival, and why it is suspect."""

    size: int
    t: float
    suspect: str = ""  # LATE_READ, STALLED or TOO_BIG; "" when it reads as one step


def _gaps(groups: Sequence[Group]) -> np.ndarray:
    return np.diff([g.t for g in groups]) if len(groups) > 1 else np.zeros(0)


def decode_time(requests: Sequence[Sequence[Group]]) -> float | None:
    """The median time between the starts of consecutive steps over the run, or None."""
    gaps = [_gaps(gs) for gs in requests]
    flat = np.concatenate(gaps) if gaps else np.zeros(0)
    flat = flat[np.isfinite(flat) & (flat > 0)]
    return float(np.median(flat)) if flat.size else None


def flag_by_timing(groups: Sequence[Group], stalls: Sequence[Sequence[float]] | None, run_decode: float | None,
                   kernel: bool = False, opening: float | None = None) -> None:
    """Mark the groups of one request that a late read may have merged (see the module note); ``kernel``: the
    groups' times are the kernel's receive times, and ``opening`` when the stream's first payload arrived (a
    role chunk with no content): where it came before the first group, that group is timed against it too."""
    gaps = _gaps(groups)
    own = gaps[np.isfinite(gaps) & (gaps > 0)]
    d = float(np.median(own)) if own.size >= MIN_GAPS else run_decode
    if not d or d <= 0:
        return
    ends = sorted(float(end) for end, length in stalls or () if float(length) >= STALL * d)
    near = max(WOKE * d, WOKE_MIN_S)
    if kernel and groups and opening is not None:
        if groups[0].t - opening > LATE * d:
            groups[0].suspect = groups[0].suspect or LATE_ARRIVAL
        elif groups[0].t - opening < SPLIT * d:  # read with the opening: nothing before it to time it against
            groups[0].suspect = groups[0].suspect or WITH_OPENING
    for i in range(1, len(groups)):
        before, at = groups[i - 1].t, groups[i].t
        if kernel:
            if at - before > LATE * d:
                groups[i].suspect = groups[i].suspect or LATE_ARRIVAL
        elif stalls is None and at - before > LATE * d:
            groups[i].suspect = groups[i].suspect or LATE_READ
        # the read that found two steps waiting is the one right after the client woke: a stall that ended
        # mid-gap (the reader busy parsing the group before) merged nothing
        elif any(at - near <= end <= at + WOKE_MIN_S for end in ends):
            groups[i].suspect = groups[i].suspect or STALLED


def join_splits(groups: list[Group], run_decode: float | None) -> int:
    """Join, in place, the groups of one request that arrived less than SPLIT decode times after the group before
    (neither suspect): one step the server sent in two parts. Returns how many were joined."""
    gaps = _gaps(groups)
    own = gaps[np.isfinite(gaps) & (gaps > 0)]
    d = float(np.median(own)) if own.size >= MIN_GAPS else run_decode
    if not d or d <= 0:
        return 0
    joined = 0
    i = 1
    while i < len(groups):
        before, after = groups[i - 1], groups[i]
        if after.t - before.t < SPLIT * d and not before.suspect and not after.suspect:
            before.size += after.size
            del groups[i]
            joined += 1
        else:
            i += 1
    return joined


def flag_by_size(groups: Sequence[Group], k: int) -> None:
    for g in groups:
        if not g.suspect and g.size > k + 1:
            g.suspect = TOO_BIG


def seen_whole(groups: Sequence[Group]) -> bool:
    """Every group is one step: none suspect, or suspect but of one token, which no two steps make (each emits
    at least one). A real llama.cpp server sends its role chunk and the prompt pass's lone token in one write, so
    every request's first group is read with the opening (WITH_OPENING) and, counted as doubtful, no request was
    ever seen whole: the server's K and its exact rejections (model.probe.reported) were never had."""
    return all(not g.suspect or g.size == 1 for g in groups)


def suspect_counts(requests: Sequence[Sequence[Group]]) -> dict[str, int]:
    out = {LATE_READ: 0, STALLED: 0, LATE_ARRIVAL: 0, WITH_OPENING: 0, TOO_BIG: 0}
    for gs in requests:
        for g in gs:
            if g.suspect:
                out[g.suspect] += 1
    return out


def describe(requests: Sequence[Sequence[Group]]) -> str:
    """One phrase: how many steps were left out as merged, and why; "" when none were."""
    total = sum(len(gs) for gs in requests)
    counts = suspect_counts(requests)
    left = sum(counts.values())
    if not left:
        return ""
    why = ", ".join(f"{n} {what}" for what, n in ((f"arrived over {LATE:g} decode times late, the client's own "
                                                    "delays not measured", counts[LATE_READ]),
                                                   ("after the client's own timer stalled", counts[STALLED]),
                                                   (f"arrived over {LATE:g} decode times after the step before, by the "
                                                    "kernel's receive time", counts[LATE_ARRIVAL]),
                                                   ("first of their request, read with the stream's opening",
                                                    counts[WITH_OPENING]),
                                                   ("larger than K + 1", counts[TOO_BIG])) if n)
    return f"{left} of {fmt.count(total, 'step')} left out as possibly merged by a late read ({why})"


def left_out_share(requests: Sequence[Sequence[Group]]) -> tuple[int, int]:
    """Steps left out for any reason, and steps read, not counting each request's first group where it was left
    out only for coming with the stream's opening (one a request, however steady the pace; on llama.cpp the
    prompt pass's token, no verify step)."""
    total = sum(len(gs) for gs in requests)
    left = sum(1 for gs in requests for g in gs if g.suspect)
    opening = sum(1 for gs in requests if gs and gs[0].suspect == WITH_OPENING)
    return left - opening, total - opening


def material_note(requests: Sequence[Sequence[Group]]) -> str:
    """One sentence when over MATERIAL_SHARE of the steps were left out; "" otherwise."""
    left, total = left_out_share(requests)
    if not total or left <= MATERIAL_SHARE * total:
        return ""
    return (f"{left / total:.0%} of the steps read ({left} of {total}, each request's first read with the stream's "
            f"opening not counted) were left out of the timing reading, over the {MATERIAL_SHARE:.0%} a steady run "
            f"leaves out: K and alpha from timing rest on the other {total - left}, and the server's pace was uneven "
            "(a cold start or another load on its machine): probe again to confirm")


def unreliable(requests: Sequence[Sequence[Group]]) -> bool:
    """Too many steps left out for the detection to be trusted: over UNRELIABLE_SHARE, not counting those left
    out by the kernel's receive times (TIMED_FAIRLY: exact against merges, and what else they leave out, a step
    the server sent late or a first step read with the opening, does not depend on its size), or over half of
    them whatever the reason."""
    total = sum(len(gs) for gs in requests)
    counts = suspect_counts(requests)
    left = sum(counts.values())
    fair = sum(counts[reason] for reason in TIMED_FAIRLY)
    return total > 0 and (left - fair > UNRELIABLE_SHARE * total or left > MOST * total)
