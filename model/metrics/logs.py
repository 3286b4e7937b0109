"""llama.cpp and SGLang console lines that report speculative decoding, read one line at a time.

- llama.cpp server (tools/server, server_slot::print_timings), one line per finished request, three
  forms over its history: "draft acceptance rate = 0.71901 (  174 accepted /   242 generated)" (older
  builds; no step count, so steps = generated / K with K from --k); "draft acceptance = 0.77945 (  311
  accepted /   399 generated), mean len =  2.55"; and current "draft acceptance = 0.66237 (  257
  accepted /   388 generated), mean acceptance length =  3.65, acceptance rate per position = (0.804,
  0.701, 0.629, 0.515)", where mean length = 1 + accepted / verify steps and the rate at position i =
  steps that accepted at least i + 1 drafts / verify steps (cumulative), one per draft position. The
  request's task id is on the print_timing lines ("id  0 | task 42 |"). Builds with the "mean len"
  line print the per-position rates on the next line, at trace level only (-lv 4): "     acc per pos =
  (0.804, 0.701, 0.629, 0.515)", one rate per draft position up to --spec-draft-n-max (--draft-max before; the slot sizes it to
  K), over the same verify steps; read into the request it follows, it gives K.
- llama.cpp server with LLAMA_TRACE set in its environment (server_context::update_slots, SLT_INF): one line per
  verify step, "accepted %2zu/%2zu draft tokens" (accepted / drafted, with the request's task id), or "... (restore
  checkpoint)" where the context cannot drop a partial draft and the step is replayed (the replay's own line is the
  same step again, skipped). A step that accepted fewer than it drafted rejected; one that accepted a draft cut
  short (to max_tokens - 1 near the end) wholly did not: read into the request whose timing line follows.
- llama.cpp common/speculative.cpp common_speculative_print_stats, per speculative implementation:
  "statistics draft: #calls(b,g,a) = 1 200 200, #gen drafts = 200, #acc drafts = 170, #gen tokens =
  399, #acc tokens = 311[, #mean acc len = 2.55, #acc rate/pos = (0.850, 0.705)]" — totals of one
  speculative context since it was made (not reset per request). Read only where the log has no
  per-request lines: the last line of each implementation, a total that goes down starting a new run.
  "#acc rate/pos" is not one rate per draft position: common_speculative_accept grows its vector to the longest
  run of accepted drafts seen, so its length (and #gen tokens / #gen drafts) is only a lower bound on K. K itself is
  in the same trace level's "- n_max=4, n_min=0, p_min=0.000000" line (an ngram implementation: "- n_match=..,
  n_max=..") printed as each implementation is added; with one such K in the log it is taken, else --k.
- SGLang scheduler log_decode_stats "Decode batch" lines: model.metrics.sglang_decode.
- SGLang tokenizer manager with --log-requests: "Finish: obj=GenerateReqInput(...), out={..., 'meta_info':
  {..., 'spec_verify_ct': 40, 'spec_accept_token_num': ..., ...}}": one request's meta_info, read by
  model.engines.reports like a JSON response.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field, replace

from model.engines.reports import LLAMACPP_NOTE, SGLANG_NOTE, ReportError, SpecCounts
from model.engines.responses import speculation_from_response
from model.engines.spec_checks import MAX_K, count_problem
from model.metrics.fields import block_k, cumulative_counts, figure, found, label, rate_list
from model.metrics.result import MetricsError

LLAMACPP_STEPS_NOTE = ("llama.cpp: draft acceptance = accepted / generated draft tokens; mean acceptance length = 1 + "
                       "accepted / verify steps (bonus token included); rate per position = steps accepting at least "
                       "i + 1 drafts / verify steps (cumulative); generated counts the tokens drafted, a draft cut to "
                       "the remaining budget (max_tokens - 1) or context its own length")
LLAMACPP_STATS_NOTE = ("llama.cpp statistics: #gen drafts = verify steps that drafted, #gen tokens = draft tokens, "
                       "#acc tokens = accepted draft tokens, #acc drafts = steps accepting at least one; totals since "
                       "the speculative context was made")

_LC_REQUEST = re.compile(r"draft acceptance(?P<old> rate)? =\s*([^\s,;()%]+) \(\s*([^\s,;()%]+) accepted /\s*"
                         r"([^\s,;()%]+) generated\)")
_LC_LENGTH = re.compile(r"mean (?:acceptance length|len) =\s*([^\s,;()%]+)")
_LC_POS = re.compile(r"acceptance rate per position = \(([^)]*)\)")
_LC_POS_TRACE = re.compile(r"acc per pos = \(([^)]*)\)")
_LC_TASK = re.compile(r"\|\s*task (-?\d+) \|")
_LC_STEP = re.compile(r"\|\s*task (-?\d+) \| accepted\s+(\d+)/\s*(\d+) draft tokens( \(restore checkpoint\))?")
_LC_STATS_IMPL = re.compile(r"statistics\s+([^\s:]+):")
_LC_STATS = {name: label(text) for name, text in (
    ("drafts", "#gen drafts ="), ("acc_drafts", "#acc drafts ="), ("tokens", "#gen tokens ="),
    ("accepted", "#acc tokens ="), ("length", "#mean acc len ="))}
_LC_STATS_POS = re.compile(r"#acc rate/pos = \(([^)]*)\)")
_LC_N_MAX = re.compile(r"(?:^|\s)- (?:n_match=\d+, )?n_max=(\d+), n_min=")
_SG_KEYS = ("spec_verify_ct", "spec_num_correct_drafts", "spec_accepted_drafts", "spec_accept_token_num",
            "spec_num_proposed_drafts", "spec_proposed_drafts", "spec_draft_token_num", "completion_tokens",
            "spec_accept_length", "spec_accept_rate", "spec_correct_drafts_histogram", "spec_accept_histogram")
_SG_FIELD = re.compile(r"['\"](" + "|".join(_SG_KEYS) + r")['\"]:\s*(\[[^\]]{0,20000}\]|[^\s,}\]]+)")


@dataclass
class Requests:
    """Per-request counts with the request's name (task id or line): kept for per-request intervals."""

    parts: list[tuple[str, SpecCounts]] = field(default_factory=list)
    lines: int = 0
    first: int = 0
    cut: int = 0
    form: str = ""
    task: str | None = None  # the task id of the latest print_timing line
    steps: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # LLAMA_TRACE: (accepted, drafted) per step
    replaying: set[str] = field(default_factory=set)  # tasks whose next step line replays a restored step
    traced: int = 0  # requests whose rejections the step lines gave
    short_blocks: list[str] = field(default_factory=list)  # per-position blocks short of the counts' K (fields.block_k)


