"""The demo server under load: one step serves every active stream, its time set by a stated rule.

The rule (serve-demo --help says it too). A step reads the weights once for the whole batch, so
while the batch is small its time is the memory-bound step time; past a knee the query tokens'
arithmetic dominates and the time grows with them:

    step seconds = step_s * max(1, query tokens in the batch / knee_tokens)

A plain stream puts 1 query token in each step, a speculative stream K + 1 (the verify pass over
its K drafts and the bonus position); the draft's passes are taken as free (c = 0). So at B streams
the speculative tier's speedup over the plain one is its tokens per step E times
max(1, B / knee) / max(1, B (K + 1) / knee): E while B (K + 1) fits under the knee, falling as
1 / B past it. `predicted_speedup` is that formula, for the tests and the benchmark.

Prefill (PrefillRule, stated in serve-demo --help too): a request's first token waits

    prefill seconds = base_s + prompt tokens as sent / tokens_per_s

from when the server took it up, or as long as the demo pair took to compute the whole answer if that was
longer (it computes every step before streaming). An answer kept from an earlier request (the batched
server keeps one per prompt) waits what it took then, so a repeat reads the same time to first token as
the first request of its prompt, not the cache's ~0.

A BatchClock ticks while any stream is in the batch; a stream that joined waits for each tick
and sends what its step emitted. Each model has its own clock (its own server, as a vendor runs
its tiers). `ticks` keeps (start, streams, tokens, seconds) per tick, the server's own truth.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable


@dataclass(frozen=True)
class BatchRule:
    step_s: float = 0.02  # one memory-bound step
    knee_tokens: int = 32  # query tokens a memory-bound step covers

    def step_seconds(self, tokens: int) -> float:
        return self.step_s * max(1.0, tokens / self.knee_tokens)

    def describe(self) -> str:
        return (f"step = {self.step_s * 1000:g} ms x max(1, batch query tokens / {self.knee_tokens}); "
                "a plain stream adds 1 token, a speculative one K + 1; drafts free")


@dataclass(frozen=True)
class PrefillRule:
    base_s: float = 0.02  # a short prompt's prefill: about one step
    tokens_per_s: float = 10_000.0  # the prompt tokens a prefill covers a second

    def seconds(self, prompt_tokens: int, computed_s: float = 0.0) -> float:
        """The wait before a request's first token: the rule's, or the demo pair's compute if longer."""
        return max(self.base_s + max(prompt_tokens, 0) / self.tokens_per_s, computed_s)

    def describe(self) -> str:
        return (f"prefill = {self.base_s * 1000:g} ms + prompt tokens / {self.tokens_per_s:g} per s, each request "
                "afresh (a repeated prompt too), or the demo pair's own compute of the answer where longer")


def predicted_speedup(rule: BatchRule, streams: int, k: int, tokens_per_step: float) -> float:
    """The speculative tier's per-stream speed over the plain tier's, both at ``streams`` parallel streams."""
    return tokens_per_step * rule.step_seconds(streams) / rule.step_seconds(streams * (k + 1))


@dataclass(eq=False)
class Member:
    tokens: int  # query tokens this stream puts in every step
    served: int = 0  # the clock's tick count when this stream last sent


@dataclass
class BatchClock:
    rule: BatchRule
    members: list[Member] = field(default_factory=list)
    ticks: list[tuple[float, int, int, float]] = field(default_factory=list)
    tick: int = 0
    _event: asyncio.Event | None = None
    _task: "asyncio.Task[None] | None" = None

    def join(self, tokens: int) -> Member:
        member = Member(tokens, self.tick)
        self.members.append(member)
        if self._event is None:
            self._event = asyncio.Event()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return member

    def leave(self, member: Member) -> None:
        if member in self.members:
            self.members.remove(member)

    async def next_step(self, member: Member) -> None:
        """Wait until a tick after the one this stream last sent at has finished."""
        while self.tick <= member.served:
            assert self._event is not None
            event = self._event
            await event.wait()
        member.served = self.tick

    async def _run(self) -> None:
        # ticks on deadlines, so the event loop's lag (a busy machine, many streams to write) does not add
        # up into a slower step than the rule says; a late tick is caught up by at most half a step, so two
        # steps never arrive back to back and read as one
        deadline = time.perf_counter()
        while self.members:
            tokens = sum(m.tokens for m in self.members)
            seconds = self.rule.step_seconds(tokens)
            start = time.perf_counter()
            self.ticks.append((start, len(self.members), tokens, seconds))
            del self.ticks[:-100_000]  # a long-running serve-demo keeps the recent ones
            deadline = max(deadline + seconds, start + seconds / 2)
            await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
            self.tick += 1
            event, self._event = self._event, asyncio.Event()
            assert event is not None
            event.set()


async def batched_events(ticks: list[list[Any]], clock: BatchClock, query_tokens: int,
                         render: Callable[[list[Any]], str], sent: list[float],
                         began: list[float] | None = None, ready_at: float = 0.0,
                         opening: str = "") -> AsyncIterator[str]:
    """A stream in the batch: ``ticks`` holds the events each of its steps sends (rendered by ``render``
    in one write, as a server flushing after each step); one step per tick of the clock.

    The stream takes its place in the batch at once and holds it through its prefill: it sends ``opening``
    at ``ready_at`` (perf_counter) and its first step at the tick after, so a request prefilling does not
    leave a hole in the batch that the step rule would not count.

    For the jitter benchmark, ``began`` gets the time each step's rendering began and ``sent`` the time
    just after its write (the response resumes us right after its send): the write happened between the
    two, and where they are far apart (the server paused there) the write's time is not known."""
    member = clock.join(query_tokens)
    try:
        await asyncio.sleep(max(0.0, ready_at - time.perf_counter()))
        member.served = clock.tick
        if opening:
            yield opening
        for group in ticks:
            await clock.next_step(member)
            if began is not None:
                began.append(time.perf_counter())
            if group:
                yield render(group)
            sent.append(time.perf_counter())
    finally:
        clock.leave(member)
