"""The probe at the analyst's load: several parallel streams per level, one level at a time.

A level of n streams sends the fast tier's requests n at a time (a pool of n workers, so n streams
stay open as a batch job keeps its workers busy), then the baseline's the same way: fast and
baseline at the same level, never at the same moment, so neither tier's load slows the other. A
level sends at least n requests per tier (the plan's prompts, cycled), a multiple of n, so every
stream has a partner for most of its life.

Every stream of the run is read on one asyncio event loop (model.probe.load_loop, loop_client: a
thread per stream made the arrival times jitter with the number of streams), a connection per open
stream; every request records its level in `concurrency` and the 429 answers it met in `throttled`.
The generator yields progress from the calling thread and checks the cancel flag every 0.1 s; the
loop polls it too and cancels every stream, so a cancel closes them all within a second. Each request
holds to its own deadline and to the run's (Limits.run_s). A request that fails stops the run, as the
one-stream probe does, and the requests that completed are kept.
"""
from __future__ import annotations

import concurrent.futures
import math
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable, Generator, Mapping

import httpx

from model.common import formatting as fmt
from model.probe.client import Limits, ProbeRequestError
from model.probe.endpoint import ApiKey
from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.filler import filler
from model.probe.load_loop import PADDING_ROUNDS, StreamLoop, run_phase
from model.probe.loop_client import LoopClient
from model.probe.plan import PRICE_BASIS, PlannedRequest, ProbeSettings, input_tokens, plan_requests
from model.common.cancel import CancelCheck
from model.probe.run import ProbeProgress, ProbeRun, run_header, run_probe
from model.probe.run_file import LOAD_KEEPING_COUNTS, RunWriter
from model.probe.speed import request_tokens




def parse_levels(text: str) -> tuple[int, ...]:
    """"1,4,16" -> (1, 4, 16): whole numbers, each once, in the order given (the run goes in that order)."""
    levels: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise ValueError(f"--concurrency: {part[:20]!r} is not a whole number of parallel streams (e.g. 1,4,16)")
        n = int(part)
        if n not in levels:
            levels.append(n)
    if not levels:
        raise ValueError("--concurrency: give at least one level, e.g. 1,4,16")
    return tuple(levels)


@dataclass(frozen=True)
class Level:
    concurrency: int
    fast: list[PlannedRequest]
    baseline: list[PlannedRequest]

    @property
    def requests(self) -> int:
        return len(self.fast) + len(self.baseline)


