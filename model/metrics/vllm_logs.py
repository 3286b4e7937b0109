"""vLLM's console output in every form still in use, one reader per form, each fed the lines that concern it.

- V1 server log, vllm/v1/spec_decode/metrics.py SpecDecodingLogging.log, one line per logging interval
  holding that interval's own counts (reset after each line), so lines add up, across data-parallel
  engines too. Current form: "SpecDecoding metrics: Mean acceptance length: 2.71, Accepted throughput:
  ..., Drafted throughput: ..., Accepted: 1713 tokens, Drafted: 3000 tokens, Per-position acceptance
  rate: 0.850, 0.571, 0.292, Avg Draft acceptance rate: 57.1%" (mean length = 1 + accepted / drafts;
  per-position = accepted at i / drafts, cumulative, K of them). First V1 form: "SpecDecoding metrics:
  Draft acceptance rate: 57.1%, Accepted: N tokens, Drafted: N tokens": no step count, so steps =
  drafted / K with K from --k. Fields are read by their labels, so the forms in between read too.
- V0 server log, vllm/spec_decode/metrics.py AsyncMetricsCollector + vllm/engine/metrics.py:
  "Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative
  tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens:
  10616." Totals since the engine started (aggregates, never reset), so the last line per process
  counts. V0's accepted tokens count every accepted position, even past a rejected one; the tokens a
  step emits are its accepted prefix plus one, so steps = draft tokens / K, accepted prefix = emitted
  - steps, and System efficiency = emitted / (steps x (K + 1)).
- examples/offline_inference/spec_decode.py summary: "num_drafts: N", "num_draft_tokens: N",
  "num_accepted_tokens: N", "mean acceptance length: 2.71", then "acceptance at token i: 0.85" per
  position (accepted at i / num_drafts, 2 decimals). Exact totals for the run.
- `vllm bench serve` console (vllm/benchmarks/serve.py): a "Speculative Decoding" section with
  "Acceptance rate (%):", "Acceptance length:", "Drafts:", "Draft tokens:", "Accepted tokens:" and
  "Per-position acceptance (%):" with "  Position i:" lines (percent, 2 decimals); from the server's
  /metrics counters before and after the run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from model.engines.reports import VLLM_NOTE, SpecCounts
from model.engines.spec_checks import count_problem
from model.metrics.fields import block_k, cumulative_counts, figure, found, label, rate_list
from model.metrics.result import MetricsError

V0_NOTE = ("vLLM V0: 'Draft acceptance rate' = accepted positions / draft tokens, counting positions accepted after a "
           "rejection too; System efficiency = emitted / (steps x (K + 1)); steps = draft tokens / K; accepted prefix = "
           "emitted - steps (each step emits its accepted prefix plus one token)")

_V1_LENGTH = label("Mean acceptance length:")
_V1_ACCEPTED = re.compile(r"Accepted:\s*([^\s,;()%]+) tokens")
_V1_DRAFTED = re.compile(r"Drafted:\s*([^\s,;()%]+) tokens")
_V1_RATE = label("Draft acceptance rate:")
_V1_POS = re.compile(r"Per-position acceptance rate:\s*((?:nan|[0-9][^\s,]*)(?:,\s*(?:nan|[0-9][^\s,]*))*)")
_V0 = {name: label(text) for name, text in (
    ("rate", "Draft acceptance rate:"), ("efficiency", "System efficiency:"), ("k", "Number of speculative tokens:"),
    ("accepted", "Number of accepted tokens:"), ("drafted", "Number of draft tokens:"), ("emitted", "Number of emitted tokens:"))}
_PROCESS = re.compile(r"\(([A-Za-z_][\w ]*pid=\d+)\)")
OFFLINE = re.compile(r"^(total_num_output_tokens|num_drafts|num_draft_tokens|num_accepted_tokens|mean acceptance length"
                     r"|acceptance at token (\d+)):\s*(\S+)\s*$")
BENCH = re.compile(r"^(Acceptance rate \(%\)|Acceptance length|Drafts|Draft tokens|Accepted tokens|\s+Position (\d+)):"
                   r"\s*(\S+)\s*$")


@dataclass
class Found:
    """Lines of one form: how many, the first line number, lines skipped as cut (labels missing)."""

    lines: int = 0
    first: int = 0
    cut: int = 0
    parts: list[tuple[str, SpecCounts]] = field(default_factory=list)

    def saw(self, number: int) -> None:
        self.lines += 1
        self.first = self.first or number


def _checked(counts: SpecCounts, where: str) -> SpecCounts:
    problem = count_problem(counts)
    if problem:
        raise MetricsError(f"{where}: {problem}")
    return counts


def v1_line(line: str, where: str, out: Found, notes: list[str], given_k: int | None = None) -> None:
    accepted = found(_V1_ACCEPTED, line, where, "Accepted", whole=True)
    drafted = found(_V1_DRAFTED, line, where, "Drafted", whole=True)
    if accepted is None or drafted is None:
        out.cut += 1  # a line cut midway (or another line naming the same words): skipped, counted
        return
    length = found(_V1_LENGTH, line, where, "Mean acceptance length")
    rate = found(_V1_RATE, line, where, "Draft acceptance rate")
    m = _V1_POS.search(line)
    rates = rate_list(m.group(1), where, "Per-position acceptance rate") if m else ()
    if accepted > drafted:
        raise MetricsError(f"{where}: Accepted: {accepted:g} tokens is more than Drafted: {drafted:g} tokens")
    if given_k is not None and rates and given_k != len(rates):
        raise MetricsError(f"{where}: --k {given_k} was given but the line has {len(rates)} per-position rates "
                           f"(K = {len(rates)})")
    if drafted == 0:
        return  # an interval without drafts adds nothing (its rates print as nan)
    k = len(rates) or None
    drafts = None
    if length is not None and length > 1.0:
        drafts = accepted / (length - 1.0)
        if k and abs(drafts - drafted / k) < max(0.5, 0.004 * drafts):
            drafts = drafted / k  # the printed length is rounded; drafted / K is exact where they agree
        elif k and not notes:
            notes.append(f"{where}: drafted / K disagrees with the printed mean acceptance length (drafts shorter "
                         "than K, as n-gram drafts are); steps taken from the mean acceptance length")
    elif k:
        drafts = drafted / k
    own = {key: value for key, value in (("Mean acceptance length", length), ("Draft acceptance rate (%)", rate))
           if value is not None}
    counts = SpecCounts(engine="vllm", k=k, drafts=drafts, draft_tokens=drafted, accepted_tokens=accepted,
                        per_position_accepted=cumulative_counts(rates, drafts) if rates and drafts else None,
                        convention_note=VLLM_NOTE, engine_values=own)
    out.parts.append((where, _checked(counts, where)))


@dataclass
class V0Runs:
    """Cumulative totals per process: a run's last line counts; a total that goes down starts a new run."""

    last: dict[str, tuple[str, tuple[float, float, float, float]]] = field(default_factory=dict)
    banked: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)
    restarts: int = 0


