"""The probe at the analyst's load: several parallel streams per level, one level at a time.

A level of n streams sends the fast tier's requests n at a time (a pool of n workers, so n streams
stay open as a batch job keeps its workers busy), then the baseline's the same way: fast and
baseline at the same level, never at the same moment, so neither tier's load slows the other. A
level sends at least n requests per tier (the plan's prompts, cycled), a multiple of n, so every
stream has a partner for most of its life.

Each worker has its own ChatClient and connection; every request records its level in
`concurrency` and the 429 answers it met in `throttled` (counted by a transport wrapper, so the
client is untouched). The generator yields progress from the calling thread and checks the cancel
flag every 0.1 s; the workers check it between events, so a cancel closes every stream within a
second of a live stream. A request that fails stops the run, as the one-at-a-time probe does, and
the requests that completed are kept.
"""
from __future__ import annotations

import math
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator, Mapping

import httpx

from model import formatting as fmt
from model.cancel import Cancelled
from model.probe.client import ChatClient, Limits, ProbeRequestError
from model.probe.endpoint import ApiKey
from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.filler import filler
from model.probe.plan import CHARS_PER_TOKEN, PlannedRequest, ProbeSettings, plan_requests
from model.probe.run import CancelCheck, ProbeProgress, ProbeRun, run_header, run_probe
from model.probe.run_file import RunWriter
from model.probe.speed import request_tokens