def _checked(counts: SpecCounts, where: str) -> SpecCounts:
    problem = count_problem(counts)
    if problem:
        raise MetricsError(f"{where}: {problem}")
    return counts


def llamacpp_timing_line(line: str, out: Requests) -> None:
    m = _LC_TASK.search(line)
    if m:
        out.task = m.group(1)


def llamacpp_step(line: str, out: Requests) -> None:
    """One LLAMA_TRACE "accepted a/d draft tokens" line, kept for its request until its timing line."""
    m = _LC_STEP.search(line)
    if m is None:
        return
    task, accepted, drafted = m.group(1), int(m.group(2)), int(m.group(3))
    if task in out.replaying:
        out.replaying.discard(task)  # the replay of a restored step: that step was counted at its restore line
        return
    if m.group(4):
        out.replaying.add(task)
    out.steps.setdefault(task, []).append((accepted, drafted))


def _traced(counts: SpecCounts, steps: list[tuple[int, int]] | None, out: Requests) -> SpecCounts:
    """The request's rejections from its step lines, where they are the steps its timing line counts."""
    if not steps or counts.drafts is None or abs(counts.drafts - len(steps)) > 1e-9 \
            or sum(a for a, _ in steps) != counts.accepted_tokens:
        return counts
    out.traced += 1
    return replace(counts, rejections=float(sum(a < d for a, d in steps)))