def v0_line(line: str, where: str, out: Found, runs: V0Runs) -> None:
    counted = ("k", "accepted", "drafted", "emitted")
    values = {name: found(rx, line, where, rx.pattern.split(":")[0].replace("\\", ""), whole=name in counted)
              for name, rx in _V0.items() if name in counted}
    if any(values[name] is None for name in counted):
        out.cut += 1
        return
    k, accepted, drafted, emitted = (float(values[n]) for n in counted)  # type: ignore[arg-type]
    m = _PROCESS.search(line)
    process = m.group(1) if m else ""
    totals = (k, accepted, drafted, emitted)
    previous = runs.last.get(process)
    if previous is not None and any(now < before for now, before in zip(totals[1:], previous[1][1:])):
        runs.banked.append(previous)  # a restart: the run before it keeps its last totals
        runs.restarts += 1
    runs.last[process] = (where, totals)


def v0_counts(runs: V0Runs, file: str) -> list[tuple[str, SpecCounts]]:
    out = []
    for where, (k, accepted, drafted, emitted) in [*runs.banked, *runs.last.values()]:
        if drafted == 0:
            continue
        if k < 1 or k != int(k):
            raise MetricsError(f"{where}: Number of speculative tokens: {k:g} is not a K of 1 or more")
        steps = drafted / k
        prefix = emitted - steps
        if prefix < -1e-9 or prefix > drafted + 1e-9:
            raise MetricsError(f"{where}: Number of emitted tokens: {emitted:g} is impossible for {drafted:g} draft tokens "
                               f"at K = {k:g} (a step emits 1 to K + 1 tokens)")
        counts = SpecCounts(engine="vllm", k=int(k), drafts=steps, draft_tokens=drafted, accepted_tokens=max(prefix, 0.0),
                            convention_note=V0_NOTE,
                            engine_values={"Draft acceptance rate (any position)": accepted / drafted,
                                           "System efficiency": emitted / (steps * (k + 1)),
                                           "Number of accepted tokens": accepted, "Number of emitted tokens": emitted})
        out.append((where, _checked(counts, where)))
    return out