# load-keeping requests per stream slot: a short answer ends before the level's longest (a fast tier's
# steps per request differ by up to K + 1 times), so a slot may need a few to stay open to the end
PADDING_ROUNDS = 4


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
    return [PlannedRequest(p.role, p.prompt_index, p.prompt, p.context, p.repeat + rounds * (i // len(items)))
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
        parts = [f"{x.concurrency} stream{'s' if x.concurrency > 1 else ''}: {x.requests} requests"
                 + (f" + up to {x.extra} load-keeping" if x.extra else "")
                 + f", ~{x.tokens_in:,} in / ≤{x.tokens_out:,} out, {money(x.cost)}" for x in self.levels]
        extra = f" (+ up to {self.extra} load-keeping requests, not analysed)" if self.extra else ""
        return (f"{self.requests} requests{extra} over {len(self.levels)} level(s) ({'; '.join(parts)}); "
                f"in all {money(self.cost)}")


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
            r_in = sum(int(math.ceil(p.prompt.chars / CHARS_PER_TOKEN)) + p.context for p in items + padding)
            r_out = len(items + padding) * settings.max_tokens
            t_in, t_out = t_in + r_in, t_out + r_out
            prices = settings.fast_prices if role == FAST else settings.baseline_prices
            if items:
                cost = None if prices is None or cost is None else cost + (
                    r_in * prices.price_in + r_out * prices.price_out) / 1e6
        out.levels.append(LevelEstimate(level.concurrency, level.requests, t_in, t_out, cost, extra))
    return out


class _Counting(httpx.BaseTransport):
    """Passes requests through and counts the 429 answers: how the probe knows a level was throttled."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner, self.throttled = inner, 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if response.status_code == 429:
            self.throttled += 1
        return response

    def close(self) -> None:
        self.inner.close()


@dataclass
class _Worker:
    client: ChatClient
    transport: _Counting
    thread: threading.Thread | None = None


def _run_phase(items: list[PlannedRequest], n: int, make_worker: Callable[[], _Worker],
               send: Callable[[_Worker, PlannedRequest, bool, threading.Event], RequestRecord | None],
               stop: threading.Event,
               done: "queue.Queue[tuple[RequestRecord | None, BaseException | None]]") -> list[_Worker]:
    """Start n workers over a shared queue of this role's requests; each puts what it finished on ``done``.

    When the queue is empty and measured requests are still streaming, a free worker sends a
    load-keeping request (the plan again, not analysed, closed as soon as the last measured one
    ends; at most PADDING_ROUNDS x (n - 1) of them): every measured stream runs with n streams open to its end, as in
    a batch job's steady state, instead of speeding up as the level drains.
    """
    todo: "queue.Queue[PlannedRequest]" = queue.Queue()
    for item in items:
        todo.put(item)
    workers = [make_worker() for _ in range(min(n, len(items)))]
    measured_done = threading.Event()
    left = [len(items)]
    lock = threading.Lock()
    pad = [0]

    def work(worker: _Worker) -> None:
        while not stop.is_set() and not measured_done.is_set():
            try:
                item, padding = todo.get_nowait(), False
            except queue.Empty:
                with lock:
                    if pad[0] >= PADDING_ROUNDS * (n - 1):  # the most the estimate counts
                        return
                    item, padding = items[pad[0] % len(items)], True
                    pad[0] += 1
            try:
                record = send(worker, item, padding, measured_done)
                if not padding:
                    done.put((record, None))
            except Cancelled:
                if not padding:
                    done.put((None, Cancelled()))
                return
            except BaseException as exc:  # handed to the generator's thread, which decides
                done.put((None, exc))
                return
            if not padding:
                with lock:
                    left[0] -= 1
                    if left[0] == 0:
                        measured_done.set()

    for i, w in enumerate(workers):
        w.thread = threading.Thread(target=work, args=(w,), name=f"probe-stream-{n}-{i}", daemon=True)
        w.thread.start()
    return workers


def run_load(settings: ProbeSettings, keys: Mapping[str, ApiKey | None], run_path: str | Path | None = None,
             cancel: CancelCheck = None, limits: Limits = Limits(),
             transport: httpx.BaseTransport | None = None, into: ProbeRun | None = None,
             ) -> Generator[ProbeProgress, None, ProbeRun]:
    """run_probe's contract (progress, cancel, ``into``, the run file) for every level in settings.concurrency."""
    settings.check()
    user_cancel = cancel.is_set if isinstance(cancel, threading.Event) else cancel
    stop = threading.Event()  # set on a cancel or a failure: the workers stop at their next event

    def check() -> bool:
        return stop.is_set() or bool(user_cancel and user_cancel())

    levels = plan_levels(settings)
    total = sum(x.requests for x in levels)
    run = into if into is not None else ProbeRun()
    run.header = {**run_header(settings), "concurrency": list(settings.concurrency)}
    run.run_path = str(run_path) if run_path else None
    writer = RunWriter(run_path, run.header) if run_path else None
    fillers = {ctx: filler(ctx) for ctx in settings.contexts}
    endpoints = {FAST: settings.fast, BASELINE: settings.baseline}
    started = time.perf_counter()
    tokens = finished = 0
    workers: list[_Worker] = []
    padding_lock = threading.Lock()
    padded: dict[int, int] = {}  # load-keeping requests sent per level
    throttled_padding: dict[int, int] = {}  # and the 429s they met, which count for the level too

    def make_worker(role: str) -> Callable[[], _Worker]:
        def make() -> _Worker:
            counting = _Counting(transport if transport is not None else httpx.HTTPTransport(verify=True))
            return _Worker(ChatClient(endpoints[role], keys.get(role), limits, counting), counting)
        return make

    def send(level: int) -> Callable[[_Worker, PlannedRequest, bool, threading.Event], RequestRecord | None]:
        def go(worker: _Worker, item: PlannedRequest, padding: bool, measured_done: threading.Event
               ) -> RequestRecord | None:
            record = RequestRecord(item.label + f", {level} streams", item.role, item.prompt.task_class,
                                   item.prompt_index, item.context, item.repeat, settings.max_tokens,
                                   concurrency=level)
            before = worker.transport.throttled
            try:
                worker.client.stream(record, item.prompt.with_filler(fillers[item.context]),
                                     (lambda: check() or measured_done.is_set()) if padding else check)
            except ProbeRequestError as exc:
                if padding:  # not analysed; a measured request that fails the same way will say so
                    return None
                record.error = str(exc)
            except Cancelled:
                if padding and not check():
                    return None  # closed because the level's last measured stream ended
                raise
            finally:
                record.throttled = worker.transport.throttled - before
                if padding:
                    with padding_lock:
                        padded[level] = padded.get(level, 0) + 1
                        throttled_padding[level] = throttled_padding.get(level, 0) + record.throttled
            return record
        return go

    def finish_workers(grace_s: float) -> None:
        stop.set()
        end = time.monotonic() + grace_s
        for w in workers:
            if w.thread is not None:
                w.thread.join(max(0.0, end - time.monotonic()))
        for w in workers:
            w.client.close()  # closes the connections of any stream still open
        for w in workers:
            if w.thread is not None:
                w.thread.join(max(0.0, end + 1.0 - time.monotonic()))
        workers.clear()

    try:
        yield ProbeProgress(0, total, 0.0, None, 0.0, "starting")
        for level in levels:
            for role, items in ((FAST, level.fast), (BASELINE, level.baseline)):
                if not items or run.cancelled or run.error:
                    continue
                stop.clear()
                done: "queue.Queue[tuple[RequestRecord | None, BaseException | None]]" = queue.Queue()
                workers = _run_phase(items, level.concurrency, make_worker(role), send(level.concurrency),
                                     stop, done)
                left = len(items)
                while left:
                    if user_cancel and user_cancel():
                        run.cancelled = True
                        break
                    try:
                        record, exc = done.get(timeout=0.1)
                    except queue.Empty:
                        continue
                    left -= 1
                    if isinstance(exc, Cancelled):
                        run.cancelled = True
                        break
                    if exc is not None:
                        run.error = f"{role} at {fmt.count(level.concurrency, 'stream')}: {exc.__class__.__name__}: {exc}"
                        break
                    assert record is not None
                    if writer:
                        writer.add(record)
                    if record.error:
                        run.error = record.error
                        break
                    run.records.append(record)
                    tokens += request_tokens(record)
                    finished += 1
                    elapsed = time.perf_counter() - started
                    yield ProbeProgress(finished, total, tokens / elapsed if elapsed > 0 else 0.0,
                                        elapsed / finished * (total - finished), elapsed,
                                        f"{role}, {fmt.count(level.concurrency, 'stream')}")
                finish_workers(1.0 if (run.cancelled or run.error) else limits.total_s)
                while not done.empty():  # finished while the run was stopping: completed, so kept
                    record, exc = done.get_nowait()
                    if record is not None and exc is None and record.ok and record.t_done is not None:
                        run.records.append(record)
                        if writer:
                            writer.add(record)
    finally:
        finish_workers(1.0)
        if writer:
            writer.close()
    run.header["load_keeping_requests"] = {str(k): v for k, v in padded.items()}
    run.header["load_keeping_throttled"] = {str(k): v for k, v in throttled_padding.items()}
    return run


def run_any(settings: ProbeSettings, keys: Mapping[str, ApiKey | None], run_path: str | Path | None = None,
            cancel: CancelCheck = None, limits: Limits = Limits(),
            transport: httpx.BaseTransport | None = None, into: ProbeRun | None = None,
            ) -> Generator[ProbeProgress, None, ProbeRun]:
    """The one-at-a-time probe for a single stream, the load runner for anything else."""
    if tuple(settings.concurrency) == (1,):
        return run_probe(settings, keys, run_path, cancel, limits, transport, into)
    return run_load(settings, keys, run_path, cancel, limits, transport, into)
