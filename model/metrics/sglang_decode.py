"""SGLang's scheduler `Decode batch` lines, with the accept-rate convention told apart from the log's own lines.

log_decode_stats prints, per logging interval, "accept len: %.2f, accept rate: %.2f". accept len is the same in
every version: tokens the verify steps emitted (the bonus token included) over the verify steps. The rate is not:

- SGLang 0.5.x: accepted tokens, bonus included, over (verify steps x speculative_num_draft_tokens); for a chain
  speculative_num_draft_tokens = K + 1, so rate = accept len / (K + 1);
- later versions: accepted drafts (bonus excluded) over (verify steps x (speculative_num_draft_tokens - 1)), so
  rate = (accept len - 1) / K, the draft acceptance rate.

Across a log's lines accept len / rate is one whole number (K + 1) in the first convention and (accept len - 1) /
rate one whole number (K) in the second. Each line is printed to two decimals, so a K fits a line when the printed
figures are within their rounding of it. Where only one convention fits every line, it is the log's; where both
do (one line, or lines of one length) both readings are given and neither is chosen
(docs/reference/engine-formats.md#sglang-decode-batch-lines). The lines carry no counts: they are averaged with
equal weight.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from model.engines.reports import SpecCounts
from model.engines.spec_checks import MAX_K
from model.metrics.fields import found, label
from model.metrics.result import MetricsError

_LENGTH = label("accept len:")
_RATE = label("accept rate:")
_HALF = 0.005  # half the last printed digit of "%.2f"

OLD = "0.5.x"  # rate = accept len / (K + 1)
NEW = "current"  # rate = (accept len - 1) / K
CONVENTION_WORDS = {
    OLD: "SGLang 0.5.x: accept rate = accepted tokens including the bonus / (verify steps x (K + 1)) = accept len / (K + 1)",
    NEW: "SGLang after 0.5.x: accept rate = accepted drafts / (verify steps x K) = (accept len - 1) / K",
}


@dataclass
class DecodeLines:
    """The Decode batch lines of one log: each line's accept len, and its accept rate where printed."""

    lengths: list[float] = field(default_factory=list)
    pairs: list[tuple[float, float]] = field(default_factory=list)  # (accept len, accept rate)
    lines: int = 0
    first: int = 0
    cut: int = 0


@dataclass(frozen=True)
class Reading:
    """One way to read the rates: the convention, the K values every line allows under it."""

    convention: str
    ks: tuple[int, ...]

    def words(self, length: float) -> str:
        ks = " or ".join(str(k) for k in self.ks)
        rates = ", ".join(f"K = {k}: draft acceptance rate {(length - 1) / k:.3f}" for k in self.ks)
        return f"{CONVENTION_WORDS[self.convention]}: K = {ks} ({rates})"


def decode_line(line: str, number: int, file: str, out: DecodeLines) -> None:
    where = f"{file}:{number}"
    length = found(_LENGTH, line, where, "accept len")
    if length is None:
        out.cut += 1  # a Decode batch line without speculation (or cut before it)
        return
    if length <= 0:
        return  # an interval with no verify step
    if length < 1.0:
        raise MetricsError(f"{where}: accept len: {length:g} is below 1; a verify step emits at least one token")
    out.lengths.append(length)
    rate = found(_RATE, line, where, "accept rate", at_most=1.0)
    if rate is not None:
        out.pairs.append((length, rate))


def fits(convention: str, k: int, length: float, rate: float) -> bool:
    """Whether a line printed as (length, rate) can come from K in the convention, within the printing's rounding."""
    if convention == OLD:
        return abs(length - (k + 1) * rate) <= _HALF * (k + 2) + 1e-9
    return abs(length - 1.0 - k * rate) <= _HALF * (k + 1) + 1e-9


def readings(pairs: list[tuple[float, float]]) -> list[Reading]:
    """The conventions every line fits, each with the K values it allows (1..64); [] where none fits."""
    out = []
    for convention in (OLD, NEW):
        ks = tuple(k for k in range(1, MAX_K + 1) if all(fits(convention, k, ln, r) for ln, r in pairs))
        if ks and len(ks) < MAX_K:  # lines that any K fits (rate 0 at length 1) tell nothing
            out.append(Reading(convention, ks))
    return out


def decode_counts(out: DecodeLines, k: int | None) -> tuple[SpecCounts, list[str], list[Reading]]:
    """The mean of the lines as counts of one step (K from the lines where they decide it, else ``k``), the notes,
    and the readings the rates allow."""
    notes = [f"{len(out.lengths)} SGLang Decode batch lines averaged with equal weight (the lines carry no counts)"]
    length = sum(out.lengths) / len(out.lengths)
    found_readings = readings(out.pairs) if out.pairs else []
    chosen: Reading | None = None
    if len(found_readings) == 1:
        chosen = found_readings[0]
        notes.append(f"the accept rate is the {chosen.convention} convention, told from the lines: "
                     + CONVENTION_WORDS[chosen.convention])
    elif len(found_readings) == 2:
        notes.append("the lines cannot tell which accept-rate convention the log uses; both readings: "
                     + "; ".join(r.words(length) for r in found_readings))
    elif out.pairs:
        notes.append("the accept rates fit neither SGLang convention at any K from 1 to 64 (a tree draft's "
                     "speculative_num_draft_tokens?); only accept len is read")
    own: dict[str, object] = {"accept len (mean of lines)": length}
    if out.pairs:
        own["accept rate (mean of lines)"] = sum(r for _, r in out.pairs) / len(out.pairs)
    if k is not None:
        agree = [r for r in found_readings if k in r.ks]
        if found_readings and not agree:
            notes.append(f"warning: --k {k} fits neither reading of the accept rate "
                         + "; ".join(r.words(length) for r in found_readings))
        elif len(agree) == 1 and len(found_readings) == 2:
            notes.append(f"--k {k} decides it: the {agree[0].convention} convention")
            own["accept rate convention"] = agree[0].convention
    elif chosen is not None and len(chosen.ks) == 1:
        k = chosen.ks[0]
        notes.append(f"K = {k} read from the lines ({'accept len / accept rate - 1' if chosen.convention == OLD else '(accept len - 1) / accept rate'})")
    elif chosen is not None:
        notes.append(f"K is {' or '.join(map(str, chosen.ks))} by the lines (rates printed to two decimals); pass --k")
    if chosen is not None:
        own["accept rate convention"] = chosen.convention
    convention = own.get("accept rate convention")
    note = (f"SGLang Decode batch lines: accept len = tokens emitted (bonus included) / verify steps; "
            + (CONVENTION_WORDS[str(convention)] if convention else "the accept rate's convention is not known: see the notes"))
    counts = SpecCounts(engine="sglang", k=k, drafts=1.0, accepted_tokens=length - 1.0,
                        draft_tokens=float(k) if k else None, convention_note=note, engine_values=own)
    return counts, notes, found_readings