def llamacpp_request(line: str, number: int, file: str, out: Requests) -> None:
    where = f"{file}:{number}"
    m = _LC_REQUEST.search(line)
    if m is None:
        out.cut += 1
        return
    llamacpp_timing_line(line, out)
    accepted = figure(m.group(3), where, "accepted", whole=True)
    generated = figure(m.group(4), where, "generated", whole=True)
    if accepted > generated:
        raise MetricsError(f"{where}: accepted: {accepted:g} accepted of {generated:g} generated is more than were drafted")
    length = found(_LC_LENGTH, line, where, "mean acceptance length")
    pos = _LC_POS.search(line)
    rates = rate_list(pos.group(1), where, "acceptance rate per position") if pos else ()
    form = ("current: mean acceptance length and per-position rates" if pos else
            "mean len, no per-position rates" if length is not None else "older 'draft acceptance rate' lines")
    out.form = out.form or form
    k = len(rates) or None
    steps = None
    if length is not None and length > 1.0:
        steps = accepted / (length - 1.0)
        if accepted / (length - 1.0) ** 2 * 0.005 < 0.5:
            steps = float(round(steps))  # printed to 2 decimals: the whole count it must be, where that is certain
    elif accepted == 0 and k:
        steps = generated / k
    if rates:
        k, rates = block_k(rates, steps, generated, where, out.short_blocks)
    counts = SpecCounts(engine="llamacpp", k=k, drafts=steps, draft_tokens=generated, accepted_tokens=accepted,
                        per_position_accepted=cumulative_counts(rates, steps) if rates and steps else None,
                        convention_note=LLAMACPP_STEPS_NOTE if steps is not None else LLAMACPP_NOTE,
                        engine_values={"draft acceptance": figure(m.group(2), where, "draft acceptance", at_most=1.0)})
    # the current forms carry "| task N |" themselves; the older line follows its request's other timing lines
    name = f"task {out.task}" if out.task is not None else f"line {number}"
    counts = _traced(counts, out.steps.pop(out.task, None) if out.task is not None else None, out)
    out.parts.append((name, _checked(counts, where)))
    out.task = None


_LC_WHOLE = re.compile(r"(?:acceptance rate per position = \([^)]*\)|mean (?:acceptance length|len) =\s*\d+\.\d\d)\s*$")


def llamacpp_line_whole(line: str) -> bool:
    """Whether a request line ends as a whole current form (its per-position rates closed) or a whole mean-len form
    (its two decimals); the older form's end is also where a cut current line stops, so it never counts as whole."""
    return _LC_WHOLE.search(line) is not None


def llamacpp_per_pos(line: str, number: int, file: str, out: Requests) -> None:
    """The trace-level "acc per pos = (...)" line: the per-position rates of the request whose "draft acceptance"
    line it follows (same task id), which gives that request's K."""
    where = f"{file}:{number}"
    m, task = _LC_POS_TRACE.search(line), _LC_TASK.search(line)
    if m is None or not out.parts:
        return
    rates = rate_list(m.group(1), where, "acc per pos")
    name, counts = out.parts[-1]
    if not rates or counts.k is not None or (task is not None and name != f"task {task.group(1)}"):
        return  # no verify step, a line already read, or not the request just read
    steps = counts.drafts
    if steps is None and counts.accepted_tokens == 0:
        steps = (counts.draft_tokens or 0.0) / len(rates)
    counts = replace(counts, k=len(rates), drafts=steps,
                     per_position_accepted=cumulative_counts(rates, steps) if steps else None,
                     convention_note=LLAMACPP_STEPS_NOTE if steps is not None else counts.convention_note)
    out.parts[-1] = (name, _checked(counts, where))
    out.form = "mean len with the trace-level 'acc per pos' lines (K from their length)"