@dataclass
class Block:
    """One printed summary (offline example or bench console): labelled totals and per-position rates."""

    first: int
    values: dict[str, float] = field(default_factory=dict)
    positions: dict[int, float] = field(default_factory=dict)


def block_line(line: str, number: int, file: str, pattern: re.Pattern[str], starts: tuple[str, ...],
               blocks: list[Block]) -> bool:
    m = pattern.match(line)
    if m is None:
        return False
    name, position, raw = m.group(1).strip(), m.group(2), m.group(3)
    where = f"{file}:{number}"
    if position is not None:
        if not blocks:
            return False
        blocks[-1].positions[int(position)] = figure(raw, where, name)
        return True
    if not blocks or name in blocks[-1].values or (name in starts and blocks[-1].values):
        blocks.append(Block(first=number))
    blocks[-1].values[name] = figure(raw, where, name)
    return True


def offline_counts(block: Block, file: str) -> tuple[SpecCounts, list[str]] | None:
    v, where = block.values, f"{file}:{block.first}"
    if not {"num_drafts", "num_draft_tokens", "num_accepted_tokens"} <= set(v):
        return None
    drafts = v["num_drafts"]
    notes: list[str] = []
    printed = _positions(block, where, "acceptance at token", 1.0)
    k, rates = block_k(printed, drafts, v["num_draft_tokens"], where, notes)
    counts = SpecCounts(engine="vllm", k=k, drafts=drafts, draft_tokens=v["num_draft_tokens"],
                        accepted_tokens=v["num_accepted_tokens"],
                        per_position_accepted=cumulative_counts(rates, drafts) if rates and drafts else None,
                        convention_note=VLLM_NOTE,
                        engine_values={k: v[k] for k in ("mean acceptance length",) if k in v})
    notes.insert(0, f"vLLM offline speculative-decoding summary (examples/offline_inference/spec_decode.py) from line "
                    f"{block.first}" + ("; per-position rates printed to 2 decimals" if rates else ""))
    if not printed and k:
        notes.append(f"K = {k} inferred: num_draft_tokens / num_drafts = {v['num_draft_tokens']:g} / {drafts:g} is whole "
                     "(no 'acceptance at token' lines; a draft cut short would leave a fraction)")
    return _checked(counts, where), notes


def bench_counts(block: Block, file: str) -> tuple[SpecCounts, list[str]] | None:
    v, where = block.values, f"{file}:{block.first}"
    if not {"Drafts", "Draft tokens", "Accepted tokens"} <= set(v):
        return None
    drafts = v["Drafts"]
    notes: list[str] = []
    k, rates = block_k(tuple(r / 100.0 for r in _positions(block, where, "Position", 100.0)), drafts, v["Draft tokens"],
                       where, notes)
    counts = SpecCounts(engine="vllm", k=k, drafts=drafts, draft_tokens=v["Draft tokens"],
                        accepted_tokens=v["Accepted tokens"],
                        per_position_accepted=cumulative_counts(rates, drafts) if rates and drafts else None,
                        convention_note=VLLM_NOTE + " (vllm bench serve prints the rates in percent)",
                        engine_values={k: v[k] for k in ("Acceptance rate (%)", "Acceptance length") if k in v})
    notes.insert(0, f"vllm bench serve console output, Speculative Decoding section at line {block.first}"
                 + ("; per-position rates printed in percent to 2 decimals" if rates else ""))
    return _checked(counts, where), notes


def _positions(block: Block, where: str, name: str, top: float) -> tuple[float, ...]:
    keys = sorted(block.positions)
    if keys != list(range(len(keys))):
        raise MetricsError(f"{where}: the '{name} i' lines are for positions {keys}, not 0..K-1")
    for i in keys:
        if block.positions[i] > top + 1e-9:
            raise MetricsError(f"{where}: {name} {i}: {block.positions[i]:g} is above {top:g}, which a rate cannot be")
    return tuple(block.positions[i] for i in keys)
