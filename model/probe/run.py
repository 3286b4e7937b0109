"""The probe as long work: a cancellable generator that sends the plan and records every event.

``run_probe(settings, keys)`` yields ProbeProgress and returns a ProbeRun (StopIteration.value, or
model.common.cancel.run_to_end). Its one stream is read as the load runner reads many (model.probe.load_loop,
loop_client): on an event loop of its own thread, each chunk stamped with the kernel's receive time where
the platform gives it, so the one-stream and the multi-stream probe time their events the same way. The
generator waits for each request on the calling thread, checking the cancel flag every guard.POLL_S: a
cancel cancels the request's task, which closes its connection, within a second of a live stream; a
cancelled or failed run still returns the requests that completed, with `cancelled` or `error` set. Each
completed request goes to the run file at once.
"""
from __future__ import annotations

import concurrent.futures
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable, Generator, Mapping

import httpx

from model.common.cancel import CancelCheck, Cancelled, cancel_flag
from model.probe.client import Limits, ProbeRequestError
from model.probe.endpoint import ApiKey
from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.filler import filler
from model.probe.guard import POLL_S
from model.probe.load_loop import StreamLoop
from model.probe.loop_client import LoopClient
from model.probe.check_records import prompt_checks
from model.probe.plan import ProbeSettings, plan_requests
from model.probe.run_file import RunWriter
from model.probe.speed import request_tokens



@dataclass(frozen=True)
class ProbeProgress:
    requests_done: int
    requests_total: int
    tokens_per_second: float  # output tokens received per second of wall time
    seconds_left: float | None
    elapsed_seconds: float
    message: str = ""


@dataclass
class ProbeRun:
    records: list[RequestRecord] = field(default_factory=list)
    error: str | None = None  # the one line of the request that stopped the run
    cancelled: bool = False
    run_path: str | None = None
    header: dict[str, Any] = field(default_factory=dict)


def run_header(settings: ProbeSettings) -> dict[str, Any]:
    """What the run file says about the run: endpoints without keys, the settings, the date."""
    return {"date": date.today().isoformat(), "fast_name": settings.fast_name,
            "baseline_name": settings.baseline_name if settings.baseline else None,
            "fast": settings.fast.to_dict(), "baseline": settings.baseline.to_dict() if settings.baseline else None,
            "contexts": list(settings.contexts), "repeats": settings.repeats, "max_tokens": settings.max_tokens,
            "prompts": settings.prompts_path, "tier_k": settings.tier_k, "temperature": settings.temperature,
            "sla": {"threshold_tokens_per_s": settings.sla[0], "promised_share": settings.sla[1]}
            if settings.sla else None, "checks": prompt_checks(settings.prompts),
            "check_margin_points": settings.check_margin_points}


def run_probe(settings: ProbeSettings, keys: Mapping[str, ApiKey | None], run_path: str | Path | None = None,
              cancel: CancelCheck = None, limits: Limits = Limits(),
              transport: httpx.AsyncBaseTransport | None = None, into: ProbeRun | None = None,
              ) -> Generator[ProbeProgress, None, ProbeRun]:
    """Send every planned request, one at a time; ``keys`` maps FAST/BASELINE to that tier's key.

    ``into`` is filled as requests complete, so a caller that closes the generator (a GUI worker
    stopping at a cancel between two progress events) still holds what completed.
    """
    settings.check()
    if transport is not None and not isinstance(transport, httpx.AsyncBaseTransport):
        raise TypeError("run_probe reads on an event loop: its transport must be an httpx.AsyncBaseTransport")
    check = cancel_flag(cancel)
    plan = plan_requests(settings)
    run = into if into is not None else ProbeRun()
    run.header, run.run_path = run_header(settings), str(run_path) if run_path else None
    streams = StreamLoop()
    clients = {FAST: LoopClient(settings.fast, keys.get(FAST), limits, 1, transport)}
    if settings.baseline is not None:
        clients[BASELINE] = LoopClient(settings.baseline, keys.get(BASELINE), limits, 1, transport)
    writer = RunWriter(run_path, run.header) if run_path else None
    fillers = {ctx: filler(ctx) for ctx in settings.contexts}
    started = time.perf_counter()
    run_deadline = time.monotonic() + limits.run_s  # holds whatever the server sends, as each request's does
    tokens = 0
    try:
        yield ProbeProgress(0, len(plan), 0.0, None, 0.0, "starting")
        for done, item in enumerate(plan):
            record = RequestRecord(item.label, item.role, item.prompt.task_class, item.prompt_index, item.context,
                                   item.repeat, settings.max_tokens, prompt_key=item.prompt.key,
                                   temperature=item.temperature)
            try:
                _wait(streams.submit(clients[item.role].stream(
                    record, item.prompt.with_filler(fillers[item.context]), run_deadline)), check)
            except Cancelled:
                run.cancelled = True
                break
            except ProbeRequestError as exc:
                record.error = str(exc)
                run.error = str(exc)
                if writer:
                    writer.add(record)
                break
            run.records.append(record)
            if writer:
                writer.add(record)
            tokens += request_tokens(record)
            elapsed = time.perf_counter() - started
            left = elapsed / (done + 1) * (len(plan) - done - 1)
            yield ProbeProgress(done + 1, len(plan), tokens / elapsed if elapsed > 0 else 0.0, left, elapsed,
                                item.label)
    finally:
        streams.close(clients=tuple(clients.values()))
        if writer:
            writer.close()
    return run


def _wait(request: "concurrent.futures.Future[RequestRecord]", cancel: Callable[[], bool] | None) -> RequestRecord:
    """The request's record once its task ends; on a cancel, the task cancelled and Cancelled raised (the run's
    end closes its connection). The request's and the run's deadlines are the task's own (LoopClient.stream)."""
    while True:
        try:
            return request.result(POLL_S)
        except concurrent.futures.TimeoutError:
            if cancel is not None and cancel():
                request.cancel()  # its connection is closed as the loop shuts down (StreamLoop.close)
                raise Cancelled() from None