@dataclass
class StatsRuns:
    """llama.cpp statistics totals per implementation; a total that goes down starts a new run."""

    last: dict[str, tuple[str, SpecCounts]] = field(default_factory=dict)
    banked: list[tuple[str, SpecCounts]] = field(default_factory=list)
    restarts: int = 0
    n_max: set[int] = field(default_factory=set)  # K of each speculative implementation added ("- n_max=N" lines)
    lines: int = 0
    first: int = 0
    cut: int = 0


def llamacpp_n_max(line: str, runs: StatsRuns) -> None:
    m = _LC_N_MAX.search(line)
    if m is not None and 1 <= int(m.group(1)) <= MAX_K:
        runs.n_max.add(int(m.group(1)))


def llamacpp_stats(line: str, number: int, file: str, runs: StatsRuns) -> None:
    where = f"{file}:{number}"
    impl = _LC_STATS_IMPL.search(line)
    values = {name: found(rx, line, where, rx.pattern.split("\\s")[0].replace("\\", ""), whole=name != "length")
              for name, rx in _LC_STATS.items()}
    if impl is None or any(values[n] is None for n in ("drafts", "tokens", "accepted")):
        runs.cut += 1
        return
    pos = _LC_STATS_POS.search(line)
    rates = rate_list(pos.group(1), where, "#acc rate/pos") if pos else ()
    drafts, tokens, accepted = (float(values[n]) for n in ("drafts", "tokens", "accepted"))  # type: ignore[arg-type]
    # K is at least the positions a run of accepted drafts reached, and at least the mean draft (none is longer than K)
    at_least = max(len(rates), math.ceil(tokens / drafts - 1e-9) if drafts else 0) or None
    counts = SpecCounts(engine="llamacpp", k_at_least=at_least, drafts=drafts, draft_tokens=tokens, accepted_tokens=accepted,
                        per_position_accepted=cumulative_counts(rates, drafts) if rates and drafts else None,
                        convention_note=LLAMACPP_STATS_NOTE,
                        engine_values={k: values[k] for k in ("acc_drafts", "length") if values[k] is not None})
    _checked(counts, where)
    name = impl.group(1)
    previous = runs.last.get(name)
    if previous is not None and any((a or 0) < (b or 0) for a, b in (
            (drafts, previous[1].drafts), (tokens, previous[1].draft_tokens), (accepted, previous[1].accepted_tokens))):
        runs.banked.append(previous)
        runs.restarts += 1
    runs.last[name] = (f"{name} ({where})", counts)


def sglang_finish(line: str, number: int, file: str, out: Requests) -> None:
    where = f"{file}:{number}"
    start = line.find("meta_info")
    if start < 0:
        out.cut += 1
        return
    meta: dict[str, object] = {}
    for m in _SG_FIELD.finditer(line, start):
        key, raw = m.group(1), m.group(2)
        if key in meta:
            continue
        if raw.startswith("["):
            try:
                meta[key] = ast.literal_eval(raw)
            except (ValueError, SyntaxError):
                raise MetricsError(f"{where}: meta_info.{key}: {raw[:40]!r} is not a list of counts") from None
        elif raw in ("None", "null"):
            continue
        else:
            meta[key] = figure(raw, where, f"meta_info.{key}")
    if "spec_verify_ct" not in meta:
        out.cut += 1  # a finished request without speculation fields
        return
    try:
        counts = speculation_from_response({"meta_info": meta})
    except ReportError as exc:
        raise MetricsError(f"{where}: {exc}") from None
    if counts is None or not counts.drafts:
        return
    rid = re.search(r"rid=['\"]?([\w-]{1,64})", line)
    out.parts.append((f"rid {rid.group(1)}" if rid else f"line {number}", _checked(counts, where)))