def _cycled(items: list[PlannedRequest], n: int) -> list[PlannedRequest]:
    """The role's plan repeated up to a multiple of n (at least n), later rounds as further repeats."""
    if not items:
        return []
    count = n * math.ceil(len(items) / n)
    rounds = max(r.repeat for r in items) + 1
    return [PlannedRequest(p.role, p.prompt_index, p.prompt, p.context, p.repeat + rounds * (i // len(items)),
                           p.temperature)
            for i, p in enumerate(items[i % len(items)] for i in range(count))]


def plan_levels(settings: ProbeSettings) -> list[Level]:
    plan = plan_requests(settings)
    fast = [p for p in plan if p.role == FAST]
    base = [p for p in plan if p.role == BASELINE]
    return [Level(n, _cycled(fast, n), _cycled(base, n)) for n in settings.concurrency]


@dataclass
class LevelEstimate:
    concurrency: int
    requests: int  # measured, and at most `extra` load-keeping ones besides (counted in tokens and cost)
    tokens_in: int
    tokens_out: int
    cost: float | None
    extra: int = 0


@dataclass
class LoadEstimate:
    levels: list[LevelEstimate] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(x.requests for x in self.levels)

    @property
    def extra(self) -> int:
        return sum(x.extra for x in self.levels)

    @property
    def cost(self) -> float | None:
        costs = [x.cost for x in self.levels]
        return None if any(c is None for c in costs) else float(sum(c for c in costs if c is not None))

    def describe(self, currency: str = "") -> str:
        def money(x: float | None) -> str:
            return f"at most {fmt.cost(x, currency)}" if x is not None else "cost unknown (no prices given)"
        parts = [f"{fmt.count(x.concurrency, 'stream')}: {fmt.count(x.requests, 'request')}"
                 + (f" + up to {x.extra} load-keeping" if x.extra else "")
                 + f", ~{x.tokens_in:,} in / ≤{x.tokens_out:,} out, {money(x.cost)}" for x in self.levels]
        extra = f" (+ up to {self.extra} load-keeping requests, not analysed)" if self.extra else ""
        basis = f" ({PRICE_BASIS})" if self.cost is not None else ""
        return (f"{fmt.count(self.requests, 'request')}{extra} over {fmt.count(len(self.levels), 'level')} ({'; '.join(parts)}); "
                f"in all {money(self.cost)}{basis}")


def estimate_levels(settings: ProbeSettings) -> LoadEstimate:
    out = LoadEstimate()
    for level in plan_levels(settings):
        t_in = t_out = extra = 0
        cost: float | None = 0.0
        for role, items in ((FAST, level.fast), (BASELINE, level.baseline)):
            # the load-keeping requests a phase may send, at most: the plan again, PADDING_ROUNDS x (n - 1)
            padding = ([items[i % len(items)] for i in range(PADDING_ROUNDS * (level.concurrency - 1))]
                       if items else [])
            extra += len(padding)
            ins = [input_tokens(p.prompt, p.context) for p in items + padding]
            r_out = len(items + padding) * settings.max_tokens
            t_in, t_out = t_in + sum(ins), t_out + r_out
            prices = settings.fast_prices if role == FAST else settings.baseline_prices
            if items:
                cost = None if prices is None or cost is None else cost + sum(
                    prices.cost(n, settings.max_tokens) for n in ins)
        out.levels.append(LevelEstimate(level.concurrency, level.requests, t_in, t_out, cost, extra))
    return out


def run_load(settings: ProbeSettings, keys: Mapping[str, ApiKey | None], run_path: str | Path | None = None,
             cancel: CancelCheck = None, limits: Limits = Limits(),
             transport: httpx.AsyncBaseTransport | None = None, into: ProbeRun | None = None,
             ) -> Generator[ProbeProgress, None, ProbeRun]:
    """run_probe's contract (progress, cancel, ``into``, the run file) for every level in settings.concurrency."""
    settings.check()
    levels = plan_levels(settings)
    total = sum(x.requests for x in levels)
    run = into if into is not None else ProbeRun()
    run.header = {**run_header(settings), "concurrency": list(settings.concurrency)}
    run.run_path = str(run_path) if run_path else None
    load = _LoadRun(settings, keys, run, run_path, cancel, limits, transport, total)
    try:
        yield ProbeProgress(0, total, 0.0, None, 0.0, "starting")
        for level in levels:
            for role, items in ((FAST, level.fast), (BASELINE, level.baseline)):
                if not items or run.cancelled or run.error:
                    continue
                yield from load.phase(role, items, level.concurrency)
            load.level_ended(level.concurrency)
    finally:
        load.close()
    run.header["load_keeping"] = {str(n): dict(c) for n, c in load.extra.items()}
    return run


class _LoadRun:
    """One load run's shared parts: the stop flag its phases poll, the run file, the fillers, the event loop and a
    client per tier, the deadline, the progress counts, and the load-keeping requests' counts per level."""

    def __init__(self, settings: ProbeSettings, keys: Mapping[str, ApiKey | None], run: ProbeRun,
                 run_path: str | Path | None, cancel: CancelCheck, limits: Limits,
                 transport: httpx.AsyncBaseTransport | None, total: int) -> None:
        self.settings, self.run, self.limits, self.total = settings, run, limits, total
        self.user_cancel = cancel.is_set if isinstance(cancel, threading.Event) else cancel
        self.stop = threading.Event()  # set on a cancel or a failure: the phase cancels every stream
        self.writer = RunWriter(run_path, run.header) if run_path else None
        self.fillers = {ctx: filler(ctx) for ctx in settings.contexts}
        endpoints = {FAST: settings.fast, BASELINE: settings.baseline}
        self.started = time.perf_counter()
        self.run_deadline = time.monotonic() + limits.run_s  # the whole run's, as run_probe holds it
        self.tokens = self.finished = 0
        # per level, the load-keeping requests sent, those that ran to their end, and the 429s they met (which
        # mark the level throttled as a measured request's do): in the run file after each level, and the header
        self.extra: dict[int, dict[str, int]] = {}
        self.written: set[int] = set()
        self.streams = StreamLoop()
        pool = max(settings.concurrency)
        self.clients = {role: LoopClient(endpoints[role], keys.get(role), limits, pool, transport)  # type: ignore[arg-type]
                        for role in (FAST, BASELINE) if endpoints[role] is not None}
        self.running: "concurrent.futures.Future[None] | None" = None  # the phase on the loop

    def cancelled(self) -> bool:
        return bool(self.user_cancel and self.user_cancel())

    def check(self) -> bool:
        return self.stop.is_set() or self.cancelled()

    def send(self, client: LoopClient, level: int) -> Callable[[PlannedRequest, bool], Awaitable[RequestRecord | None]]:
        async def go(item: PlannedRequest, padding: bool) -> RequestRecord | None:
            record = RequestRecord(item.label + f", {fmt.count(level, 'stream')}", item.role, item.prompt.task_class,
                                   item.prompt_index, item.context, item.repeat, self.settings.max_tokens,
                                   concurrency=level, prompt_key=item.prompt.key, temperature=item.temperature)
            counts = self.extra.setdefault(level, dict.fromkeys(LOAD_KEEPING_COUNTS, 0)) if padding else {}
            try:
                await client.stream(record, item.prompt.with_filler(self.fillers[item.context]), self.run_deadline)
                if padding:
                    counts["completed"] += 1
            except ProbeRequestError as exc:
                if padding:  # not analysed; a measured request that fails the same way will say so
                    return None
                record.error = str(exc)
            finally:
                if padding:
                    counts["sent"] += 1
                    counts["throttled"] += record.throttled
            return record
        return go

    def phase(self, role: str, items: list[PlannedRequest], level: int) -> Generator[ProbeProgress, None, None]:
        """One tier at one level: its requests ``level`` at a time on the loop, each kept (and written) as it
        completes, progress between them; stopped by a cancel, a failure, or a phase that ended early."""
        run = self.run
        done: "queue.Queue[tuple[RequestRecord | None, BaseException | None]]" = queue.Queue()
        self.running = phase = self.streams.submit(run_phase(items, level, self.send(self.clients[role], level),
                                                             self.check, done))
        left = len(items)
        while left:
            if self.cancelled():
                run.cancelled = True
                break
            try:
                record, exc = done.get(timeout=0.1)
            except queue.Empty:
                if phase.done() and done.empty():  # ended without handing over every request
                    if self.cancelled():  # the loop saw the cancel first
                        run.cancelled = True
                    else:
                        run.error = f"{role} at {fmt.count(level, 'stream')}: stopped ({phase.exception()})"
                    break
                continue
            left -= 1
            if exc is not None:
                run.error = f"{role} at {fmt.count(level, 'stream')}: {exc.__class__.__name__}: {exc}"
                break
            assert record is not None
            if self.writer:
                self.writer.add(record)
            if record.error:
                run.error = record.error
                break
            yield self._kept(record, f"{role}, {fmt.count(level, 'stream')}")
        self.finish(1.0 if (run.cancelled or run.error) else self.limits.total_s)
        while not done.empty():  # finished while the run was stopping: completed, so kept
            record, exc = done.get_nowait()
            if record is not None and exc is None and record.ok and record.t_done is not None:
                run.records.append(record)
                if self.writer:
                    self.writer.add(record)

    def _kept(self, record: RequestRecord, what: str) -> ProbeProgress:
        self.run.records.append(record)
        self.tokens += request_tokens(record)
        self.finished += 1
        elapsed = time.perf_counter() - self.started
        return ProbeProgress(self.finished, self.total, self.tokens / elapsed if elapsed > 0 else 0.0,
                             elapsed / self.finished * (self.total - self.finished), elapsed, what)

    def finish(self, grace_s: float) -> None:
        """The running phase ended: waited for ``grace_s``, then cancelled (its connections closed)."""
        phase, self.running = self.running, None
        if phase is None:
            return
        if self.run.cancelled or self.run.error:
            self.stop.set()
        try:
            phase.result(grace_s)
        except concurrent.futures.TimeoutError:
            self.stop.set()  # a load-keeping stream that would not end: cancelled, its connection closed
            try:
                phase.result(1.0)
            except concurrent.futures.TimeoutError:
                pass

    def level_ended(self, level: int) -> None:
        if self.writer and level in self.extra:
            self.writer.add_load_keeping(level, self.extra[level])
            self.written.add(level)

    def close(self) -> None:
        """Every stream stopped, the clients and the loop closed, the run file's load-keeping lines completed."""
        self.stop.set()
        self.finish(1.0)
        for client in self.clients.values():
            try:
                self.streams.submit(client.aclose()).result(1.0)
            except (concurrent.futures.TimeoutError, RuntimeError):
                pass
        self.streams.close()
        if self.writer:
            for n in set(self.extra) - self.written:  # a level the run stopped in (a cancel, an error, a closed generator)
                self.writer.add_load_keeping(n, self.extra[n])
            self.writer.close()


def run_any(settings: ProbeSettings, keys: Mapping[str, ApiKey | None], run_path: str | Path | None = None,
            cancel: CancelCheck = None, limits: Limits = Limits(),
            transport: httpx.AsyncBaseTransport | None = None, into: ProbeRun | None = None,
            ) -> Generator[ProbeProgress, None, ProbeRun]:
    """The one-stream probe for a single stream, the load runner for anything else (both read on an event
    loop, so a transport is an httpx.AsyncBaseTransport)."""
    if tuple(settings.concurrency) == (1,):
        return run_probe(settings, keys, run_path, cancel, limits, transport, into)
    return run_load(settings, keys, run_path, cancel, limits, transport, into)
